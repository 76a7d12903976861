"""A look back at one seat's play in a deal: :func:`review_deal` (the coach's engine).

Given a match record (``Match.to_json()``, its actions up to the end of the deal to review,
or further) and a seat, the match is replayed and each decision of that seat in the deal
(every action it took when it had a choice) is judged **from the seat's information set
at that moment** -- the observation and the deal's trace as it saw them then, exactly what
the ``expert`` player would get:

1. the ``expert`` search (:func:`~.expert.search`) finds the action it would have taken;
2. if that differs from the action played, both are played out in the same fresh worlds
   (drawn from the seat's inference, so nothing hidden is read), giving for each the
   side's expected card points at the deal's end and its chance to win the deal, and the
   paired difference of their match values with its standard error;
3. a difference counts as a mistake when it is clear (more than :data:`Z` standard errors)
   and large enough to matter (at least :data:`MIN_POINTS` card points or
   :data:`MIN_WIN` of the deal's win chance); the biggest (by match value) come first.

Everything returned is the seat's own actions and numbers about its own side: nothing of
another seat's cards beyond what the seat saw. The result is plain data for the bot to put
into words. Deterministic for a given ``seed``.

**Time.** Each decision costs one ``expert`` search (``search`` work) plus a head-to-head of
``worlds`` worlds; at the defaults about 0.1-0.3 s of one core per decision, a deal has at
most about 10 decisions of a seat (street/moscow 4 players, ziege 8), so a review takes
about 1-3 s of one core. ``max_decisions`` caps it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..action import Action
from ..match import Match
from ..result import DealResult
from ..state import OVER, CAction, GameState, from_action, to_action
from .basic import basic_policy
from .expert import DEFAULT_SETTINGS, _Worlds, search
from .observation import Observation
from .search import Budget, Scorer
from .trace import deal_trace

Z = 2.0  # standard errors a loss must exceed to count
MIN_POINTS = 4.0  # ... and at least this many expected card points
MIN_WIN = 0.04  # ... or this much of the chance to win the deal
MAX_MISTAKES = 2


@dataclass(frozen=True)
class Outlook:
    """What an action leads to for the seat's side, on average over the worlds."""

    card_points: float  # the side's expected card points at the deal's end
    win_chance: float  # the chance the side wins the deal (no defeat points, others some)


@dataclass(frozen=True)
class Mistake:
    """One decision the expert would have taken otherwise."""

    ply: int  # the action's index in ``Match.history``
    trick: int  # the trick of the deal it was played in (1-based)
    played: Action  # what the seat played
    better: Action  # what the expert would have played
    played_outlook: Outlook
    better_outlook: Outlook
    value_loss: float  # the loss in match value (win chance of the match, plus a point term)

    @property
    def points_lost(self) -> float:
        """Expected card points the side gave away (``better`` minus ``played``)."""
        return self.better_outlook.card_points - self.played_outlook.card_points

    @property
    def win_chance_lost(self) -> float:
        """How much of the chance to win the deal the play cost (0..1)."""
        return self.better_outlook.win_chance - self.played_outlook.win_chance


@dataclass(frozen=True)
class DealReview:
    """The coach's look at ``seat``'s play in deal ``deal``."""

    seat: int
    deal: int
    decisions: int  # decisions with a choice that were judged
    mistakes: tuple[Mistake, ...]  # the biggest first (at most two); empty: none clear
    plays: tuple[Action, ...] = ()  # every action of the seat in the deal, in order
    play_tricks: tuple[int, ...] = ()  # the trick of the deal each of ``plays`` was in
    team: bool = False  # the seat has partners (its side's card points are theirs too)


@dataclass(frozen=True)
class CoachBudget:
    """How hard the coach looks: the ``expert`` search's budget per decision, the worlds of
    each head-to-head, and the most decisions judged in one deal."""

    search: Budget = field(default_factory=lambda: Budget(work=20000))
    worlds: int = 48
    max_decisions: int = 12


DEFAULT_COACH_BUDGET = CoachBudget()


