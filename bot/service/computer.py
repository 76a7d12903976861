"""Computer players at the table: the engine's players, seeded per move for reproducibility."""

from __future__ import annotations

import asyncio
import random

from kozel_rules.action import Action
from kozel_rules.ai import choose, interrupt
from kozel_rules.match import Match


async def choose_action(match: Match, seat: int, level: str, *, seed: int) -> Action:
    """The computer's action for ``seat``; it sees only that seat's view.

    A strong player searches for up to a few hundred milliseconds: that runs in a worker
    thread so the bot keeps answering presses at other tables meanwhile.
    """
    return await asyncio.to_thread(choose, match, seat, level=level, rng=random.Random(seed))


async def declare_special(match: Match, seat: int, level: str, *, seed: int) -> Action | None:
    """A special lead the computer at ``seat`` declares out of turn now, if it wants one."""
    return await asyncio.to_thread(interrupt, match, seat, level=level, rng=random.Random(seed))
