"""Taking tables and seats away: /cancel, /kick, and the chat changing under the bot."""

from __future__ import annotations

import logging
from html import escape

from ..i18n import Translator
from ..render.chat import kick_screen
from ..render.hand import removed_screen
from ..storage import Actor, LogEntry, LogKind, TableRecord, TableStatus
from . import deadlines, feed
from .change import Change
from .closing import close_table
from .commit import save_change
from .core import Core
from .people import remember
from .ports import ChatInfo, Person
from .reply import IsAdmin, Press, Reply
from .retry import retry_stale
from .seat_lookup import seat_of_user
from .seating import renumber
from .translators import chat_t, user_t, user_t_by_id

log = logging.getLogger(__name__)


@retry_stale
async def cancel_command(core: Core, chat: ChatInfo, person: Person, is_admin: IsAdmin) -> Reply:
    await remember(core, person)
    t = await chat_t(core, chat.chat_id)
    table = await core.storage.tables.active_for_chat(chat.chat_id, chat.thread_id)
    if table is None:
        return Reply(t._("There is no open table in this chat."))
    if table.status == TableStatus.PLAYING:
        refusal = await _may_cancel_match(t, table, person, is_admin)
        if refusal is not None:
            return refusal
    elif person.user_id != table.creator_id and not await is_admin():
        return Reply(t._("Only the player who opened the table or a chat admin can cancel it."))
    await close_table(core, table.id, reason=t._("The table was cancelled."))
    return Reply(t._("The table is cancelled."))


async def _may_cancel_match(
    t: Translator, table: TableRecord, person: Person, is_admin: IsAdmin
) -> Reply | None:
    """A cancelled match never reaches the ladder, so nobody with a seat in it may cancel it:
    their loss (or an opponent's win) would vanish. A chat admin who does not play may (a
    match that should not go on); the match's result then counts for nobody."""
    if any(seat.person_id == person.user_id for seat in table.seats):
        return Reply(t._("You play in this match, so you cannot cancel it: play it to the end."))
    if not await is_admin():
        return Reply(t._("Only a chat admin who does not play in it can cancel a running match."))
    return None


@retry_stale
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
        return Reply(screen=kick_screen(t, table.id, _seated(table)))
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
    target = _kick_target(press)
    if target is None:
        return Reply(ut._("This button is not valid."), alert=True)
    table = await core.storage.tables.get(cb.table)
    if table is None or table.chat_id != chat.chat_id or not table.is_active:
        return Reply(ut._("This table is no longer open."), alert=True)
    t = await chat_t(core, chat.chat_id)
    if seat_of_user(table, target) is None:
        return Reply(
            ut._("That player has no seat any more."),
            screen=kick_screen(t, table.id, _seated(table)),
        )
    if press.person.user_id != table.creator_id and not await press.is_admin():
        return Reply(
            ut._("Only the player who opened the table or a chat admin can remove players."),
            alert=True,
        )
    text = await _remove(core, table.id, target, t)
    fresh = await core.storage.tables.get(table.id)
    return Reply(text, screen=kick_screen(t, table.id, _seated(fresh)))


def _kick_target(press: Press) -> int | None:
    """The user id a /kick button names (None: not a button the menu draws)."""
    arg = press.cb.arg
    if press.chat.is_private or not arg.isascii() or not arg.isdigit() or len(arg) > 15:
        return None
    return int(arg)


def _seated(table: TableRecord | None) -> list[tuple[int, str]]:
    """The people at the table, for the /kick menu."""
    if table is None:
        return []
    return [(s.user_id, s.name) for s in table.seats if s.user_id is not None]


async def _remove(core: Core, table_id: int, user_id: int, t: Translator) -> str:
    """Free the person's seat (lobby) or give it to a computer player (match); what to say."""
    async with core.table_locks.hold(table_id):
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
                fresh,
                expected_version=fresh.version,
                log=[entry],
                owe=owe,
                timers=deadlines.timer_rows(core, fresh),
            )
            core.wake_sender()
            return t._("{name} was removed from the table.", name=name)
        # The seat stays theirs for the ladder (a loss cannot be escaped, a win cannot be taken
        # away) and for the one-seat rule until the match ends.
        record.left_user_id = user_id
        record.user_id = None
        record.ai_level = core.settings.default_ai_level
        record.away = False
        record.deadline = None
        record.replaced = True
        record.selection = []
        fresh.note = t._("{name} left the table; a computer player takes the seat.", name=name)
        # Their private messages close: the hand goes, a line says why.
        ut = await user_t_by_id(core, user_id)
        told = [
            *feed.delete(user_id, record.hand_message_id),
            feed.post(user_id, removed_screen(ut).text),
        ]
        record.hand_message_id = None
        match = core.matches.of(fresh)
        await save_change(core, fresh, match, Change(), log=[entry], extra=told)
    return t._("{name} was removed from the table.", name=name)


@retry_stale
async def chat_migrated(core: Core, old_chat_id: int, new_chat_id: int) -> None:
    """A group became a supergroup: its tables move with it. Their messages stay behind in the
    old group, so each lobby or table is posted anew in the new one (told once: a second call
    for the same migration finds nothing left to move)."""
    moving = await core.storage.tables.active_in_chat(old_chat_id)
    await core.storage.chats.migrate(old_chat_id, new_chat_id)
    for moved in moving:
        async with core.table_locks.hold(moved.id):
            table = await core.storage.tables.get(moved.id)
            if table is None or not table.is_active:
                continue
            # Message ids of the old group mean other messages in the new one: never edit those.
            table.lobby_message_id = None
            table.table_message_id = None
            if table.status == TableStatus.LOBBY:
                owe = [feed.lobby(table)]
            else:
                owe = [feed.group_table(core, table)]
            await core.storage.tables.save(table, expected_version=table.version, owe=owe)
    core.wake_sender()


@retry_stale
async def bot_removed(core: Core, chat_id: int, by: int | None = None) -> None:
    """The bot was removed from the group: its tables close, except a running match the one
    who removed it plays in (that would cancel their own match: it plays on in private
    chats, where the hands show the table, and counts as ever)."""
    tables = await core.storage.tables.active_in_chat(chat_id)
    if not tables:
        return
    kept = [
        table
        for table in tables
        if by is not None
        and table.status == TableStatus.PLAYING
        and any(seat.person_id == by for seat in table.seats)
    ]
    for table in kept:
        log.info("bot removed from %s by %s, who plays table %s: it goes on", chat_id, by, table.id)
    tables = [table for table in tables if table not in kept]
    t = await chat_t(core, chat_id)
    for table in tables:
        await close_table(core, table.id, reason=t._("The bot was removed from the chat."))


@retry_stale
async def topic_gone(core: Core, table_id: int) -> None:
    """The table's forum topic was deleted or closed: nobody sees the table any more, so it
    ends like a table whose chat is gone (players are free, hands say it is closed)."""
    table = await core.storage.tables.get(table_id)
    if table is None or not table.is_active:
        return
    t = await chat_t(core, table.chat_id)
    await close_table(core, table_id, reason=t._("The table's topic was closed or deleted."))


@retry_stale
async def topic_closed(core: Core, chat_id: int, thread_id: int) -> None:
    """An admin closed a forum topic: its table ends now rather than at its next message."""
    table = await core.storage.tables.active_for_chat(chat_id, thread_id)
    if table is not None:
        await topic_gone(core, table.id)
