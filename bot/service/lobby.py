"""Lobby use cases: open a table, join, leave, computer players, variant, start, cancel."""

from __future__ import annotations

import contextlib
import logging
import random
import time
import zlib
from collections.abc import Awaitable, Callable
from html import escape

from kozel_rules.match import Match

from ..callback import Callback
from ..i18n import Translator
from ..render import (
    AI_LEVELS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    VARIANTS,
    lobby_closed_text,
    lobby_screen,
)
from ..rules_text import variant_name
from ..screen import Button, Screen
from ..storage import LogEntry, SeatRecord, StaleVersionError, TableRecord, UserRecord
from . import play
from .core import Core, seat_infos, seat_of_user
from .ports import ChatInfo, MessageGone, Person, Reply, Unreachable

log = logging.getLogger(__name__)

IsAdmin = Callable[[], Awaitable[bool]]


def join_link(core: Core, table_id: int) -> str:
    return f"https://t.me/{core.settings.bot_username}?start=j{table_id}"


def seating_key(table: TableRecord) -> str:
    """A short fingerprint of who sits where: Start must start the seating the creator saw."""
    seating = "|".join(f"{s.user_id}:{s.ai_level}" for s in table.seats) + table.variant
    return format(zlib.crc32(seating.encode()), "x")


def render_lobby(core: Core, t: Translator, table: TableRecord) -> Screen:
    creator = next((s.name for s in table.seats if s.user_id == table.creator_id), None)
    screen = lobby_screen(
        t,
        table_id=table.id,
        version=table.version,
        variant=table.variant,
        seats=seat_infos(table),
        creator=creator or "—",
        start_key=seating_key(table),
    )
    link_row = (
        Button("💬 " + t._("Open my chat to get your cards"), url=join_link(core, table.id)),
    )
    return Screen(screen.text, (*screen.buttons, link_row))


async def refresh_lobby(core: Core, table_id: int) -> None:
    async def refresh() -> None:
        table = await core.storage.get_table(table_id)
        if table is None or table.lobby_message_id is None:
            return
        t = await core.chat_t(table.chat_id)
        if table.status == "lobby":
            screen = render_lobby(core, t, table)
        else:
            screen = Screen(lobby_closed_text(t, cancelled=table.status == "cancelled"))
        try:
            await core.messenger.edit(table.chat_id, table.lobby_message_id, screen)
        except (MessageGone, Unreachable):
            log.info("lobby message of table %s is gone", table_id)

    core.live_tables.mark(("lobby", table_id), refresh)


async def new_game(core: Core, chat: ChatInfo, person: Person, variant: str | None) -> Reply:
    user = await core.remember(person)
    if chat.is_private:
        return Reply(
            core.user_t(user)._("Add me to a group and send /newgame there to open a table.")
        )
    chat_record = await core.chat_record(chat, creator=user)
    t = await core.chat_t(chat.chat_id)
    if variant is not None and variant not in VARIANTS:
        return Reply(t._("Unknown variant. Choose one of: {list}", list=", ".join(VARIANTS)))
    async with core.chat_lock(chat.chat_id):
        existing = await core.storage.active_table_for_chat(chat.chat_id)
        if existing is not None:
            return Reply(
                t._("A table is already open in this chat (see above). Finish or /cancel it first.")
            )
        elsewhere = await core.storage.active_table_for_user(person.user_id)
        seats = []
        if user.can_message and elsewhere is None:
            seats.append(SeatRecord(seat=0, user_id=person.user_id, name=person.first_name))
        table = await core.storage.create_table(
            TableRecord(
                id=0,
                chat_id=chat.chat_id,
                status="lobby",
                variant=variant or chat_record.settings.get("variant", "street"),
                creator_id=person.user_id,
                seed=random.SystemRandom().randrange(2**31),
                seats=seats,
            )
        )
        message_id = await core.messenger.send(chat.chat_id, render_lobby(core, t, table))
        table.lobby_message_id = message_id
        await core.storage.save_table(table, expected_version=table.version)
    return Reply()


