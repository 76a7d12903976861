"""A player who blocked the bot (their private chat cannot be reached): a computer plays for
them until they come back ("I'm back" or /start in private), and the table says so."""

from __future__ import annotations

from html import escape

from ..storage import Actor, LogEntry, LogKind, TableStatus
from . import deadlines, feed
from .core import Core
from .retry import retry_stale
from .translators import chat_t


@retry_stale
async def player_unreachable(core: Core, table_id: int, seat: int) -> None:
    """A player blocked the bot: a computer plays for them, and the table says so."""
    async with core.table_locks.hold(table_id):
        table = await core.storage.tables.get(table_id)
        if table is None or table.status != TableStatus.PLAYING:
            return
        record = table.seats[seat]
        if record.user_id is not None:
            await core.storage.users.set_can_message(record.user_id, False)
        if record.away:
            return
        record.away = True
        match = core.matches.of(table)
        t = await chat_t(core, table.chat_id)
        table.note = t._(
            "📵 I cannot reach {name} in private — a computer plays for them. "
            "Open a chat with me and press “I'm back”.",
            name=escape(record.name),
        )
        await deadlines.plan_deadlines(core, table, match)
        entry = LogEntry(LogKind.UNREACHABLE, match.ply, seat, "blocked", by=Actor.SYSTEM)
        timers = deadlines.timer_rows(core, table, match)
        await core.storage.tables.save(
            table,
            expected_version=table.version,
            log=[entry],
            owe=[feed.group_table(core, table)],
            timers=timers,
        )
    deadlines.wake(core, timers)
