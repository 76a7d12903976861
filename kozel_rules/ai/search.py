"""The ``strong`` player: determinized Monte Carlo search over the hidden cards.

For a decision of ``seat`` with more than one legal action:

1. sample a *world*: the cards the seat cannot place dealt at random to the places it cannot
   see, consistent with everything it knows (:meth:`Observation.sample`: hand sizes, cards
   played, cards shown and taken back, its own face-down cards, the known trump card's place
   in the stock, ziege voids; future decks reshuffled);
2. in that world, try every candidate action and play the deal out to its end with the
   ``basic`` policy for every seat (each seat playing from its own hand);
3. score each playout for the seat's side: the defeat points the deal gives the other sides
   minus those it gives ours (averaged over the other sides), plus the card-point margin
   scaled to one defeat point per 120 card points;
4. repeat over fresh worlds until the budget is spent; every candidate is tried in the same
   worlds (common random numbers), so the comparison between candidates is sharp.

The candidate with the best mean wins; ties go to the ``basic`` choice. The search is
deterministic given the ``rng``. The default budget is a number of playouts per decision
scaled by how much of the deal is left (see :class:`Budget`), so a decision costs about the
same at every point of a deal; an optional wall-clock limit caps it (and makes the choice
depend on the machine's speed).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from ..result import DealResult
from ..state import OVER, CAction, GameState
from .basic import basic_policy
from .observation import Observation

CARD_POINT_WEIGHT = 1.0 / 120  # one defeat point per 120 card points of margin


@dataclass(frozen=True)
class Budget:
    """How much the ``strong`` player searches per decision.

    ``work`` is measured in card-plays: a playout that has ``c`` cards left to play (in hands
    and the stock) costs about ``c``; the search runs ``work / c`` playouts (at least
    ``min_worlds`` worlds), spread over the candidates. ``seconds``, when set, stops the
    search after that much wall-clock time (at least one world is always searched).
    """

    work: int = 2400
    min_worlds: int = 2
    seconds: float | None = None

    @classmethod
    def parse(cls, text: str) -> Budget:
        """``"2400"`` (work), ``"150ms"`` / ``"0.2s"`` (a time limit with unlimited work),
        or both joined by a comma: ``"4800,200ms"``."""
        work = cls.work
        seconds: float | None = None
        for part in text.replace(" ", "").split(","):
            if not part:
                continue
            if part.endswith("ms"):
                seconds = float(part[:-2]) / 1000
                if "," not in text:
                    work = 10**9
            elif part.endswith("s"):
                seconds = float(part[:-1])
                if "," not in text:
                    work = 10**9
            else:
                work = int(part)
        if work <= 0 or (seconds is not None and seconds <= 0):
            raise ValueError(f"not a budget: {text!r}")
        return cls(work=work, seconds=seconds)

    def __str__(self) -> str:
        parts = [] if self.work >= 10**9 else [str(self.work)]
        if self.seconds is not None:
            parts.append(f"{self.seconds * 1000:g}ms")
        return ",".join(parts)


DEFAULT_BUDGET = Budget()


def utility(result: DealResult, side: int, sides_in: tuple[int, ...]) -> float:
    """What a deal's result is worth to ``side``: the other sides' defeat points minus ours
    (averaged over the other sides still playing), plus the card-point margin (1 per 120)."""
    others = [x for x in sides_in if x != side]
    if not others:
        return 0.0
    award = result.defeat_points
    cp = result.card_points
    opp_award = sum(award[x] for x in others) / len(others)
    opp_cp = sum(cp[x] for x in others) / len(others)
    return opp_award - award[side] + CARD_POINT_WEIGHT * (cp[side] - opp_cp)


def _cards_left(st: GameState) -> int:
    n = len(st.stock)
    for h in st.hands:
        n += h.bit_count()
    return max(n, 1)


def playout_value(world: GameState, action: CAction, side: int, rng: random.Random) -> float:
    """Apply ``action`` to a copy of ``world`` and play the deal out with the basic policy;
    the result's :func:`utility` for ``side``."""
    st = world.copy()
    st.hold = True  # stop at the deal's end
    number = st.deal_no
    sides_in = st.sides_in
    st.step(action)
    if st.phase < OVER:
        st.playout(rng, _policy)
    return utility(st.results[number - 1], side, sides_in)


def _policy(st: GameState, legal: list[CAction]) -> CAction:
    return basic_policy(st, legal)


def strong_choice(obs: Observation, rng: random.Random, budget: Budget = DEFAULT_BUDGET) -> CAction:
    """The ``strong`` choice for ``obs.seat`` (see the module docstring)."""
    legal = obs.legal()
    if len(legal) <= 1:
        if not legal:
            raise ValueError(f"seat {obs.seat} has no legal action")
        return legal[0]
    st0 = obs._state
    fallback = basic_policy(st0, legal)
    side = st0.side_of[obs.seat]
    playouts = budget.work // _cards_left(st0)
    worlds = max(budget.min_worlds, playouts // len(legal))
    deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
    totals = [0.0] * len(legal)
    for w in range(worlds):
        world = obs.sample(rng)
        seed = rng.random()
        for i, a in enumerate(legal):
            totals[i] += playout_value(world, a, side, random.Random(seed))
        if deadline is not None and w and time.perf_counter() > deadline:
            break
    best = max(range(len(legal)), key=lambda i: (totals[i], legal[i] == fallback))
    return legal[best]


__all__ = ["DEFAULT_BUDGET", "Budget", "playout_value", "strong_choice", "utility"]
