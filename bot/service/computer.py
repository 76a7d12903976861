"""Computer players at the table: the engine's players, seeded per move for reproducibility."""

from __future__ import annotations

import random

from kozel_rules.action import Action
from kozel_rules.match import Match


def choose_action(match: Match, seat: int, level: str, *, seed: int) -> Action:
    rng = random.Random(seed)
    try:
        from kozel_rules.ai import choose  # the engine's computer players (levels)
    except ImportError:
        return rng.choice(match.legal_actions(seat))
    return choose(match, seat, level=level, rng=rng)
