"""Events for the user interface, returned by ``Match.apply``.

Face-down cards are in ``cards`` only for the seat that played them; ``public()`` gives
the form every seat may see (face-down cards as a count only).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .action import Verb
from .card import Card, Suit
from .result import DealResult, MatchResult


@dataclass(frozen=True)
class DealStarted:
    number: int
    dealer: int
    first_leader: int
    trump: Suit | None
    trump_card: Card | None  # street: the shown middle card; moscow: the turned card
    multiplier: int = 1  # eggs "double": the factor of this deal's defeat points (1 normally)


@dataclass(frozen=True)
class CardsPlayed:
    seat: int
    verb: Verb
    cards: tuple[Card, ...]  # empty in the public form of a face-down play
    count: int  # number of cards (face-down plays too)

    def public(self) -> CardsPlayed:
        return replace(self, cards=()) if self.verb.is_face_down else self

    def visible_to(self, seat: int | None) -> CardsPlayed:
        return self if seat == self.seat else self.public()


@dataclass(frozen=True)
class CardGiven:
    """ziege exchange, first half: the leader handed the partner a trump (private to both)."""

    leader: int
    partner: int
    card: Card | None  # None in the public form

    def public(self) -> CardGiven:
        return replace(self, card=None)

    def visible_to(self, seat: int | None) -> CardGiven:
        return self if seat in (self.leader, self.partner) else self.public()


@dataclass(frozen=True)
class ExchangeMade:
    """ziege: the leader gave the partner a trump and got a plain card (cards are private).

    Emitted once, after the partner's ``return``; ``given``/``returned`` are ``None`` in the
    public form (and in the form for seats other than the two partners).
    """

    leader: int
    partner: int
    given: Card | None = None
    returned: Card | None = None

    def public(self) -> ExchangeMade:
        return replace(self, given=None, returned=None)

    def visible_to(self, seat: int | None) -> ExchangeMade:
        return self if seat in (self.leader, self.partner) else self.public()


@dataclass(frozen=True)
class CardsReturned:
    """A special lead was declared: the cards on the table went back to their owners."""

    declarer: int
    verb: Verb


@dataclass(frozen=True)
class TrickTaken:
    seat: int
    side: int
    cards: int  # how many cards the trick held


@dataclass(frozen=True)
class QueenCaught:
    queen_seat: int
    seven_seat: int


@dataclass(frozen=True)
class DealEnded:
    result: DealResult


@dataclass(frozen=True)
class MatchEnded:
    result: MatchResult


Event = (
    DealStarted
    | CardsPlayed
    | CardGiven
    | ExchangeMade
    | CardsReturned
    | TrickTaken
    | QueenCaught
    | DealEnded
    | MatchEnded
)


def public_event(event: Event) -> Event:
    """The form of ``event`` every seat (and the group's table) may see."""
    if isinstance(event, CardsPlayed | CardGiven | ExchangeMade):
        return event.public()
    return event


def event_for_seat(event: Event, seat: int | None) -> Event:
    """The form of ``event`` that ``seat`` may see (``None``: the public form)."""
    if isinstance(event, CardsPlayed | CardGiven | ExchangeMade):
        return event.visible_to(seat)
    return event
