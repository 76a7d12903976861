"""Exact play of a deal's last tricks when every card is known: :func:`solve`.

In one sampled world (every hand known) the rest of the deal is a two-side game of perfect
information once the stock is empty: alpha-beta over every legal action, the seat's side
maximising the value of the deal's result (:class:`~kozel_rules.ai.search.Scorer`), the
other side minimising it, with a transposition table (positions reached by different
orders of play are solved once) and the ``basic`` choice tried first (good moves first make
the cut-offs early). A special lead (molodka, Moscow) is declared at once by the first seat
that may, as every level here does. Three players (moscow) are not solved (each plays for
itself); neither is a position with cards still in the stock.

The search counts the positions it visits and gives up (``None``) past ``limit``, so a
decision's time stays bounded; the caller then falls back to a playout.
"""

from __future__ import annotations

from collections.abc import Callable

from .._tables import mask_points
from ..result import DealResult
from ..state import OVER, V_MOLODKA, V_MOSCOW, CAction, GameState
from .basic import basic_policy

_SPECIALS = (V_MOLODKA, V_MOSCOW)
INF = float("inf")
_EXACT, _LOWER, _UPPER = range(3)  # a stored value is exact, or a bound from a cut-off


class _Abort(Exception):
    """The position limit was reached."""


class Solver:
    """Alpha-beta for one world (see the module docstring); reuse it for every candidate of
    that world, so the transposition table is shared."""

    def __init__(self, side: int, score: Callable[[DealResult], float], limit: int = 4000) -> None:
        self.side = side
        self.score = score
        self.limit = limit
        self.nodes = 0
        self.table: dict[tuple[object, ...], tuple[float, int]] = {}

    def value_after(self, st: GameState, action: CAction) -> float | None:
        """The exact value of ``st`` after ``action`` (``st`` is not changed), or ``None``
        if the limit was reached."""
        child = st.copy()
        child.hold = True
        number = child.deal_number
        child.step(action)
        try:
            return self._value(child, number, -INF, INF)
        except _Abort:
            return None

    def _key(self, st: GameState) -> tuple[object, ...]:
        side_of = st.side_of
        mine = 0
        won = 0
        for s, pile in enumerate(st.piles):
            if side_of[s] == self.side:
                mine += mask_points(pile)
            if st.tricks_taken[s]:
                won |= 1 << side_of[s]
        return (
            tuple(st.hands),
            tuple(st.plays),
            st.phase,
            st.leader,
            st.due_leader,
            st.declared_kind,
            mine,
            won,
        )

    def _value(self, st: GameState, number: int, alpha: float, beta: float) -> float:
        if st.phase >= OVER:
            return self.score(st.deal_results[number - 1])
        self.nodes += 1
        if self.nodes > self.limit:
            raise _Abort
        key = self._key(st)
        hit = self.table.get(key)
        if hit is not None:
            v, kind = hit
            if kind == _EXACT or (kind == _LOWER and v >= beta) or (kind == _UPPER and v <= alpha):
                return v
        moves = _ordered(st)
        maximize = st.side_of[moves[0][0]] == self.side
        a0, b0 = alpha, beta
        best = -INF if maximize else INF
        for a in moves:
            child = st.copy()
            child.step(a)
            v = self._value(child, number, alpha, beta)
            if maximize:
                best = max(best, v)
                alpha = max(alpha, best)
            else:
                best = min(best, v)
                beta = min(beta, best)
            if alpha >= beta:
                break
        kind = _UPPER if best <= a0 else _LOWER if best >= b0 else _EXACT
        self.table[key] = (best, kind)
        return best


def _ordered(st: GameState) -> list[CAction]:
    """The moves to search, the ``basic`` choice first; a special lead is declared at once
    by the first seat that may (every level does so)."""
    legal = st.legal()
    for a in legal:
        if a[1] in _SPECIALS:
            return [a]
    if len(legal) == 1:
        return legal
    first = basic_policy(st, legal)
    return [first] + [a for a in legal if a != first]


def solvable(st: GameState, max_cards: int) -> bool:
    """Is ``st`` small enough to solve: two sides still in, the stock empty, at most
    ``max_cards`` cards left in hands?"""
    if len(st.sides_in) != 2 or st.stock:
        return False
    return sum(h.bit_count() for h in st.hands) <= max_cards


__all__ = ["Solver", "solvable"]
