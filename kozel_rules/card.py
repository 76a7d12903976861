"""Cards, suits and ranks: small value types with parse/format pairs.

A card is an ``int`` subclass (``suit * 9 + rank index``) so the engine can use cards
as list indices and bit positions without conversion; ``str(card)`` is the symbol
form (``10♣``) and ``Card.parse`` accepts every notation of docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

SUIT_SYMBOLS = "♠♥♦♣"
RANK_TEXTS = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
_SUIT_LETTERS = {"s": 0, "h": 1, "d": 2, "c": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3}
_RANK_ALIASES = {text: i for i, text in enumerate(RANK_TEXTS)} | {"T": 4}

# Card points by rank index: 6 7 8 9 10 J Q K A.
POINTS_BY_RANK = (0, 0, 0, 0, 10, 2, 3, 4, 11)


class Suit(IntEnum):
    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def symbol(self) -> str:
        return SUIT_SYMBOLS[self]

    def __str__(self) -> str:
        return SUIT_SYMBOLS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        try:
            return cls(_SUIT_LETTERS[text.strip().lower()])
        except KeyError:
            raise ValueError(f"not a suit: {text!r}") from None


class Rank(IntEnum):
    SIX = 0
    SEVEN = 1
    EIGHT = 2
    NINE = 3
    TEN = 4
    JACK = 5
    QUEEN = 6
    KING = 7
    ACE = 8

    def __str__(self) -> str:
        return RANK_TEXTS[self]

    @property
    def points(self) -> int:
        return POINTS_BY_RANK[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        try:
            return cls(_RANK_ALIASES[text.strip().upper()])
        except KeyError:
            raise ValueError(f"not a rank: {text!r}") from None


class Card(int):
    """One card; ``Card.of(Rank.TEN, Suit.CLUBS)`` or ``Card.parse("10♣")``."""

    __slots__ = ()

    @classmethod
    def of(cls, rank: Rank | int, suit: Suit | int) -> Card:
        return CARDS[int(suit) * 9 + int(rank)]

    @classmethod
    def parse(cls, text: str) -> Card:
        s = text.strip()
        if len(s) < 2:
            raise ValueError(f"not a card: {text!r}")
        try:
            return cls.of(Rank.parse(s[:-1]), Suit.parse(s[-1]))
        except ValueError:
            raise ValueError(f"not a card: {text!r}") from None

    @property
    def suit(self) -> Suit:
        return Suit(int(self) // 9)

    @property
    def rank(self) -> Rank:
        return Rank(int(self) % 9)

    @property
    def points(self) -> int:
        return POINTS_BY_RANK[int(self) % 9]

    def __str__(self) -> str:
        return RANK_TEXTS[int(self) % 9] + SUIT_SYMBOLS[int(self) // 9]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


CARDS: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(36))
POINTS: tuple[int, ...] = tuple(c.points for c in CARDS)


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse ``"K♠ 9♠"`` (or an iterable of card texts) into cards."""
    parts = text.split() if isinstance(text, str) else list(text)
    return tuple(Card.parse(p) for p in parts)


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)
