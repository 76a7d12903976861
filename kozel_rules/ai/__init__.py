"""Computer players for every variant, seeing only their seat's information.

```python
from kozel_rules.ai import LEVELS, choose, interrupt

action = choose(match, seat, level="strong", rng=random.Random(7))   # the seat to move
special = interrupt(match, seat, level="basic", rng=rng)             # out of turn: or None
```

* :func:`choose` builds the seat's :class:`Observation` (its view, what it has seen, and a
  concealed playable state in which every card it cannot place is in a canonical place) and
  asks the level's player; nothing else of the match is looked at.
* Levels (:data:`LEVELS`): ``random`` (a uniform legal action), ``basic`` (a hand-written
  strategy, :mod:`.basic`), ``strong`` (determinized Monte Carlo search with basic-policy
  playouts, :mod:`.search`; its effort per move is a :class:`Budget`), ``expert`` (the same
  search over worlds inferred from the deal's history, exact at the deal's end,
  :mod:`.expert`).
* Every choice is deterministic given the ``rng``.
"""

from __future__ import annotations

import random

from ..action import Action
from ..match import Match
from ..state import CAction, to_action
from .basic import basic_policy, wants_special
from .expert import DEFAULT_BUDGET as EXPERT_BUDGET
from .expert import expert_choice
from .observation import Observation, observe
from .search import DEFAULT_BUDGET, Budget, strong_choice
from .trace import DealTrace, deal_trace

LEVELS: tuple[str, ...] = ("random", "basic", "strong", "expert")
"""Every level, from the weakest up."""
OFFERED_LEVELS: tuple[str, ...] = ("random", "basic", "strong")
"""The levels a table offers, weakest first: in the arena each beats the one before it
measurably (the 95% interval's lower end above 50%; kozel_rules/README.md, "Levels that
differ"). ``expert`` is not measurably stronger than ``strong``, so one top level is offered,
the cheaper one; ``expert`` stays the stand-in and the coach's judge, and a level (tables
that hold one still play)."""
STAND_IN_LEVEL = "expert"
"""The level that plays for a person who ran out of time or is away: the one that reads the
deal's history (in the arena about even with ``strong``: kozel_rules/README.md)."""


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r} (known: {', '.join(LEVELS)})")


def choose_from(
    obs: Observation,
    *,
    level: str,
    rng: random.Random,
    budget: Budget | None = None,
    trace: DealTrace | None = None,
) -> CAction:
    """The level's choice (a compact action) among the observing seat's legal actions.
    ``trace``: the deal as the seat saw it (:func:`deal_trace`), for ``expert``'s inference
    (without it, ``expert`` samples the hidden cards uniformly)."""
    _check_level(level)
    legal = obs.legal()
    if not legal:
        raise ValueError(f"seat {obs.seat} has no legal action")
    if level == "random":
        return legal[int(rng.random() * len(legal))]
    if level == "basic":
        return basic_policy(obs._state, legal)
    if level == "expert":
        return expert_choice(obs, trace, rng, budget or EXPERT_BUDGET)
    return strong_choice(obs, rng, budget or DEFAULT_BUDGET)


def choose(
    match: Match,
    seat: int,
    *,
    level: str,
    rng: random.Random,
    budget: Budget | None = None,
) -> Action:
    """The action ``seat`` takes now at ``level`` (``seat`` is normally the seat to move; a
    seat that may only declare a special lead out of turn gets that special). Raises
    ``ValueError`` for an unknown level or a seat with no legal action."""
    _check_level(level)
    obs = Observation.of(match, seat)
    trace = None
    if level == "expert" and len(obs.legal()) > 1:
        trace = deal_trace(match, seat)
    return to_action(choose_from(obs, level=level, rng=rng, budget=budget, trace=trace))


def interrupt(
    match: Match,
    seat: int,
    *,
    level: str,
    rng: random.Random,
) -> Action | None:
    """A special lead ``seat`` declares out of turn now, or ``None`` to let play go on.

    ``random`` declares each legal special with the same chance as not declaring; ``basic``,
    ``strong`` and ``expert`` declare at once (a molodka or Moscow takes the trick and everybody's
    hand nearly always)."""
    _check_level(level)
    if match.to_move == seat:
        return None
    obs = Observation.of(match, seat)
    specials = obs.legal()
    if not specials:
        return None
    if level == "random":
        i = int(rng.random() * (len(specials) + 1))
        return to_action(specials[i]) if i < len(specials) else None
    for a in specials:
        if wants_special(obs._state, a):
            return to_action(a)
    return None


__all__ = [
    "DEFAULT_BUDGET",
    "EXPERT_BUDGET",
    "LEVELS",
    "OFFERED_LEVELS",
    "STAND_IN_LEVEL",
    "Budget",
    "DealTrace",
    "Observation",
    "choose",
    "choose_from",
    "deal_trace",
    "interrupt",
    "observe",
]
