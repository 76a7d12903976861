"""The current deal as one seat saw it: :class:`DealTrace`, for the ``expert``'s inference.

The match's history is replayed (from the real decks) up to now, and from the start of the
current deal only what the observing seat may know is written down
(RULES.md "What each seat may see"):

* ``start``: the deal's first state, *concealed* for the seat
  (:func:`~kozel_rules.ai.observation.conceal`: every card it could not place then in a
  canonical place, no decks, no seed);
* ``acts``: every action of the deal: seat, verb and the cards when the seat saw them
  (face-up plays; its own face-down cards and its own part of a ziege exchange), else only
  the count;
* ``draws``: every card drawn from the stock: when, by whom, from which place of the stock
  (the draw order is public), and the card when the seat knows it (its own draws, and the
  shown or turned trump card, whose place in the stock everybody knows);
* ``own``: the seat's own cards at the deal's start (its hand) and at each of its draws.

Nothing else of the real deal is kept, so two matches that differ only in what the seat
cannot see give equal traces (the tests check this through the ``expert``'s choices).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..action import Action
from ..match import Match
from ..state import (
    V_BEAT,
    V_DISCARD,
    V_GIVE,
    V_LEAD,
    V_MOLODKA,
    V_MOSCOW,
    V_PLAY,
    V_RETURN,
    CAction,
    GameState,
    from_action,
)
from .observation import conceal

FACE_UP = frozenset((V_LEAD, V_BEAT, V_PLAY, V_MOLODKA, V_MOSCOW))


@dataclass(frozen=True)
class TraceAct:
    """One action of the deal as the observer saw it (``cards`` 0: it did not see them)."""

    seat: int
    verb: int
    cards: int
    count: int


@dataclass(frozen=True)
class Draw:
    """A card drawn from the stock after action ``after`` (an index into ``acts``)."""

    after: int
    seat: int
    index: int  # its place in the deal's first stock list (``GameState.stock``)
    card: int  # the card's bit if the observer knows it, else 0


@dataclass(frozen=True)
class DealTrace:
    """The current deal as ``seat`` saw it (see the module docstring)."""

    seat: int
    start: GameState  # concealed, at the deal's start
    acts: tuple[TraceAct, ...]
    draws: tuple[Draw, ...]
    stock_size: int  # the stock at the deal's start
    trump_index: int  # the trump card's place in the first stock list (-1: none)
    trump_card: int  # its bit (0: none)

    @property
    def now(self) -> int:
        """The time of the next action (actions so far)."""
        return len(self.acts)


def _visible(seat: int, a: CAction, leader: int, partner: int) -> bool:
    s, vb, _ = a
    if vb in FACE_UP:
        return True
    if vb == V_DISCARD:
        return s == seat
    if vb in (V_GIVE, V_RETURN):
        return seat in (leader, partner)
    return False


def replay_to_deal(match: Match) -> tuple[GameState, list[CAction]]:
    """The state at the start of the current deal (real cards) and the deal's actions so far."""
    real = match.state_copy()
    st = GameState.new(
        real.variant,
        real.players,
        real.seed,
        real.first_dealer,
        real.decks_used,
        options=real.options,
    )
    target = real.deal_number
    deal_start: GameState | None = st.copy() if st.deal_number == target else None
    actions: list[CAction] = []
    for text in match.history:
        a = from_action(Action.parse(text))
        if deal_start is not None:
            actions.append(a)
        st.step(a)
        if deal_start is None and st.deal_number == target:
            deal_start = st.copy()
    assert deal_start is not None
    return deal_start, actions


def deal_trace(match: Match, seat: int) -> DealTrace:
    """The current deal of ``match`` as ``seat`` saw it."""
    start, actions = replay_to_deal(match)
    return trace_of(start, actions, seat)


def trace_of(start: GameState, actions: list[CAction], seat: int) -> DealTrace:
    """The trace of the deal begun in ``start`` (real cards) after ``actions``, for ``seat``."""
    st = start.copy()
    st.hold = True
    first_stock = start.stock[:]
    where = {b: i for i, b in enumerate(first_stock)}
    trump_bit = 1 << start.trump_card if start.trump_card >= 0 else 0
    acts: list[TraceAct] = []
    draws: list[Draw] = []
    for k, a in enumerate(actions):
        s, vb, m = a
        leader = st.due_leader
        vis = _visible(seat, a, leader, st.partner[leader])
        acts.append(TraceAct(s, vb, m if vis else 0, m.bit_count()))
        stock = st.stock[:]
        st.step(a)
        if len(st.stock) != len(stock):
            draws += _draws_of(st, stock[len(st.stock) :], where, k, seat, trump_bit)
    concealed = conceal(start.copy(), seat)
    concealed.hold = True
    return DealTrace(
        seat=seat,
        start=concealed,
        acts=tuple(acts),
        draws=tuple(draws),
        stock_size=len(first_stock),
        trump_index=where.get(trump_bit, -1) if trump_bit else -1,
        trump_card=trump_bit,
    )


def _draws_of(
    st: GameState, popped: list[int], where: dict[int, int], k: int, seat: int, trump_bit: int
) -> list[Draw]:
    """The draws of the refill that followed action ``k``, in draw order (which seat drew
    which place of the stock is public: the refill order is a rule)."""
    out = []
    for b in reversed(popped):
        s = next(x for x in range(st.players) if st.hands[x] & b)
        known = b if s == seat or b == trump_bit else 0
        out.append(Draw(k, s, where[b], known))
    return out


__all__ = ["FACE_UP", "DealTrace", "Draw", "TraceAct", "deal_trace", "replay_to_deal", "trace_of"]
