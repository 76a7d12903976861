"""Outcomes as data. Lists indexed by side keep their length (0 for a side that is out)."""

from __future__ import annotations

from dataclasses import dataclass

from .action import Verb
from .card import Card, Suit


@dataclass(frozen=True)
class PlayView:
    """One play of a trick as a seat sees it."""

    seat: int
    verb: Verb
    cards: tuple[Card, ...]  # empty for face-down plays of other seats
    count: int


@dataclass(frozen=True)
class DealResult:
    number: int  # 1-based deal number in the match
    dealer: int
    trump: Suit | None  # None in ziege
    first_leader: int
    tricks: tuple[int, ...]  # per side, tricks completed
    card_points: tuple[int, ...]  # per side; all 0 when the queen was caught
    defeat_points: tuple[int, ...]  # per side: this deal's award
    eggs: bool  # two sides played the deal and both have 60
    queen_caught: bool
    queen_side: int | None  # ziege: the side that played the caught Q♣
    last_trick_seat: int | None
    out: tuple[int, ...]  # sides that went out after this deal
    # The deal's last trick taken, as everyone saw it (face-down cards without their faces),
    # and, when the queen was caught, the seats of the queen and of the seven that caught it.
    last_trick: tuple[PlayView, ...] = ()
    queen_seats: tuple[int, int] | None = None
    trick_seats: tuple[int, ...] = ()  # who took each trick of the deal, in order
    # Eggs "double" (RULES.md, Options): the factor this deal's defeat points were multiplied
    # by (2 ** the eggs deals in a row just before it; 1 normally), and the factor the next
    # deal will have (after eggs under "double": twice this one; else 1).
    multiplier: int = 1
    next_multiplier: int = 1

    @property
    def eggs_double_next(self) -> bool:
        """Eggs under the option ``double``: "🥚 eggs — the next deal counts ×next_multiplier"."""
        return self.eggs and self.next_multiplier > 1


@dataclass(frozen=True)
class MatchResult:
    """RULES.md "End of a match": placings follow the order of going out, the last one in
    first; the first out are the goats (sides out in the same deal share their place)."""

    defeat_points: tuple[int, ...]  # per side, final totals
    winners: tuple[int, ...]  # sides still in at the end (one side)
    losers: tuple[int, ...]  # sides that went out, in the order they went out
    goats: tuple[int, ...]  # the first sides out (one, or those out in that same deal)
    places: tuple[int, ...]  # per side: 1 for the winners; sides out together share a place
    goat_with_eggs: bool  # eggs fell in this match (RULES.md: "the goat with eggs")
    deals: int
    goat_at: int = 12  # the goat total the match was played to (the option ``goat_at``)


def placings(winners: tuple[int, ...], out_by_deal: list[tuple[int, ...]]) -> tuple[int, ...]:
    """Each side's place: the winners first, then the sides out, the last out first; sides out
    in the same deal share a place, and the next place counts them (1, 2, 2)."""
    places = {side: 1 for side in winners}
    better = len(winners)
    for group in reversed(out_by_deal):
        for side in group:
            places[side] = better + 1
        better += len(group)
    return tuple(places[side] for side in range(len(places)))