async def _load_lobby(core: Core, table_id: int, t: Translator) -> TableRecord | Reply:
    table = await core.storage.get_table(table_id)
    if table is None or table.status != "lobby":
        return Reply(t._("This table is no longer open."), alert=True)
    return table


async def lobby_press(
    core: Core, cb: Callback, person: Person, chat: ChatInfo, is_admin: IsAdmin
) -> Reply:
    user = await core.remember(person)
    t = core.user_t(user)
    async with core.table_lock(cb.table):
        loaded = await _load_lobby(core, cb.table, t)
        if isinstance(loaded, Reply):
            return loaded
        table = loaded
        if table.chat_id != chat.chat_id:
            return Reply(t._("This button does not belong to this chat."), alert=True)
        is_creator = person.user_id == table.creator_id
        if cb.op == "join":
            refusal = await _join_refusal(core, table, user, t)
            if refusal is not None:
                return refusal
        handler = {
            "join": _join,
            "leave": _leave,
            "bot": _add_computer,
            "kick": _remove_computer,
            "var": _set_variant,
        }.get(cb.op)
        if handler is not None:
            if cb.op in ("bot", "kick", "var") and not is_creator:
                return Reply(t._("Only the player who opened the table can do that."), alert=True)
            reply = handler(core, table, person, cb.arg, t)
            if isinstance(reply, Reply):
                return reply
            await _save_lobby(core, table, log_text=f"{cb.op} {person.user_id} {cb.arg}".strip())
            await refresh_lobby(core, table.id)
            return Reply(reply)
        if cb.op == "cancel":
            if not (is_creator or await is_admin()):
                return Reply(
                    t._("Only the player who opened the table or a chat admin can cancel it."),
                    alert=True,
                )
            table.status = "cancelled"
            table.finished_at = time.time()
            await _save_lobby(core, table, log_text=f"cancel {person.user_id}")
            await refresh_lobby(core, table.id)
            return Reply(t._("The table is cancelled."))
        if cb.op == "start":
            if not is_creator:
                return Reply(t._("Only the player who opened the table can start."), alert=True)
            if cb.arg != seating_key(table):
                return Reply(
                    t._("The seats changed — check them and press Start again."), alert=True
                )
            return await _start(core, table, t)
    return Reply(t._("Unknown button."), alert=True)


async def _join_refusal(
    core: Core, table: TableRecord, user: UserRecord, t: Translator
) -> Reply | None:
    """Joining needs our private chat (for the cards) and no seat at another table."""
    if seat_of_user(table, user.user_id) is not None:
        return Reply(t._("You already have a seat at this table."))
    if not user.can_message:
        # Telegram opens this t.me link: the private chat starts and /start seats them.
        return Reply(url=join_link(core, table.id))
    elsewhere = await core.storage.active_table_for_user(user.user_id)
    if elsewhere is not None and elsewhere.id != table.id:
        other = await core.storage.get_chat(elsewhere.chat_id)
        return Reply(
            t._(
                "You already play at a table in {chat}.", chat=escape(other.title if other else "")
            ),
            alert=True,
        )
    return None


def _join(core: Core, table: TableRecord, person: Person, arg: str, t: Translator) -> str | Reply:
    if seat_of_user(table, person.user_id) is not None:
        return Reply(t._("You already have a seat at this table."))
    if len(table.seats) >= MAX_PLAYERS[table.variant]:
        return Reply(t._("The table is full."), alert=True)
    table.seats.append(
        SeatRecord(seat=len(table.seats), user_id=person.user_id, name=person.first_name)
    )
    return t._("You joined the table.")


def _leave(core: Core, table: TableRecord, person: Person, arg: str, t: Translator) -> str | Reply:
    seat = seat_of_user(table, person.user_id)
    if seat is None:
        return Reply(t._("You have no seat at this table."))
    del table.seats[seat]
    _renumber(table)
    return t._("You left the table.")


