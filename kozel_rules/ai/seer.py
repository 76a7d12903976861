"""Measuring sticks that cheat: how far could better guessing of the hidden cards take a
search? Never a level (not in ``LEVELS``; the bot cannot pick them); only the arena plays
them (``--a seer`` / ``--a seer-hands``).

Both read the **true** state of the match, and judge each legal action by the same
evaluator as ``strong`` (a ``basic`` playout to the deal's end, scored by the
:class:`~.search.Scorer`):

* ``seer`` sees every hand and the stock's order: one playout per action in the true deal
  (``basic`` is deterministic, so one is exact for that evaluator);
* ``seer-hands`` sees every hand but not the stock's order (nobody could know it): the
  playouts run in ``SHUFFLES`` orders of the stock (the shown trump card stays where it is).

``expert`` infers the hands from the deal's history, so ``seer-hands`` is the most any
inference could give it with this evaluator (kozel_rules/README.md, "Computer players").
"""

from __future__ import annotations

import random

from ..match import Match
from ..state import CAction, GameState
from .basic import basic_policy
from .search import Scorer, playout_value

SEERS: tuple[str, ...] = ("seer", "seer-hands")
SHUFFLES = 8


def seer_choice(match: Match, seat: int, kind: str, rng: random.Random) -> CAction:
    """The compact action of ``seat`` (the seat to move) for seer ``kind``."""
    if kind not in SEERS:
        raise ValueError(f"not a seer: {kind!r}")
    st = match.state_copy()
    legal = [a for a in st.legal() if a[0] == seat]
    if len(legal) <= 1:
        if not legal:
            raise ValueError(f"seat {seat} has no legal action")
        return legal[0]
    score = Scorer(st, st.side_of[seat])
    worlds = [st] if kind == "seer" else [_reshuffled(st, rng) for _ in range(SHUFFLES)]
    values = [0.0] * len(legal)
    for world in worlds:
        for i, a in enumerate(legal):
            values[i] += playout_value(world, a, score, random.Random(0))
    fallback = basic_policy(st, legal)
    best = max(range(len(legal)), key=lambda i: (values[i], legal[i] == fallback))
    return legal[best]


def _reshuffled(st: GameState, rng: random.Random) -> GameState:
    """A copy of ``st`` with the stock in a random order (a shown trump card stays put)."""
    world = st.copy()
    at = world.trump_stock_index
    stock = world.stock
    rest = sorted(c for i, c in enumerate(stock) if i != at)  # the order it was in is unknown
    rng.shuffle(rest)
    if 0 <= at < len(stock):
        rest.insert(at, stock[at])
    world.stock = rest
    return world


__all__ = ["SEERS", "SHUFFLES", "seer_choice"]
