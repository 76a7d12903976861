"""Actions: ``"<seat> <verb> <cards…>"`` with a parse/format pair."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from .card import Card, parse_cards


class Verb(StrEnum):
    LEAD = "lead"  # every variant: the trick's first cards (1 in ziege, 1-3 of a suit otherwise)
    BEAT = "beat"  # street/moscow: face up, beats the current top set one-to-one
    DISCARD = "discard"  # street/moscow: face down, any cards
    MOLODKA = "molodka"  # street/moscow special lead, out of turn
    MOSCOW = "moscow"  # moscow special lead, out of turn
    PLAY = "play"  # ziege: a follower's card
    GIVE = "give"  # ziege exchange: the leader hands the partner a trump
    RETURN = "return"  # ziege exchange: the partner hands back a plain card

    def __str__(self) -> str:
        return self.value

    @property
    def is_special(self) -> bool:
        return self is Verb.MOLODKA or self is Verb.MOSCOW

    @property
    def is_face_down(self) -> bool:
        return self is Verb.DISCARD


class Action(NamedTuple):
    """One seat's action.

    ``cards`` are kept sorted (by card index) so equal actions compare equal.
    """

    seat: int
    verb: Verb
    cards: tuple[Card, ...]

    @classmethod
    def make(cls, seat: int, verb: Verb | str, cards: tuple[Card, ...] | list[Card]) -> Action:
        return cls(seat, Verb(verb), tuple(sorted(cards)))

    @classmethod
    def parse(cls, text: str) -> Action:
        parts = text.split()
        if len(parts) < 3:
            raise ValueError(f"not an action: {text!r} (want '<seat> <verb> <cards…>')")
        try:
            seat = int(parts[0])
            verb = Verb(parts[1].lower())
        except ValueError:
            raise ValueError(f"not an action: {text!r}") from None
        return cls.make(seat, verb, parse_cards(parts[2:]))

    def __str__(self) -> str:
        return f"{self.seat} {self.verb.value} " + " ".join(str(c) for c in self.cards)
