"""What one seat may see (RULES.md "What each seat may see"), and nothing more."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .action import Action
from .card import Card, Suit
from .result import DealResult
from .result import PlayView as PlayView  # defined with the results (a deal's last trick)


class Phase(StrEnum):
    """What the match waits for (``SeatView.phase``, ``Match.phase``). Each phase equals
    its text ("lead", ...) and goes into JSON as that text."""

    LEAD = "lead"  # the seat due to lead leads
    RESPOND = "respond"  # the other seats in turn beat or discard (beat play), or follow
    GIVE = "give"  # exchange: the leader gives its partner a trump
    RETURN = "return"  # exchange: the partner returns a plain card
    FORCED_LEAD = "forced-lead"  # exchange: the leader leads the card it got back
    OVER = "over"  # the match is over
    DEAL_OVER = "deal-over"  # only a held GameState (a playout copy) once its deal is scored


@dataclass(frozen=True)
class TrickView:
    leader: int  # the seat leading now (a special's declarer once declared)
    due_leader: int  # the seat that was due to lead this trick
    plays: tuple[PlayView, ...]  # in play order; after a special only the plays since it
    top_seat: int | None  # owner of the current top set (street/moscow) or of the best card (ziege)
    taker: int | None  # set on a finished trick (the last trick)


@dataclass(frozen=True)
class SeatView:
    variant: str
    players: int
    seat: int | None  # None: the public view (the group's table)
    hand: tuple[Card, ...]  # sorted for display; empty in the public view
    trump: Suit | None
    trump_card: Card | None  # the shown/turned card while it is known to be in the stock
    trump_card_drawn: bool
    stock: int
    hand_sizes: tuple[int, ...]  # per seat (0 for seats that are out)
    in_game: tuple[bool, ...]  # per seat
    sides: tuple[int, ...]  # side of each seat
    deal_number: int
    dealer: int
    to_move: int | None  # the seat whose turn it is (None when the match is over)
    phase: Phase  # never DEAL_OVER
    trick: TrickView | None
    last_trick: TrickView | None
    tricks_by_seat: tuple[int, ...]  # tricks taken this deal
    tricks_by_side: tuple[int, ...]
    defeat_points: tuple[int, ...]  # per side, running totals
    out: tuple[int, ...]
    last_deal: DealResult | None
    legal: tuple[Action, ...]  # this seat's legal actions now (empty in the public view)
    match_over: bool
    trick_takers: tuple[int, ...] = ()  # who took each trick of this deal, in order
    goat_at: int = 12  # the defeat points that put a side out (the option ``goat_at``)
    multiplier: int = 1  # eggs "double": the factor of this deal's defeat points (1 normally)


@dataclass(frozen=True)
class Seen:
    """What ``seat`` knows about the current deal beyond its view (for computer players).

    Everything here was shown to the seat (face-up cards are seen by all and may be
    remembered, RULES.md "What each seat may see") or is the seat's own doing.
    """

    seat: int | None  # None: what every seat knows
    deal_number: int
    played: tuple[Card, ...]  # face-up cards of this deal's completed tricks
    own_face_down: tuple[Card, ...]  # this seat's face-down cards of this deal (piles, table)
    revealed: tuple[tuple[Card, ...], ...]  # per seat: cards it showed and took back, still held
    given: tuple[tuple[Card, ...], ...]  # per seat: cards this seat gave it (ziege), still held
    # ziege, per seat: plain suits it showed it lacks by not following (since its last draw)
    void_suits: tuple[frozenset[Suit], ...]
    void_trumps: tuple[bool, ...]  # ziege, per seat: showed it holds no trump (likewise)
    unseen: tuple[Card, ...]  # cards this seat cannot place (other hands, stock, face-down)