def _add_computer(
    core: Core, table: TableRecord, person: Person, arg: str, t: Translator
) -> str | Reply:
    level = arg if arg in AI_LEVELS else core.settings.default_ai_level
    if len(table.seats) >= MAX_PLAYERS[table.variant]:
        return Reply(t._("The table is full."), alert=True)
    taken = {s.name for s in table.seats}
    name = next(n for n in _COMPUTER_NAMES if n not in taken)
    table.seats.append(SeatRecord(seat=len(table.seats), user_id=None, name=name, ai_level=level))
    return t._("A computer player took a seat.")


def _remove_computer(
    core: Core, table: TableRecord, person: Person, arg: str, t: Translator
) -> str | Reply:
    computers = [s for s in table.seats if s.ai_level is not None]
    if not computers:
        return Reply(t._("There is no computer player to remove."))
    table.seats.remove(computers[-1])
    _renumber(table)
    return t._("A computer player left the table.")


def _set_variant(
    core: Core, table: TableRecord, person: Person, arg: str, t: Translator
) -> str | Reply:
    if arg not in VARIANTS:
        return Reply(t._("Unknown variant."), alert=True)
    if arg == table.variant:
        return Reply(t._("That variant is already chosen."))
    table.variant = arg
    return t._("Variant: {variant}", variant=variant_name(t, arg))


_COMPUTER_NAMES = ("Bot Ivan", "Bot Olga", "Bot Taras", "Bot Greta", "Bot Mads", "Bot Yuki")


def _renumber(table: TableRecord) -> None:
    for i, seat in enumerate(table.seats):
        seat.seat = i


async def _save_lobby(core: Core, table: TableRecord, log_text: str) -> None:
    try:
        await core.storage.save_table(
            table,
            expected_version=table.version,
            log=[LogEntry(kind="lobby", ply=None, seat=None, text=log_text, data=None, by="human")],
        )
    except StaleVersionError:
        log.warning("stale lobby save for table %s", table.id)
        raise


async def _start(core: Core, table: TableRecord, t: Translator) -> Reply:
    players = len(table.seats)
    lo, hi = MIN_PLAYERS[table.variant], MAX_PLAYERS[table.variant]
    if not lo <= players <= hi:
        if lo == hi:
            text = t._(
                "{variant} needs exactly {n} players.", variant=variant_name(t, table.variant), n=lo
            )
        else:
            text = t._(
                "{variant} needs {lo} to {hi} players.",
                variant=variant_name(t, table.variant),
                lo=lo,
                hi=hi,
            )
        return Reply(text, alert=True)
    match = Match.new(table.variant, players=players, seed=table.seed)
    table.match_state = match.to_json()
    table.status = "playing"
    play.plan_deadlines(core, table, match, await play.timeout_of(core, table))
    await core.storage.save_table(
        table,
        expected_version=table.version,
        log=[LogEntry(kind="start", ply=0, seat=None, text=table.variant, data=None, by="human")],
    )
    await refresh_lobby(core, table.id)
    await play.after_change(core, table, match, started=True)
    return Reply(t._("The match begins!"))


async def start_private(core: Core, person: Person, payload: str) -> Reply:
    """``/start`` in private: the deep link ``j<table>`` seats the user in one step."""
    user = await core.remember(person, private=True)
    t = core.user_t(user)
    await play.user_is_back(core, person.user_id)
    if not payload.startswith("j") or not payload[1:].isdigit():
        return Reply(
            t._(
                "Hello! I host Kozel tables in group chats. "
                "Add me to a group and send /newgame. /help tells more."
            )
        )
    table_id = int(payload[1:])
    async with core.table_lock(table_id):
        table = await core.storage.get_table(table_id)
        if table is None or table.status != "lobby":
            return Reply(t._("That table is no longer open."))
        chat = await core.storage.get_chat(table.chat_id)
        title = escape(chat.title if chat else "")
        if seat_of_user(table, person.user_id) is not None:
            return Reply(t._("You already have a seat at the table in {chat}.", chat=title))
        elsewhere = await core.storage.active_table_for_user(person.user_id)
        if elsewhere is not None:
            other = await core.storage.get_chat(elsewhere.chat_id)
            return Reply(
                t._(
                    "You already play at a table in {chat}.",
                    chat=escape(other.title if other else ""),
                )
            )
        joined = _join(core, table, person, "", t)
        if isinstance(joined, Reply):
            return joined
        await _save_lobby(core, table, log_text=f"join {person.user_id} (deep link)")
    await refresh_lobby(core, table_id)
    return Reply(
        t._("You have a seat at the table in {chat}. Your cards will come here.", chat=title)
    )


