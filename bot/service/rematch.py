"""🔁 Rematch: a player of a finished table opens the next one in one tap, in the same chat
(topic), with the same people and computers in their seats, by the same rules.

Two presses make one lobby: a rematch opens only while the finished table is the newest of
its chat (topic), and the database keeps one open table per chat (topic) across workers."""

from __future__ import annotations

import random

from ..i18n import Translator
from ..render.house_rules import options_later_text
from ..render.next_table import rematch_buttons, rematch_line
from ..storage import (
    ActiveTableExistsError,
    Owed,
    Priority,
    SeatedElsewhereError,
    SeatRecord,
    TableRecord,
    TableStatus,
)
from . import deadlines, feed, house_rules
from .core import Core
from .nextgame import announce
from .people import chat_title, remember
from .post_buttons import encode
from .reply import Press, Reply
from .retry import retry_stale
from .translators import user_t

TRIES = 3  # seatings tried when people sit down elsewhere meanwhile


def copy_rules(finished: TableRecord, table: TableRecord) -> None:
    """The rules a table was played by, as its lobby stored them, for its rematch: the
    variant and its house rules."""
    table.variant = finished.variant
    table.options = dict(finished.options)


@retry_stale
async def again(core: Core, press: Press) -> Reply:
    user = await remember(core, press.person)
    t = user_t(user)
    finished = await core.storage.tables.get(press.cb.table)
    if finished is None or finished.chat_id != press.chat.chat_id:
        return Reply(t._("This button does not belong to this chat."), alert=True)
    if finished.status != TableStatus.FINISHED:
        return Reply(t._("This button is not valid."), alert=True)
    if press.person.user_id not in {s.user_id or s.left_user_id for s in finished.seats}:
        return Reply(t._("Only the players of that table can ask for a rematch."), alert=True)
    if finished.options and not await house_rules.options_allowed_now(core):
        return Reply(options_later_text(t), alert=True)
    chat_id, thread_id = finished.chat_id, finished.thread_id
    async with core.chat_locks.hold(chat_id):
        if await core.storage.tables.newest_id(chat_id, thread_id) != finished.id:
            return await _newer(core, t, finished)
        table = TableRecord(
            id=0,
            chat_id=chat_id,
            thread_id=thread_id,
            status=TableStatus.LOBBY,
            variant=finished.variant,
            creator_id=press.person.user_id,
            seed=random.SystemRandom().randrange(2**31),
        )
        copy_rules(finished, table)
        timers = deadlines.timer_rows(core, table)
        for attempt in range(TRIES):
            table.seats = await _seats(core, finished)
            lines = await _lines(core, table, press.person.first_name)
            owe = [feed.lobby(table, renew=True), *lines]
            try:
                await core.storage.tables.create(table, owe=owe, timers=timers)
                break
            except SeatedElsewhereError:  # someone sat down elsewhere a moment ago
                if attempt == TRIES - 1:
                    return Reply(t._("This button is out of date — press it again."))
            except ActiveTableExistsError:  # another worker opened a table here first
                return await _newer(core, t, finished)
    core.wake_sender()
    deadlines.wake(core, timers)
    await announce(core, table)
    return Reply(t._("Rematch! The new table is open in the group."))


async def _newer(core: Core, t: Translator, finished: TableRecord) -> Reply:
    """A table opened in the chat (topic) after this one: no second rematch."""
    if await core.storage.tables.active_for_chat(finished.chat_id, finished.thread_id):
        return Reply(t._("A new table is already open in this chat (see above)."))
    return Reply(
        t._("Another table has been opened here since: send /newgame for a new one."),
        alert=True,
    )


async def _seats(core: Core, finished: TableRecord) -> list[SeatRecord]:
    """The finished table's seats, in order: its people (those I can write to who sit at no
    other table now) and its computers. A person removed mid-match is not seated again."""
    seats: list[SeatRecord] = []
    for old in finished.seats:
        if old.user_id is None and old.left_user_id is None and old.ai_level is not None:
            seats.append(SeatRecord(len(seats), None, old.name, ai_level=old.ai_level))
            continue
        if old.user_id is None:
            continue
        user = await core.storage.users.get(old.user_id)
        if user is None or not user.can_message:
            continue  # the Join button of the lobby is theirs, as anybody's
        if await core.storage.tables.active_for_user(old.user_id) is not None:
            continue
        seats.append(SeatRecord(len(seats), old.user_id, old.name))
    return seats


async def _lines(core: Core, table: TableRecord, creator: str) -> list[Owed]:
    """One private line to each person seated: their seat is kept, and how to give it up."""
    title = await chat_title(core, table.chat_id)
    lines = []
    for seat in table.seats:
        if seat.user_id is None:
            continue
        user = await core.storage.users.get(seat.user_id)
        t = user_t(user)
        chat = user.private_chat_id if user and user.private_chat_id else seat.user_id
        lines.append(
            feed.post(
                chat,
                rematch_line(t, title, creator),
                buttons=encode(rematch_buttons(t)),
                priority=Priority.PRESSER,  # people wait to see their seat, as at a lobby
            )
        )
    return lines
