"""Throughput of the engine on one core: random legal play through whole deals.

Used by ``python -m kozel_rules bench``; no I/O here (the caller prints).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from .match import Match
from .state import GameState

# (variant, players) measured by default
CASES: tuple[tuple[str, int], ...] = (
    ("ziege", 4),
    ("street", 4),
    ("moscow", 2),
    ("moscow", 3),
    ("moscow", 4),
)

_POOL = 64  # distinct dealt positions the playouts start from


@dataclass(frozen=True)
class BenchResult:
    variant: str
    players: int
    deals: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.deals / self.seconds if self.seconds > 0 else 0.0


def bench_playouts(variant: str, players: int, seconds: float, seed: int = 0) -> BenchResult:
    """Deals per second of :meth:`GameState.playout`: uniform random legal actions
    (``random.Random(seed)``) from a freshly dealt deal to its scoring, a copy of one of
    64 dealt positions each time (the copy is counted, the shuffle and the deal are not)."""
    pool = [
        GameState.new(variant, players, seed=f"{seed}/{i}", dealer=i % players)
        for i in range(_POOL)
    ]
    rng = random.Random(seed)
    deals = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for st in pool:
            st.copy().playout(rng)
        deals += _POOL
        now = time.perf_counter()
        if now >= deadline:
            return BenchResult(variant, players, deals, now - start)


def bench_match(variant: str, players: int, seconds: float, seed: int = 0) -> BenchResult:
    """Deals per second through the checked API: ``Match.legal_actions()`` and
    ``Match.apply()`` with uniform random choices, whole matches (dealing included)."""
    rng = random.Random(seed)
    deals = 0
    start = time.perf_counter()
    deadline = start + seconds
    game = 0
    while True:
        m = Match.new(variant, players=players, seed=f"{seed}/{game}")
        game += 1
        while not m.is_over:
            acts = m.legal_actions()
            m.apply(acts[int(rng.random() * len(acts))])
            if m.ply % 64 == 0 and time.perf_counter() >= deadline:
                break
        deals += len(m.deal_results)  # deals completed
        now = time.perf_counter()
        if now >= deadline:
            return BenchResult(variant, players, deals, now - start)
