"""Tables nobody can use are closed, so that they never block a chat or its players: a lobby
the group never saw (the bot may not write there), a lobby nobody starts, a match nobody plays.

Expiry counts from the table's last change (``updated_at``); its timer is stored with every
change of the table (``deadlines.timer_rows``) and again at a restart; when it comes early (the
table changed since without storing it anew) it waits again for what is left.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from html import escape

from ..storage import Actor, LogEntry, LogKind, Owed, TableStatus
from . import deadlines, feed
from .core import Core
from .people import chat_title
from .ports import Due
from .retry import retry_stale
from .translators import chat_t, user_t_by_id

log = logging.getLogger(__name__)


async def close_table(
    core: Core,
    table_id: int,
    *,
    reason: str,
    tell: Sequence[Owed] = (),
    version: int | None = None,
) -> bool:
    """Cancel a lobby or a running match, stop its timers and tell the players (and ``tell``
    what else is owed); False if it was closed already (or is no longer at ``version``)."""
    async with core.table_locks.hold(table_id):
        table = await core.storage.tables.get(table_id)
        if table is None or not table.is_active:
            return False
        if version is not None and table.version != version:
            return False
        table.status = TableStatus.CANCELLED
        table.finished_at = time.time()
        for seat in table.seats:
            seat.deadline = None
        entry = LogEntry(LogKind.CANCEL, None, None, reason, by=Actor.SYSTEM)
        # The lobby, or the table and every hand, say so; the keyboards go.
        owe = [*feed.closed(core, table), *tell]
        await core.storage.tables.save(
            table, expected_version=table.version, log=[entry], owe=owe, timers=[]
        )
    core.table_changed(table_id)  # its timers went with the save
    return True


@retry_stale
async def expire(core: Core, due: Due) -> None:
    table = await core.storage.tables.get(due.table_id)
    if table is None or not table.is_active:
        return
    if table.updated_at + deadlines.expiry_period(core, table) > time.time():
        # It changed since: wait for the rest.
        timers = [deadlines.expiry_timer(core, table)]
        await core.storage.timers.put(table.id, timers)
        deadlines.wake(core, timers)
        return
    t = await chat_t(core, table.chat_id)
    if table.status == TableStatus.LOBBY:
        reason = "lobby expired"
        text = t._(
            "⌛ Nobody started the table for a long time, so I closed it. "
            "Send /newgame to open a new one."
        )
    else:
        reason = "match abandoned"
        text = t._(
            "⌛ Nobody moved for a long time, so the match is abandoned. "
            "It does not count for the ladder. Send /newgame to play again."
        )
    tell = [feed.post(table.chat_id, text, table_id=table.id)]
    if await close_table(core, table.id, reason=reason, tell=tell, version=table.version):
        log.info("table %s in %s closed: %s", table.id, table.chat_id, reason)


@retry_stale
async def lobby_unshowable(core: Core, table_id: int) -> None:
    """The group cannot be shown its new table (no right to write there, the chat is gone):
    close it, so that /newgame works again, and tell the people at it in private."""
    table = await core.storage.tables.get(table_id)
    if table is None or table.status != TableStatus.LOBBY:
        return
    title = escape(await chat_title(core, table.chat_id))
    people = {table.creator_id, *(s.user_id for s in table.seats if s.user_id is not None)}
    tell = []
    for user_id in sorted(people):
        user = await core.storage.users.get(user_id)
        if user is None or not user.can_message:
            continue
        t = await user_t_by_id(core, user_id)
        text = t._(
            "I could not show the new table in {chat}: I may not write there. "
            "Give me the right to send messages there and send /newgame again.",
            chat=title,
        )
        tell.append(feed.post(user.private_chat_id or user_id, text))
    closed = await close_table(
        core, table_id, reason="lobby cannot be shown", tell=tell, version=table.version
    )
    if closed:
        log.info("table %s: its lobby cannot be shown in %s; closed", table_id, table.chat_id)
