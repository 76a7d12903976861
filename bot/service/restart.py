"""After a (re)start: every unfinished match waits again for its next move, every open table for
its expiry; what was owed to Telegram before the stop is still in the outbox, for the sender."""

from __future__ import annotations

from ..storage import TableStatus
from . import turns
from .core import Core


async def resume_all(core: Core) -> int:
    tables = await core.storage.tables.active()
    for table in tables:
        if table.status == TableStatus.PLAYING:
            match = core.match_of(table)
            if any(seat.deadline is not None for seat in table.seats):
                # The downtime was the bot's, not the player's: their turn starts afresh.
                await turns.plan_deadlines(core, table, match)
                await core.storage.tables.save(table, expected_version=table.version)
            turns.arm(core, table, match)
        turns.arm_expiry(core, table, restart=True)
    core.wake_sender()
    return len(tables)
