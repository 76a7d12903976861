"""Helpers for the engine tests: positions built from literal hands, never from a shuffle."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

from kozel_rules import CARDS, Action, Match, get_variant, parse_cards
from kozel_rules.state import GameState


def build_deck(
    variant: str,
    hands: dict[int, str],
    *,
    players: int = 4,
    dealer: int = 0,
    stock: str = "",
    trump: str | None = None,
) -> list[str]:
    """A deck (top first) that deals ``hands`` (seat -> its 4 cards) with ``dealer``.

    The stock starts with ``stock`` (top first); the remaining cards follow by rank, then suit.
    ``trump``: street: the shown card, put at the middle of the stock; moscow: the card
    turned after the deal (it goes under the stock). Seats not in ``hands`` get the first
    remaining cards (by rank, then suit: four suits, no special lead).
    """
    v = get_variant(variant)
    deck = list(v.deck)
    used: list[int] = []
    seat_cards: dict[int, list[int]] = {}
    for seat, text in hands.items():
        cards = [int(c) for c in parse_cards(text)]
        assert len(cards) == v.hand_size, f"seat {seat} needs {v.hand_size} cards"
        seat_cards[seat] = cards
        used += cards
    top = [int(c) for c in parse_cards(stock)] if stock else []
    used += top
    turned = int(parse_cards(trump)[0]) if trump else None
    if turned is not None:
        used.append(turned)
    assert len(used) == len(set(used)), "a card is named twice"
    # the rest by rank, then suit: filler hands mix suits (no accidental molodka)
    rest = sorted((int(c) for c in deck if int(c) not in used), key=lambda c: (c % 9, c // 9))
    for seat in range(players):
        if seat not in seat_cards:
            seat_cards[seat] = [rest.pop(0) for _ in range(v.hand_size)]
    order = [(dealer + 1 + i) % players for i in range(players)]
    out: list[int] = []
    for r in range(v.hand_size):
        for seat in order:
            out.append(seat_cards[seat][r])
    stock_cards = top + rest
    if v.name == "moscow":
        assert turned is not None, "moscow needs the turned trump card"
        out.append(turned)
    elif turned is not None:
        # the shown card sits at position n // 2 of the stock of n cards (top first)
        mid = (len(stock_cards) + 1) // 2
        assert len(top) <= mid, "the given stock top reaches past the middle card"
        stock_cards.insert(mid, turned)
    out += stock_cards
    return [str(CARDS[c]) for c in out]


def new_match(
    variant: str,
    hands: dict[int, str],
    *,
    players: int = 4,
    dealer: int = 0,
    stock: str = "",
    trump: str | None = None,
    later: Iterable[list[str]] = (),
) -> Match:
    deck = build_deck(variant, hands, players=players, dealer=dealer, stock=stock, trump=trump)
    return Match.new(variant, players=players, dealer=dealer, decks=[deck, *later])


def play(m: Match, *actions: str) -> None:
    for a in actions:
        m.apply_text(a)


def legal_set(m: Match, seat: int | None = None) -> set[str]:
    return {str(a) for a in m.legal_actions(seat)}


def act(text: str) -> str:
    """Normalised action text (cards sorted)."""
    return str(Action.parse(text))


def acts(*texts: str) -> set[str]:
    return {act(t) for t in texts}


def hand(m: Match, seat: int) -> set[str]:
    return {str(c) for c in m.view(seat).hand}


def state_of(m: Match) -> GameState:
    return m._st  # tests may look inside


def cards(text: str) -> set[str]:
    return {str(c) for c in parse_cards(text)}


def random_positions(
    variant: str,
    players: int,
    count: int,
    seed: int,
    *,
    plies: tuple[int, int] = (0, 140),
    prefix: str = "",
) -> Iterator[tuple[Match, int]]:
    """Positions reached by uniform random play (``plies``: how many moves, drawn from that
    range; across deals), each with the index in ``history`` where its current deal began.
    Matches are seeded ``f"{prefix}{seed}/{i}"`` for ``i`` below ``count``; a match that ended
    is left out."""
    rng = random.Random(seed)
    for i in range(count):
        m = Match.new(variant, players=players, seed=f"{prefix}{seed}/{i}")
        deal_start = 0
        for _ in range(rng.randrange(*plies)):
            deal = m.deal_number
            m.apply(rng.choice(m.legal_actions()))
            if m.is_over:
                break
            if m.deal_number != deal:
                deal_start = m.ply
        if not m.is_over:
            yield m, deal_start
