"""After a (re)start: every unfinished match waits again for its next move, every open table for
its expiry; what was owed to Telegram before the stop is still in the outbox, for the sender.

Only a worker that starts alone does this: while other workers run, the stored timers are
theirs to run, and resetting everybody's turn would give time the players did not lose (only
a table with no stored timer at all, from before they were stored, is given its timers).
"""

from __future__ import annotations

from ..storage import TableStatus
from . import cup, deadlines
from .core import Core


async def resume_all(core: Core, *, alone: bool = True) -> int:
    tables = await core.storage.tables.active()
    if alone:
        # Claims of a process that died (nobody else runs): no need to wait for them to end.
        await core.storage.timers.release(None)
    else:
        # Only what has no timer at all (a database from before timers were stored).
        timed = await core.storage.timers.tables()
        tables = [table for table in tables if table.id not in timed]
    for table in tables:
        match = core.matches.of(table) if table.status == TableStatus.PLAYING else None
        if match is not None and any(seat.deadline is not None for seat in table.seats):
            # The downtime was the bot's, not the player's: their turn starts afresh.
            await deadlines.plan_deadlines(core, table, match)
            timers = deadlines.timer_rows(core, table, match, restart=True)
            await core.storage.tables.save(table, expected_version=table.version, timers=timers)
        else:
            # Stored again: a database from before the timers were stored has none.
            timers = deadlines.timer_rows(core, table, match, restart=True)
            await core.storage.timers.put(table.id, timers)
        deadlines.wake(core, timers)
    await cup.resume(core)  # a cup whose match ended just before the stop
    core.wake_sender()
    return len(tables)
