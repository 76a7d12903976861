"""After a (re)start: every unfinished table is shown again and waits again for its next move."""

from __future__ import annotations

from ..storage import TableStatus
from . import feed, turns
from .core import Core


async def resume_all(core: Core) -> int:
    tables = await core.storage.tables.active()
    for table in tables:
        if table.status == TableStatus.LOBBY:
            feed.refresh_lobby(core, table.id)
            continue
        feed.publish(core, table)
        turns.arm(core, table, core.match_of(table))
    return len(tables)