def review_deal(
    record: Mapping[str, Any] | Match,
    seat: int,
    *,
    deal: int | None = None,
    seed: int | str = 0,
    budget: CoachBudget = DEFAULT_COACH_BUDGET,
) -> DealReview:
    """Judge ``seat``'s decisions in deal ``deal`` (default: the last deal the record reaches)
    of the match ``record`` (see the module docstring). Raises ``RecordError`` for a bad
    record and ``ValueError`` for a seat or deal it does not have."""
    data = record.to_json() if isinstance(record, Match) else dict(record)
    final = Match.from_json(data)  # checks the record
    if not 0 <= seat < final.players:
        raise ValueError(f"no seat {seat}")
    target = deal if deal is not None else final.deal_number
    if final.deal_number < target or target < 1:
        raise ValueError(f"the record does not reach deal {target}")
    m = Match.new(
        data["variant"],
        players=data["players"],
        seed=data["seed"],
        dealer=data["dealer"],
        decks=data["decks"],
    )
    decisions = 0
    found: list[Mistake] = []
    plays: list[Action] = []
    play_tricks: list[int] = []
    for ply, text in enumerate(data["actions"]):
        if m.deal_number > target:
            break
        action = Action.parse(text)
        if m.deal_number == target and action.seat == seat:
            plays.append(action)
            play_tricks.append(trick_of(m))
        if (
            m.deal_number == target
            and action.seat == seat
            and m.to_move == seat
            and decisions < budget.max_decisions
            and len(m.legal_actions(seat)) > 1
        ):
            decisions += 1
            got = _judge(m, seat, action, random.Random(f"{seed}/{ply}"), budget)
            if got is not None:
                found.append(_mistake(ply, trick_of(m), action, got))
        m.apply(action)
    found.sort(key=lambda x: -x.value_loss)
    mistakes = tuple(found[:MAX_MISTAKES])
    team = len(final.seats_of(final.side_of(seat))) > 1
    return DealReview(
        seat, target, decisions, mistakes, tuple(plays), tuple(play_tricks), team=team
    )


def trick_of(m: Match) -> int:
    """The trick (1-based, counted within the current deal) the next action is played in.

    Asked of the match as it stands, never carried over from action to action: a count kept
    across the deal's end went on from the previous deal's tricks (deal 2's first trick came
    out as "trick -8")."""
    return len(m.view(None).trick_takers) + 1


@dataclass(frozen=True)
class _Judgement:
    better: CAction
    played: Outlook
    best: Outlook
    loss: float


def _mistake(ply: int, trick: int, action: Action, j: _Judgement) -> Mistake:
    return Mistake(ply, trick, action, to_action(j.better), j.played, j.best, j.loss)


def _judge(
    m: Match, seat: int, action: Action, rng: random.Random, budget: CoachBudget
) -> _Judgement | None:
    """The expert's view of ``seat``'s ``action`` now: ``None`` unless clearly worse."""
    obs = Observation.of(m, seat)
    trace = deal_trace(m, seat)
    legal = obs.legal()
    played = from_action(action)
    best = search(obs, trace, legal, rng, budget.search, DEFAULT_SETTINGS).best
    if best == played:
        return None
    st0 = obs._state
    side = st0.side_of[seat]
    score = Scorer(st0, side)
    worlds = _Worlds(obs, trace, DEFAULT_SETTINGS)
    diffs: list[float] = []
    sums = {played: [0.0, 0.0], best: [0.0, 0.0]}
    for _ in range(budget.worlds):
        world, _w = worlds.next(rng)
        seed = rng.random()
        vals = {}
        for a in (played, best):
            result = _play_out(world, a, seed)
            vals[a] = score(result)
            sums[a][0] += result.card_points[side]
            sums[a][1] += _won(result, side, st0.sides_in)
        diffs.append(vals[best] - vals[played])
    n = len(diffs)
    mean = sum(diffs) / n
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(n - 1, 1) / n)
    out_played = Outlook(sums[played][0] / n, sums[played][1] / n)
    out_best = Outlook(sums[best][0] / n, sums[best][1] / n)
    if mean <= Z * se:
        return None
    if (
        out_best.card_points - out_played.card_points < MIN_POINTS
        and out_best.win_chance - out_played.win_chance < MIN_WIN
    ):
        return None
    return _Judgement(best, out_played, out_best, mean)


def _play_out(world: GameState, action: CAction, seed: float) -> DealResult:
    st = world.copy()
    st.hold = True
    number = st.deal_number
    st.step(action)
    if st.phase < OVER:
        st.playout(random.Random(seed), lambda s, legal: basic_policy(s, legal))
    return st.deal_results[number - 1]


def _won(result: DealResult, side: int, sides_in: tuple[int, ...]) -> float:
    """1 if ``side`` won the deal: it got no defeat points and another side got some."""
    award = result.defeat_points
    if award[side]:
        return 0.0
    return 1.0 if any(award[x] for x in sides_in if x != side) else 0.0


__all__ = [
    "DEFAULT_COACH_BUDGET",
    "CoachBudget",
    "DealReview",
    "Mistake",
    "Outlook",
    "review_deal",
    "trick_of",
]
