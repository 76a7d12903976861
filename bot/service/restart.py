"""After a (re)start: every unfinished match waits again for its next move; what was owed to
Telegram before the stop is still in the outbox, for the sender."""

from __future__ import annotations

from ..storage import TableStatus
from . import turns
from .core import Core


async def resume_all(core: Core) -> int:
    tables = await core.storage.tables.active()
    for table in tables:
        if table.status == TableStatus.PLAYING:
            turns.arm(core, table, core.match_of(table))
    core.wake_sender()
    return len(tables)
