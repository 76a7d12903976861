"""The ``strong`` player: determinized Monte Carlo search over the hidden cards.

For a decision of ``seat`` with more than one legal action:

1. sample a *world*: the cards the seat cannot place dealt at random to the places it cannot
   see, consistent with everything it knows (:meth:`Observation.sample`: hand sizes, cards
   played, cards shown and taken back, its own face-down cards, the known trump card's place
   in the stock, ziege voids and what the exchange rule reveals; future decks reshuffled);
2. in that world, try every candidate (every legal action) and play the deal out to its end
   with the ``basic`` policy for every seat (each seat playing from its own hand, so nobody
   in a playout uses cards it could not see);
3. score each playout for the seat's side (:class:`Scorer`): the chance the side then wins
   the match, given the defeat points before the deal and those the deal gives
   (:mod:`.value`), plus a small card-point margin term;
4. repeat over fresh worlds until the budget is spent; every candidate is tried in the same
   worlds (common random numbers), and from the 6th world on a candidate whose paired
   difference to the best is more than 2 standard errors below zero is dropped, so the
   budget goes to the close calls (the search stops when one candidate is left).

The candidate with the best mean wins; ties go to the ``basic`` choice. The search is
deterministic given the ``rng``. The budget (:class:`Budget`) counts card-plays, so a
decision costs about the same at every point of a deal; an optional wall-clock limit caps it
(and then the choice depends on the machine's speed).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from ..result import DealResult
from ..scoring import multiplier
from ..state import OVER, CAction, GameState
from .basic import basic_policy
from .observation import Observation
from .value import table_of, win_chance

CARD_POINT_WEIGHT = 1.0 / 120  # one defeat point per 120 card points of margin


@dataclass(frozen=True)
class Budget:
    """How much the ``strong`` player searches per decision.

    ``work`` counts card-plays: a playout with ``c`` cards left to play (hands and stock)
    costs ``c + PLAYOUT_OVERHEAD``, sampling a world ``WORLD_OVERHEAD``; worlds are searched
    until ``work`` is spent (at least ``min_worlds``). The default, 20000, is about 40 ms
    (median) and 90 ms (95th percentile) per decision on the development machine.
    ``seconds``, when set, also stops the search after that much wall-clock time (after
    at least one world).
    """

    work: int = 20000
    min_worlds: int = 2
    seconds: float | None = None

    @classmethod
    def parse(cls, text: str) -> Budget:
        """``"30000"`` (work), ``"150ms"`` / ``"0.2s"`` (a time limit alone: unlimited
        work), or both joined by a comma: ``"60000,200ms"``."""
        work: int | None = None
        seconds: float | None = None
        try:
            for part in text.replace(" ", "").lower().split(","):
                if part.endswith("ms"):
                    seconds = float(part[:-2]) / 1000
                elif part.endswith("s"):
                    seconds = float(part[:-1])
                else:
                    work = int(part)
        except ValueError:
            raise ValueError(f"not a budget: {text!r}") from None
        if work is None:
            if seconds is None:
                raise ValueError(f"not a budget: {text!r}")
            work = UNLIMITED
        if work <= 0 or (seconds is not None and seconds <= 0):
            raise ValueError(f"not a budget: {text!r}")
        return cls(work=work, seconds=seconds)

    def __str__(self) -> str:
        parts = [] if self.work >= UNLIMITED else [str(self.work)]
        if self.seconds is not None:
            parts.append(f"{self.seconds * 1000:g}ms")
        return ",".join(parts)


UNLIMITED = 10**12
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


class Scorer:
    """What a deal's result is worth to ``side`` at this point of the match: the chance its
    side then wins the match (:func:`~kozel_rules.ai.value.win_chance`), plus the card-point
    margin weighted so that 120 points count a quarter of the swing between losing and
    winning a deal by 2 defeat points here (a tie-breaker that also guides the search when
    every playout ends with the same defeat points). With ``MATCH_VALUE`` off, the plain
    deal :func:`utility`."""

    def __init__(self, st: GameState, side: int) -> None:
        self.variant = st.variant.name
        self.players = st.players
        self.totals = tuple(st.defeat_points)
        self.sides_in = st.sides_in
        self.side = side
        self.others = [x for x in self.sides_in if x != side]
        self.rules = table_of(st.options)  # the goat total, eggs "double", ziege tiers
        self.memo: dict[tuple[tuple[int, ...], int], float] = {}
        if MATCH_VALUE:
            two = 2 * multiplier(st.eggs_streak)  # the least award of this deal
            good = tuple(0 if x == side else two for x in range(len(self.totals)))
            bad = tuple(two if x == side else 0 for x in range(len(self.totals)))
            swing = self._win(good, 1) - self._win(bad, 1)
            self.cp_weight = max(swing, 0.02) / 4 / 120
        else:
            self.cp_weight = CARD_POINT_WEIGHT

    def _win(self, awards: tuple[int, ...], next_factor: int) -> float:
        return win_chance(
            self.variant,
            self.players,
            self.totals,
            awards,
            self.sides_in,
            self.side,
            self.rules,
            next_factor,
        )

    def __call__(self, result: DealResult) -> float:
        if not self.others:
            return 0.0
        if not MATCH_VALUE:
            return utility(result, self.side, self.sides_in)
        key = (result.defeat_points, result.next_multiplier)
        w = self.memo.get(key)
        if w is None:
            w = self.memo[key] = self._win(*key)
        cp = result.card_points
        opp_cp = sum(cp[x] for x in self.others) / len(self.others)
        return w + self.cp_weight * (cp[self.side] - opp_cp)


MATCH_VALUE = True


def playout_value(world: GameState, action: CAction, score: Scorer, rng: random.Random) -> float:
    """Apply ``action`` to a copy of ``world``, play the deal out with the basic policy and
    ``score`` its result."""
    st = world.copy()
    st.hold = True  # stop at the deal's end
    number = st.deal_number
    st.step(action)
    if st.phase < OVER:
        st.playout(rng, _policy)
    return score(st.deal_results[number - 1])


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
    score = Scorer(st0, st0.side_of[obs.seat])
    per_playout = _cards_left(st0) + PLAYOUT_OVERHEAD
    deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
    n = len(legal)
    values: list[list[float]] = [[] for _ in range(n)]  # per candidate, per world
    alive = list(range(n))
    spent = 0
    worlds = 0
    while (spent < budget.work or worlds < budget.min_worlds) and len(alive) > 1:
        world = obs.sample(rng)
        seed = rng.random()
        for i in alive:
            values[i].append(playout_value(world, legal[i], score, random.Random(seed)))
        spent += WORLD_OVERHEAD + len(alive) * per_playout
        worlds += 1
        if worlds >= PRUNE_AFTER and worlds % PRUNE_EVERY == 0:
            alive = _prune(alive, values, worlds)
        if deadline is not None and time.perf_counter() > deadline:
            break
    best = max(alive, key=lambda i: (sum(values[i][-worlds:]), legal[i] == fallback))
    return legal[best]


PLAYOUT_OVERHEAD = 8  # the fixed cost of a playout (copy, first step), in card-plays
WORLD_OVERHEAD = 4  # the cost of sampling a world, in card-plays
PRUNE_AFTER = 6  # worlds before candidates may be dropped
PRUNE_EVERY = 3  # worlds between checks
PRUNE_Z = 2.0  # drop a candidate this many standard errors below the best (paired)


def _prune(alive: list[int], values: list[list[float]], worlds: int) -> list[int]:
    """Drop the candidates clearly worse than the best: the mean of the paired differences
    (same worlds) is more than ``PRUNE_Z`` standard errors below zero."""
    means = {i: sum(values[i][-worlds:]) / worlds for i in alive}
    best = max(alive, key=lambda i: means[i])
    vb = values[best][-worlds:]
    keep = []
    for i in alive:
        if i == best:
            keep.append(i)
            continue
        d = [x - y for x, y in zip(values[i][-worlds:], vb, strict=True)]
        mean = sum(d) / worlds
        var = sum((x - mean) ** 2 for x in d) / (worlds - 1)
        se = math.sqrt(var / worlds)
        if mean < -PRUNE_Z * se - 1e-9:
            continue
        keep.append(i)
    return keep


__all__ = [
    "DEFAULT_BUDGET",
    "Budget",
    "Scorer",
    "playout_value",
    "strong_choice",
    "utility",
]
