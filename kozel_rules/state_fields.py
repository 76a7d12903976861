"""The fields of the fast game state, declared once.

:class:`StateFields` declares every field of :class:`~kozel_rules.state.GameState` with its
type. ``__slots__`` come from the declaration (a slotted dataclass that generates nothing
else), and so does ``copy()``: a field declared with ``field(metadata=OWN)`` is a list the
state changes in place, so each copy gets its own (shallow) copy of it; every other field is
shared by the copies, as the state only ever replaces it (numbers, tuples, what is fixed for
the match).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Self

from ._tables import Tables
from .compact import CAction
from .options import Options
from .result import DealResult, MatchResult
from .variant import Scoring, Variant

OWN = {"own": True}  # field metadata: every copy has its own copy of this list


@dataclass(slots=True, init=False, repr=False, eq=False, match_args=False)
class StateFields:
    """A whole match in compact form (the fields only; the rules are in the subclasses)."""

    # fixed for the match
    variant: Variant
    tables: Tables  # the variant's precomputed tables
    players: int
    seed: object  # shuffles the decks of the deals ``decks`` does not give
    decks: list[list[int]]  # decks given for the first deals (card indices, top first)
    side_of: tuple[int, ...]  # per seat: its side (its team, or the seat itself)
    side_count: int
    partner: tuple[int, ...]  # per seat: its partner (the seat itself without teams)
    verb_of_kind: tuple[int, ...]  # per special kind (1, 2, ...): the verb code declaring it
    first_dealer: int
    options: Options  # the table's house rules (options.py)
    out_at: int  # the goat total: defeat points that put a side out (options.goat_at)
    scoring: dict[int, Scoring]  # per number of sides still in: how a deal is scored
    hold: bool  # stop once the current deal is scored (phase DEAL_OVER), for playouts
    # the match
    in_game: list[bool] = field(metadata=OWN)  # per seat
    sides_in: tuple[int, ...]  # the sides still in, ascending
    order_from: tuple[tuple[int, ...], ...]  # per seat: the seats still in, in play order from it
    distance: tuple[tuple[int, ...], ...]  # [a][b]: b's place in order_from[a] (players if out)
    defeat_points: list[int] = field(metadata=OWN)  # per side
    sides_out: list[int] = field(metadata=OWN)  # in the order they went out (the first: goat)
    deal_results: list[DealResult] = field(metadata=OWN)
    eggs_fell: bool  # some deal ended in eggs
    eggs_streak: int  # eggs deals in a row just before the current deal (eggs "double")
    match_result: MatchResult | None  # set when the match ends
    deal_number: int  # of the current deal, from 1
    dealer: int
    decks_used: list[list[int]] = field(metadata=OWN)  # the deck of every deal dealt so far
    # the deal
    trump: int  # the trump suit, -1 for none (fixed trumps)
    trump_card: int  # the shown or turned trump card, -1 for none
    trump_stock_index: int  # where the trump card lies in ``stock`` while there (-1: none)
    beaters: tuple[int, ...]  # per card: the mask of the cards that beat it under this trump
    first_leader: int
    hands: list[int] = field(metadata=OWN)  # per seat
    stock: list[int] = field(metadata=OWN)  # one single-card mask per card; drawn from the end
    piles: list[int] = field(metadata=OWN)  # per seat: the cards of the tricks it took
    tricks_taken: list[int] = field(metadata=OWN)  # per seat
    trick_takers: list[int] = field(metadata=OWN)  # who took each trick, in order
    last_taker: int  # -1 before the first trick is taken
    seen_face_up: int  # the face-up cards of the deal's completed tricks
    revealed: list[int] = field(metadata=OWN)  # per seat: face-up cards a special gave back
    face_down: list[int] = field(metadata=OWN)  # per seat: its face-down cards (not taken back)
    voids: list[int] = field(metadata=OWN)  # follow play, per seat: bit ``key``: it lacks key
    gifts: list[tuple[int, int, int]] = field(metadata=OWN)  # exchanges: (giver, receiver, card)
    special_of: list[int] = field(metadata=OWN)  # per seat: the special its hand forms (0: none)
    any_special: bool  # any(special_of)
    # the trick
    phase: int  # a phase code: LEAD, RESPOND, ... (PHASES[phase] is the Phase)
    due_leader: int  # the seat due to lead this trick
    leader: int  # the seat leading now (a special's declarer once one is declared)
    order: tuple[int, ...]  # the trick's seats in play order, from the leader
    turn: int  # the index in ``order`` of the seat to play
    set_size: int  # cards in each play of the trick (1 in follow play)
    plays: list[CAction] = field(metadata=OWN)
    top_seat: int  # beat play: the owner of the top set
    top_mask: int  # beat play: the top set, the cards to beat
    declared_kind: int  # beat play: the special kind declared this trick (0: none)
    declared_distance: int  # its declarer's distance from the due leader (players: none)
    table_cards: int  # every card on the table, face up or down
    table_face_up: int  # the face-up cards on the table
    led_key: int  # follow play: the follow key of the led card (a suit, or TRUMP_KEY)
    best_seat: int  # follow play: the seat of the best card so far
    best_power: int  # follow play: that card's trick power
    queen_seat: int  # queen catch: the seat that played the queen this trick (-1: none)
    catcher_seat: int  # queen catch: the seat that played the catcher this trick (-1: none)
    forced_card: int  # exchange: the card the leader must lead (its partner returned it)
    last_trick: tuple[int, int, list[CAction], int] | None  # (leader, due, plays, taker)

    FIELDS: ClassVar[tuple[str, ...]]  # every field, in declaration order
    OWN_LISTS: ClassVar[tuple[str, ...]]  # the fields each copy has its own copy of
    SHARED_FIELDS: ClassVar[tuple[str, ...]]  # the fields copies share

    def copy(self) -> Self:
        """An independent copy: each list of ``OWN_LISTS`` is copied, every other field is
        shared."""
        copied: Self = _copy_state(self)
        return copied

    def snapshot(self) -> dict[str, Any]:
        """Every field, for tests and debugging (not a save format: use Match.to_json)."""
        return {name: getattr(self, name) for name in self.FIELDS if name != "tables"}


StateFields.FIELDS = tuple(f.name for f in fields(StateFields))
StateFields.OWN_LISTS = tuple(f.name for f in fields(StateFields) if f.metadata.get("own"))
StateFields.SHARED_FIELDS = tuple(n for n in StateFields.FIELDS if n not in StateFields.OWN_LISTS)


def _state_copier(shared: tuple[str, ...], own: tuple[str, ...]) -> Callable[[Any], Any]:
    """``copy()`` as straight-line code generated from the fields: as fast as writing every
    field out (a loop of getattr/setattr makes a playout about 10% slower)."""
    body = [f"    st.{name} = self.{name}" for name in shared]
    body += [f"    st.{name} = self.{name}[:]" for name in own]
    source = "\n".join(["def copy(self):", "    st = new(self.__class__)", *body, "    return st"])
    namespace: dict[str, Any] = {"new": object.__new__}
    exec(source, namespace)
    copy: Callable[[Any], Any] = namespace["copy"]
    return copy


_copy_state = _state_copier(StateFields.SHARED_FIELDS, StateFields.OWN_LISTS)
