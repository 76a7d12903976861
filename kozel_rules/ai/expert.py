"""The ``expert`` player: Monte Carlo search over inferred worlds, exact at the end.

For a decision of ``seat`` with more than one legal action:

1. **Worlds.** Each world is a way the deal could have gone so far, consistent with all the
   seat saw this deal (:mod:`.infer`: known cards held when played, voids, exchanges, the
   trump card's drawer, face-down cards). ``Settings(model=True)`` also weights each world by
   how likely the others' plays were in it under the ``basic`` behaviour model; that measured
   worse in street (kozel_rules/README.md, "Third round"), so it is off. Without
   the deal's history (:func:`expert_choice` called with ``trace=None``), and in ziege
   (where the inferred worlds measured worse), the worlds are the ``strong`` level's
   uniform samples.
2. **Values.** In each world every remaining candidate is tried. Once the stock is empty
   and few cards are left (two sides still in), the rest of the deal is solved exactly by
   alpha-beta (:mod:`.solve`); otherwise it is played out with the ``basic`` policy for
   every seat (each from its own hand). A result is scored by the chance the seat's side
   then wins the match, plus a card-point margin (:class:`~.search.Scorer`).
3. **Choice.** Candidates are compared by their weighted mean over the same worlds; from the
   6th world on a candidate clearly worse than the best (paired, 2 standard errors) is
   dropped. The search stops when the budget (:class:`~.search.Budget`, in card-plays) is
   spent or one candidate is left. Ties, and differences within the noise, go to the
   ``basic`` choice: the partner conventions (never overtake a partner, smear points on
   its safe trick, keep the 7♣ for the Q♣, declare a molodka at once) where the search
   cannot tell the moves apart.

Deterministic given the ``rng`` (the budget counts work, not time, unless ``seconds`` is set).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from ..state import OVER, CAction, GameState
from .basic import basic_policy
from .infer import EPS, RESTART, STEPS, TAU, WorldSampler
from .observation import Observation
from .search import Budget, Scorer
from .solve import Solver, solvable
from .trace import DealTrace

PRUNE_AFTER = 6
PRUNE_EVERY = 3
PRUNE_Z = 2.0
TIE_WORLDS = 24  # worlds after which candidates equal in every one are taken as tied


@dataclass(frozen=True)
class Settings:
    """The expert's knobs (the defaults are the measured best; tests and the arena use
    others)."""

    solve_cards: int = 8  # solve exactly at most this many cards left in hands
    solve_limit: int = 3000  # positions per world before a solve gives up
    eps: float = EPS  # the behaviour model's chance of a departure from ``basic``
    # weight worlds by the behaviour model: measured worse than without it, so off
    # (street, 500 sequences: -0.007 of win chance against +0.001; kozel_rules/README.md)
    model: bool = False
    tau: float = TAU  # how hard the behaviour model weighs (1: fully)
    inference: bool = True  # use the deal's history (else uniform worlds)
    keep_z: float = 0.0  # keep the ``basic`` choice unless the best is this many SE better
    steps: int = STEPS  # chain moves between two worlds
    restart: int = RESTART  # worlds of a chain between its restarts
    playout_eps: float = 0.0  # chance of a random legal action at each step of a playout
    prune_z: float = PRUNE_Z  # drop a candidate this many paired SE below the best
    cp_scale: float = 1.0  # the card-point margin's weight, relative to strong's
    follow_inference: bool = False  # infer worlds in ziege too (measured worse: off)


DEFAULT_BUDGET = Budget(work=30000)
DEFAULT_SETTINGS = Settings()

PLAYOUT_OVERHEAD = 8  # a playout's fixed cost, in card-plays
SOLVE_NODE = 7  # one alpha-beta position, in card-plays


def _cards_left(st: GameState) -> int:
    n = len(st.stock)
    for h in st.hands:
        n += h.bit_count()
    return max(n, 1)


class _Worlds:
    """Where the worlds come from: the inference chain, or uniform samples."""

    def __init__(self, obs: Observation, trace: DealTrace | None, settings: Settings) -> None:
        self.obs = obs
        self.sampler = None
        self.cost = 4
        # ziege (the follow-suit variant): the inferred worlds measured worse than uniform
        # ones against strong (kozel_rules/README.md), so there the worlds stay uniform
        infer = settings.inference and (settings.follow_inference or not obs._state.tables.follow)
        if trace is not None and infer:
            self.sampler = WorldSampler(
                trace,
                obs._state,
                eps=settings.eps,
                model=settings.model,
                tau=settings.tau,
                steps=settings.steps,
                restart=settings.restart,
            )
            # a replay costs about a card-play per action; the chain replays about
            # steps + 1 times a world (a restart's burn-in included)
            self.cost = 4 + len(trace.acts) * (settings.steps + 1 if settings.model else 1)

    def next(self, rng: random.Random) -> tuple[GameState, float]:
        if self.sampler is not None:
            got = self.sampler.next_world(rng)
            if got is not None:
                return got, 1.0
        return self.obs.sample(rng), 1.0


def _playout(
    world: GameState, action: CAction, score: Scorer, seed: float, eps: float = 0.0
) -> float:
    st = world.copy()
    st.hold = True
    number = st.deal_number
    st.step(action)
    if st.phase < OVER:
        rng = random.Random(seed)
        if eps > 0:

            def noisy(st: GameState, legal: list[CAction]) -> CAction:
                if len(legal) > 1 and rng.random() < eps:
                    return legal[int(rng.random() * len(legal))]
                return basic_policy(st, legal)

            st.playout(rng, noisy)
        else:
            st.playout(rng, _policy)
    return score(st.deal_results[number - 1])


def _policy(st: GameState, legal: list[CAction]) -> CAction:
    return basic_policy(st, legal)


def _world_values(
    world: GameState,
    cands: list[CAction],
    score: Scorer,
    side: int,
    settings: Settings,
    seed: float,
    solve: bool = True,
) -> tuple[list[float], int, bool]:
    """Each candidate's value in ``world``, the work it took (a solve's positions, and at
    least what playing the world out would cost), and whether a solve gave up."""
    per = _cards_left(world) + PLAYOUT_OVERHEAD
    spent = 0
    gave_up = False
    if solve and solvable(world, settings.solve_cards):
        solver = Solver(side, score, settings.solve_limit)
        out = []
        for a in cands:
            v = solver.value_after(world, a)
            if v is None:
                break
            out.append(v)
        else:
            # at least what playing it out would cost: a tiny endgame's solve visits next to
            # no positions, and uncounted worlds ran to thousands (seconds a move)
            return out, max(solver.nodes * SOLVE_NODE, per * len(cands)), False
        spent = solver.nodes * SOLVE_NODE
        gave_up = True
    eps = settings.playout_eps
    vals = [_playout(world, a, score, seed, eps) for a in cands]
    return vals, spent + per * len(cands), gave_up


def expert_choice(
    obs: Observation,
    trace: DealTrace | None,
    rng: random.Random,
    budget: Budget = DEFAULT_BUDGET,
    settings: Settings = DEFAULT_SETTINGS,
) -> CAction:
    """The ``expert`` choice for ``obs.seat`` (see the module docstring)."""
    legal = obs.legal()
    if len(legal) <= 1:
        if not legal:
            raise ValueError(f"seat {obs.seat} has no legal action")
        return legal[0]
    return search(obs, trace, legal, rng, budget, settings).best


@dataclass
class SearchResult:
    """What the search found: each candidate's weighted mean value (``None`` once dropped)
    over the worlds it was tried in, and the choice."""

    candidates: list[CAction]
    means: list[float | None]
    best: CAction
    worlds: int


def search(
    obs: Observation,
    trace: DealTrace | None,
    legal: list[CAction],
    rng: random.Random,
    budget: Budget,
    settings: Settings,
    prune: bool = True,
) -> SearchResult:
    """Weighted determinized search over ``legal`` (all of them the seat's own actions)."""
    st0 = obs._state
    side = st0.side_of[obs.seat]
    fallback = basic_policy(st0, legal)
    score = Scorer(st0, side)
    score.cp_weight *= settings.cp_scale
    worlds = _Worlds(obs, trace, settings)
    deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
    n = len(legal)
    values: list[list[float]] = [[] for _ in range(n)]
    weights: list[float] = []
    alive = list(range(n))
    spent = 0
    count = 0
    solve = True  # until a solve gives up: the next worlds are as big, so it would again
    while (spent < budget.work or count < budget.min_worlds) and len(alive) > 1:
        world, w = worlds.next(rng)
        seed = rng.random()
        cands = [legal[i] for i in alive]
        vals, work, gave_up = _world_values(world, cands, score, side, settings, seed, solve)
        solve = solve and not gave_up
        for i, v in zip(alive, vals, strict=True):
            values[i].append(v)
        weights.append(w)
        spent += worlds.cost + work
        count += 1
        if prune and count >= PRUNE_AFTER and count % PRUNE_EVERY == 0:
            alive = _prune(alive, values, weights, settings.prune_z)
        if count == TIE_WORLDS and _all_tied(alive, values):
            break  # e.g. overtaking a partner's last trick or not: more worlds cannot tell
        if deadline is not None and time.perf_counter() > deadline:
            break
    means: list[float | None] = [None] * n
    for i in alive:
        means[i] = _mean(values[i][-len(weights) :], weights)
    best = _choose(alive, means, values, len(weights), legal.index(fallback), settings.keep_z)
    return SearchResult(legal, means, legal[best], count)


def _choose(
    alive: list[int],
    means: list[float | None],
    values: list[list[float]],
    k: int,
    fb: int,
    keep_z: float,
) -> int:
    """The candidate with the best mean over the last ``k`` worlds, unless it is not clearly
    better than the convention ``fb`` (by ``keep_z`` standard errors of the paired
    differences): then ``fb``."""
    best = max(alive, key=lambda i: (means[i], i == fb))
    if best != fb and fb in alive and keep_z > 0:
        d = [x - y for x, y in zip(values[best][-k:], values[fb][-k:], strict=True)]
        mean = sum(d) / k
        se = math.sqrt(sum((x - mean) ** 2 for x in d) / max(k - 1, 1) / k)
        if mean < keep_z * se:
            return fb  # not clearly better than the convention: keep to it
    return best


def _all_tied(alive: list[int], values: list[list[float]]) -> bool:
    """Every remaining candidate had the same value in every world so far."""
    first = values[alive[0]]
    return all(values[i] == first for i in alive[1:])


def _mean(vals: list[float], weights: list[float]) -> float:
    total = sum(weights)
    if total <= 0:
        return sum(vals) / max(len(vals), 1)
    return sum(v * w for v, w in zip(vals, weights, strict=True)) / total


def _prune(
    alive: list[int], values: list[list[float]], weights: list[float], z: float = PRUNE_Z
) -> list[int]:
    """Drop candidates clearly worse than the best (weighted paired differences more than
    ``PRUNE_Z`` standard errors below zero; the effective number of worlds counts)."""
    k = len(weights)
    total = sum(weights)
    if total <= 0:
        return alive
    ws = [w / total for w in weights]
    n_eff = 1.0 / sum(w * w for w in ws)
    if n_eff < 3:
        return alive
    means = {i: sum(v * w for v, w in zip(values[i][-k:], ws, strict=True)) for i in alive}
    best = max(alive, key=lambda i: means[i])
    vb = values[best][-k:]
    keep = []
    for i in alive:
        if i == best:
            keep.append(i)
            continue
        d = [x - y for x, y in zip(values[i][-k:], vb, strict=True)]
        mean = sum(x * w for x, w in zip(d, ws, strict=True))
        var = sum(w * (x - mean) ** 2 for x, w in zip(d, ws, strict=True)) * n_eff / (n_eff - 1)
        se = math.sqrt(var / n_eff)
        if mean < -z * se - 1e-9:
            continue
        keep.append(i)
    return keep


__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_SETTINGS",
    "SearchResult",
    "Settings",
    "expert_choice",
    "search",
]