async def cancel_command(core: Core, chat: ChatInfo, person: Person, is_admin: IsAdmin) -> Reply:
    await core.remember(person)
    t = await core.chat_t(chat.chat_id)
    table = await core.storage.active_table_for_chat(chat.chat_id)
    if table is None:
        return Reply(t._("There is no open table in this chat."))
    if person.user_id != table.creator_id and not await is_admin():
        return Reply(t._("Only the player who opened the table or a chat admin can cancel it."))
    await close_table(core, table.id, reason=t._("The table was cancelled."))
    return Reply(t._("The table is cancelled."))


async def close_table(core: Core, table_id: int, *, reason: str) -> None:
    """Cancel a lobby or a running match, stop its timers and tell the players."""
    async with core.table_lock(table_id):
        table = await core.storage.get_table(table_id)
        if table is None or table.status not in ("lobby", "playing"):
            return
        was_playing = table.status == "playing"
        table.status = "cancelled"
        table.finished_at = time.time()
        for seat in table.seats:
            seat.deadline = None
        await core.storage.save_table(
            table,
            expected_version=table.version,
            log=[LogEntry(kind="cancel", ply=None, seat=None, text=reason, data=None, by="system")],
        )
    play.cancel_jobs(core, table_id)
    await refresh_lobby(core, table_id)
    if was_playing:
        await play.close_hands(core, table)


async def kick(
    core: Core, chat: ChatInfo, person: Person, target: Person | None, is_admin: IsAdmin
) -> Reply:
    """``/kick`` as a reply to a player's message: the creator or an admin removes them.

    In the lobby the seat is freed; in a running match a computer player takes it over.
    """
    await core.remember(person)
    t = await core.chat_t(chat.chat_id)
    if target is None:
        return Reply(t._("Reply to a message of the player you want to remove with /kick."))
    table = await core.storage.active_table_for_chat(chat.chat_id)
    if table is None:
        return Reply(t._("There is no open table in this chat."))
    if person.user_id != table.creator_id and not await is_admin():
        return Reply(
            t._("Only the player who opened the table or a chat admin can remove players.")
        )
    async with core.table_lock(table.id):
        fresh = await core.storage.get_table(table.id)
        if fresh is None or fresh.status not in ("lobby", "playing"):
            return Reply(t._("There is no open table in this chat."))
        seat = seat_of_user(fresh, target.user_id)
        if seat is None:
            return Reply(t._("{name} has no seat at this table.", name=escape(target.first_name)))
        record = fresh.seats[seat]
        if fresh.status == "lobby":
            del fresh.seats[seat]
            _renumber(fresh)
        else:
            record.user_id = None
            record.ai_level = core.settings.default_ai_level
            record.away = False
            record.deadline = None
        await core.storage.save_table(
            fresh,
            expected_version=fresh.version,
            log=[LogEntry(kind="kick", ply=None, seat=seat, text=str(target.user_id), by="human")],
        )
    if fresh.status == "lobby":
        await refresh_lobby(core, fresh.id)
    else:
        match = core.match_of(fresh)
        core.notes[fresh.id] = t._(
            "{name} left the table; a computer player takes the seat.", name=escape(record.name)
        )
        await play.after_change(core, fresh, match)
        if record.hand_message_id is not None:
            ut = await core.user_t_by_id(target.user_id)
            await core.messenger.delete(target.user_id, record.hand_message_id)
            with contextlib.suppress(Unreachable):
                await core.messenger.send(
                    target.user_id, Screen(ut._("You were removed from the table."))
                )
    return Reply(t._("{name} was removed from the table.", name=escape(target.first_name)))
