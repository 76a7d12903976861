"""Taking tables and seats away: /cancel, /kick, and the chat changing under the bot."""

from __future__ import annotations

import time
from html import escape

from ..i18n import Translator
from ..render.chat import kick_screen
from ..render.hand import removed_screen
from ..storage import Actor, LogEntry, LogKind, TableStatus
from . import feed, turns
from .change import Change
from .commit import save_change
from .core import Core
from .lobby import renumber
from .people import chat_t, remember, seat_of_user, user_t, user_t_by_id
from .ports import ChatInfo, Person
from .reply import IsAdmin, Press, Reply


async def cancel_command(core: Core, chat: ChatInfo, person: Person, is_admin: IsAdmin) -> Reply:
    await remember(core, person)
    t = await chat_t(core, chat.chat_id)
    table = await core.storage.tables.active_for_chat(chat.chat_id, chat.thread_id)
    if table is None:
        return Reply(t._("There is no open table in this chat."))
    if person.user_id != table.creator_id and not await is_admin():
        return Reply(t._("Only the player who opened the table or a chat admin can cancel it."))
    await close_table(core, table.id, reason=t._("The table was cancelled."))
    return Reply(t._("The table is cancelled."))


async def close_table(core: Core, table_id: int, *, reason: str) -> None:
    """Cancel a lobby or a running match, stop its timers and tell the players."""
    async with core.table_lock(table_id):
        table = await core.storage.tables.get(table_id)
        if table is None or not table.is_active:
            return
        table.status = TableStatus.CANCELLED
        table.finished_at = time.time()
        for seat in table.seats:
            seat.deadline = None
        entry = LogEntry(LogKind.CANCEL, None, None, reason, by=Actor.SYSTEM)
        # The lobby, or the table and every hand, say so; the keyboards go.
        owe = feed.closed(core, table)
        await core.storage.tables.save(table, expected_version=table.version, log=[entry], owe=owe)
    core.wake_sender()
    turns.disarm(core, table_id)


async def kick(
    core: Core, chat: ChatInfo, person: Person, target: Person | None, is_admin: IsAdmin
) -> Reply:
    """``/kick``: as a reply to a player's message the creator or an admin removes them; on its
    own it shows a button for each person seated (someone who never wrote in the group, too).

    In the lobby the seat is freed; in a running match a computer player takes it over.
    """
    await remember(core, person)
    t = await chat_t(core, chat.chat_id)
    if chat.is_private:
        return Reply(t._("There is no open table in this chat."))
    table = await core.storage.tables.active_for_chat(chat.chat_id, chat.thread_id)
    if table is None:
        return Reply(t._("There is no open table in this chat."))
    if target is None:
        people = [(s.user_id, s.name) for s in table.seats if s.user_id is not None]
        return Reply(screen=kick_screen(t, table.id, people))
    if seat_of_user(table, target.user_id) is None:
        return Reply(t._("{name} has no seat at this table.", name=escape(target.first_name)))
    if person.user_id != table.creator_id and not await is_admin():
        return Reply(
            t._("Only the player who opened the table or a chat admin can remove players.")
        )
    return Reply(await _remove(core, table.id, target.user_id, t))


async def kick_press(core: Core, press: Press) -> Reply:
    """A button of the /kick menu: the argument names the person (their seat may move)."""
    cb, chat = press.cb, press.chat
    ut = user_t(await remember(core, press.person))
    if chat.is_private or not cb.arg.isascii() or not cb.arg.isdigit() or len(cb.arg) > 15:
        return Reply(ut._("This button is not valid."), alert=True)
    table = await core.storage.tables.get(cb.table)
    if table is None or table.chat_id != chat.chat_id or not table.is_active:
        return Reply(ut._("This table is no longer open."), alert=True)
    t = await chat_t(core, chat.chat_id)
    if seat_of_user(table, int(cb.arg)) is None:
        people = [(s.user_id, s.name) for s in table.seats if s.user_id is not None]
        return Reply(
            ut._("That player has no seat any more."), screen=kick_screen(t, table.id, people)
        )
    if press.person.user_id != table.creator_id and not await press.is_admin():
        return Reply(
            ut._("Only the player who opened the table or a chat admin can remove players."),
            alert=True,
        )
    text = await _remove(core, table.id, int(cb.arg), t)
    fresh = await core.storage.tables.get(table.id)
    people = [] if fresh is None else [(s.user_id, s.name) for s in fresh.seats if s.user_id]
    return Reply(text, screen=kick_screen(t, table.id, people))


async def _remove(core: Core, table_id: int, user_id: int, t: Translator) -> str:
    """Free the person's seat (lobby) or give it to a computer player (match); what to say."""
    async with core.table_lock(table_id):
        fresh = await core.storage.tables.get(table_id)
        if fresh is None or not fresh.is_active:
            return t._("There is no open table in this chat.")
        seat = seat_of_user(fresh, user_id)
        if seat is None:
            return t._("That player has no seat any more.")
        record = fresh.seats[seat]
        name = escape(record.name)
        entry = LogEntry(LogKind.KICK, None, seat, str(user_id), by=Actor.PERSON)
        if fresh.status == TableStatus.LOBBY:
            del fresh.seats[seat]
            renumber(fresh)
            owe = [feed.lobby(fresh)]
            await core.storage.tables.save(
                fresh, expected_version=fresh.version, log=[entry], owe=owe
            )
            core.wake_sender()
            return t._("{name} was removed from the table.", name=name)
        record.user_id = None
        record.ai_level = core.settings.default_ai_level
        record.away = False
        record.deadline = None
        record.replaced = True
        record.selection = []
        fresh.note = t._("{name} left the table; a computer player takes the seat.", name=name)
        # Their private messages close: the hand (and a turn notice) go, a line says why.
        ut = await user_t_by_id(core, user_id)
        told = [
            *feed.delete(user_id, record.hand_message_id),
            *feed.delete(user_id, record.notice_message_id),
            feed.post(user_id, removed_screen(ut).text),
        ]
        record.hand_message_id = record.notice_message_id = None
        match = core.match_of(fresh)
        await save_change(core, fresh, match, Change(), log=[entry], extra=told)
    return t._("{name} was removed from the table.", name=name)


async def chat_migrated(core: Core, old_chat_id: int, new_chat_id: int) -> None:
    """A group became a supergroup: the table moves with it."""
    await core.storage.chats.migrate(old_chat_id, new_chat_id)
    tables = await core.storage.tables.active_in_chat(new_chat_id)
    owed = [feed.group_table(core, t) for t in tables if t.status == TableStatus.PLAYING]
    if owed:
        await feed.owe(core, owed)


async def bot_removed(core: Core, chat_id: int) -> None:
    tables = await core.storage.tables.active_in_chat(chat_id)
    if not tables:
        return
    t = await chat_t(core, chat_id)
    for table in tables:
        await close_table(core, table.id, reason=t._("The bot was removed from the chat."))


async def topic_gone(core: Core, table_id: int) -> None:
    """The table's forum topic was deleted or closed: nobody sees the table any more, so it
    ends like a table whose chat is gone (players are free, hands say it is closed)."""
    table = await core.storage.tables.get(table_id)
    if table is None or not table.is_active:
        return
    t = await chat_t(core, table.chat_id)
    await close_table(core, table_id, reason=t._("The table's topic was closed or deleted."))


async def topic_closed(core: Core, chat_id: int, thread_id: int) -> None:
    """An admin closed a forum topic: its table ends now rather than at its next message."""
    table = await core.storage.tables.active_for_chat(chat_id, thread_id)
    if table is not None:
        await topic_gone(core, table.id)
