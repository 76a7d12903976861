"""Lobby use cases: open a table, join (by button or deep link), leave, computer players,
variant, start, cancel."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from html import escape

from kozel_rules.ai import OFFERED_LEVELS
from kozel_rules.match import Match
from kozel_rules.variant import VARIANTS, get_variant

from ..i18n import Translator
from ..render.labels import COMPUTER_NAMES
from ..render.lobby import players_needed_text, seated_screen
from ..render.next_table import started_text
from ..render.rules_text import variant_name
from ..storage import (
    Actor,
    LogEntry,
    LogKind,
    Priority,
    SeatedElsewhereError,
    SeatRecord,
    TableRecord,
    TableStatus,
    UserRecord,
)
from . import deadlines, feed, house_rules
from .change import Change
from .commit import save_change
from .core import Core
from .nextgame import START_PAYLOAD, announce
from .people import chat_record, chat_title, remember
from .ports import ChatInfo, Person, Shared
from .reply import IsMember, Press, Reply, nobody
from .retry import retry_stale
from .seat_lookup import seat_of_user
from .seating import plays_elsewhere, renumber, save_lobby, seated_elsewhere, take_seat
from .translators import chat_t, user_t


@retry_stale
async def new_game(
    core: Core, chat: ChatInfo, person: Person, name: str | None, words: Sequence[str] = ()
) -> Reply:
    """/newgame [variant] [key=value ...] in a group: a lobby of the variant named (else the
    default one) with the house rules written (else the chat's defaults for the variant)."""
    user = await remember(core, person)
    if chat.is_private:
        return Reply(user_t(user)._("Add me to a group and send /newgame there to open a table."))
    record = await chat_record(core, chat, creator=user)
    t = await chat_t(core, chat.chat_id)
    if person.shared is not None:
        return Reply(shared_refusal(t, person.shared))
    variant = core.settings.default_variant if name is None else VARIANTS.get(name)
    if variant is None:
        return Reply(t._("Unknown variant. Choose one of: {list}", list=", ".join(VARIANTS)))
    options = await house_rules.opening(core, t, record, variant, words)
    if isinstance(options, str):
        return Reply(options)  # a word that is not a house rule, or not now
    async with core.chat_locks.hold(chat.chat_id):
        if await core.storage.tables.active_for_chat(chat.chat_id, chat.thread_id) is not None:
            return Reply(
                t._("A table is already open in this chat (see above). Finish or /cancel it first.")
            )
        elsewhere = await core.storage.tables.active_for_user(person.user_id)
        seats = []
        if user.can_message and elsewhere is None:
            seats.append(SeatRecord(seat=0, user_id=person.user_id, name=person.first_name))
        table = TableRecord(
            id=0,
            chat_id=chat.chat_id,
            thread_id=chat.thread_id,  # everything the table says in the group goes there
            status=TableStatus.LOBBY,
            variant=variant.name,
            creator_id=person.user_id,
            seed=random.SystemRandom().randrange(2**31),
            seats=seats,
            options=options.to_json(),
        )
        timers = deadlines.timer_rows(core, table)
        try:
            await core.storage.tables.create(
                table, owe=[feed.lobby(table, renew=True)], timers=timers
            )
        except SeatedElsewhereError:  # seated in another chat a moment ago: open it unseated
            table.seats = []
            await core.storage.tables.create(
                table, owe=[feed.lobby(table, renew=True)], timers=timers
            )
    core.wake_sender()
    deadlines.wake(core, timers)
    await announce(core, table)
    return Reply()


def shared_refusal(t: Translator, shared: Shared) -> str:
    if shared is Shared.CHANNEL:
        return t._(
            "You are writing as a channel: a channel cannot open a table or sit at one. "
            "Write as yourself."
        )
    return t._(
        "You are writing anonymously (as the group): I cannot tell who you are, so you "
        "cannot open a table or sit at one anonymously. Write as yourself."
    )


# ------------------------------------------------------------------ presses on the lobby


@dataclass
class Lobby:
    """A press on an open lobby of the chat it was made in, loaded under the table's lock."""

    press: Press
    table: TableRecord
    user: UserRecord
    t: Translator

    @property
    def is_creator(self) -> bool:
        return self.press.person.user_id == self.table.creator_id


LobbyCase = Callable[[Core, Lobby], Awaitable[Reply]]
PressCase = Callable[[Core, Press], Awaitable[Reply]]


def in_lobby(
    *,
    creator_only: bool = False,
    current: bool = False,
    or_admin: bool = False,
    from_private: bool = False,
) -> Callable[[LobbyCase], PressCase]:
    """``current``: the press must be about the lobby as it is now (its version): what it
    does depends on the seats and variant the presser saw. ``or_admin``: the creator or a
    chat admin, asked before the table's lock is taken (asking Telegram takes a while).
    ``from_private``: the press may also come from the presser's private chat."""

    def wrap(case: LobbyCase) -> PressCase:
        async def run(core: Core, press: Press) -> Reply:
            user = await remember(core, press.person)
            t = user_t(user)
            if or_admin and not await _creator_or_admin(core, press):
                return Reply(
                    t._("Only the player who opened the table or a chat admin can cancel it."),
                    alert=True,
                )
            async with core.table_locks.hold(press.cb.table):
                table = await core.storage.tables.get(press.cb.table)
                if table is None or table.status != TableStatus.LOBBY:
                    return Reply(t._("This table is no longer open."), alert=True)
                private = from_private and press.chat.is_private
                if table.chat_id != press.chat.chat_id and not private:
                    return Reply(t._("This button does not belong to this chat."), alert=True)
                lobby = Lobby(press, table, user, t)
                if creator_only and not lobby.is_creator:
                    return Reply(
                        t._("Only the player who opened the table can do that."), alert=True
                    )
                if current and press.cb.version != feed.lobby_key(table):
                    await feed.owe(core, [feed.lobby(table)])
                    return Reply(t._("The table has changed — check it and press again."))
                return await case(core, lobby)

        return run

    return wrap


async def changed(core: Core, lobby: Lobby, answer: str) -> Reply:
    """Save the lobby as changed by the press, show it, and answer."""
    cb, person = lobby.press.cb, lobby.press.person
    await save_lobby(core, lobby.table, f"{cb.op} {person.user_id} {cb.arg}".strip())
    return Reply(answer)


@in_lobby()
async def join(core: Core, lobby: Lobby) -> Reply:
    table, user, t = lobby.table, lobby.user, lobby.t
    if seat_of_user(table, user.user_id) is not None:
        return Reply(t._("You already have a seat at this table."))
    if not user.can_message:
        # Telegram opens this t.me link: the private chat starts and /start seats them.
        return Reply(url=feed.join_link(core, table.id))
    elsewhere = await core.storage.tables.active_for_user(user.user_id)
    if elsewhere is not None and elsewhere.id != table.id:
        return await plays_elsewhere(core, t, elsewhere, alert=True)
    refusal = take_seat(table, lobby.press.person, t)
    if refusal is not None:
        return refusal
    try:
        return await changed(core, lobby, t._("You joined the table."))
    except SeatedElsewhereError:
        return await seated_elsewhere(core, t, user.user_id, alert=True)


@in_lobby(from_private=True)
async def leave(core: Core, lobby: Lobby) -> Reply:
    seat = seat_of_user(lobby.table, lobby.press.person.user_id)
    if seat is None:
        return Reply(lobby.t._("You have no seat at this table."))
    del lobby.table.seats[seat]
    renumber(lobby.table)
    return await changed(core, lobby, lobby.t._("You left the table."))


@in_lobby(creator_only=True, current=True)
async def add_computer(core: Core, lobby: Lobby) -> Reply:
    table, arg, t = lobby.table, lobby.press.cb.arg, lobby.t
    if arg and arg not in OFFERED_LEVELS:  # a button of an older lobby message, or forged
        await feed.owe(core, [feed.lobby(table)])  # the message shows today's buttons
        return Reply(t._("That level is no longer offered: choose one of the buttons now shown."))
    level = arg or core.settings.default_ai_level
    if len(table.seats) >= max(get_variant(table.variant).player_counts):
        return Reply(lobby.t._("The table is full."), alert=True)
    taken = {s.name for s in table.seats}
    name = next(n for n in COMPUTER_NAMES if n not in taken)  # stored in English
    table.seats.append(SeatRecord(seat=len(table.seats), user_id=None, name=name, ai_level=level))
    return await changed(core, lobby, lobby.t._("A computer player took a seat."))


@in_lobby(creator_only=True, current=True)
async def remove_computer(core: Core, lobby: Lobby) -> Reply:
    computers = [s for s in lobby.table.seats if s.ai_level is not None]
    if not computers:
        return Reply(lobby.t._("There is no computer player to remove."))
    lobby.table.seats.remove(computers[-1])
    renumber(lobby.table)
    return await changed(core, lobby, lobby.t._("A computer player left the table."))


@in_lobby(creator_only=True, current=True)
async def choose_variant(core: Core, lobby: Lobby) -> Reply:
    variant, t = VARIANTS.get(lobby.press.cb.arg), lobby.t
    if variant is None:
        return Reply(t._("Unknown variant."), alert=True)
    if variant == get_variant(lobby.table.variant):
        return Reply(t._("That variant is already chosen."))
    lobby.table.options = await house_rules.for_variant(core, lobby.table, variant)
    lobby.table.variant = variant.name
    return await changed(core, lobby, t._("Variant: {variant}", variant=variant_name(t, variant)))


async def _creator_or_admin(core: Core, press: Press) -> bool:
    """True also for a table that is gone or elsewhere: the checks under the lock answer."""
    table = await core.storage.tables.get(press.cb.table)
    if table is None or table.chat_id != press.chat.chat_id or table.status != TableStatus.LOBBY:
        return True
    return press.person.user_id == table.creator_id or await press.is_admin()


@in_lobby(or_admin=True)
async def cancel(core: Core, lobby: Lobby) -> Reply:
    t = lobby.t
    lobby.table.status = TableStatus.CANCELLED
    lobby.table.finished_at = time.time()
    await save_lobby(core, lobby.table, f"cancel {lobby.press.person.user_id}")
    return Reply(t._("The table is cancelled."))


@in_lobby()
async def start(core: Core, lobby: Lobby) -> Reply:
    table, t = lobby.table, lobby.t
    if not lobby.is_creator:
        return Reply(t._("Only the player who opened the table can start."), alert=True)
    if lobby.press.cb.arg != feed.seating_key(table):
        await feed.owe(core, [feed.lobby(table)])
        return Reply(t._("The seats changed — check them and press Start again."), alert=True)
    variant = get_variant(table.variant)
    if len(table.seats) not in variant.player_counts:
        return Reply(players_needed_text(t, variant), alert=True)
    if all(seat.user_id is None for seat in table.seats):
        # Computers alone would play to nobody, at the cost of everybody's send budget; and
        # as a person sits at one table at a time, each person keeps at most one match going.
        return Reply(t._("At least one person has to sit at the table."), alert=True)
    options = house_rules.of_table(table)
    match = Match.new(variant, players=len(table.seats), seed=table.seed, options=options)
    table.match_state = match.to_json()
    table.status = TableStatus.PLAYING
    # The lobby message becomes the table (an edit); a lobby still on its way is deleted
    # once it arrives (``deliver._lobby``).
    table.table_message_id, table.lobby_message_id = table.lobby_message_id, None
    await deadlines.plan_deadlines(core, table, match)
    now = time.time()
    for seat in table.seats:
        if seat.user_id is not None:
            seat.active_at = now  # their hand rings now: no second sound on the first turn
    entry = LogEntry(LogKind.START, 0, None, table.variant, by=Actor.PERSON)
    started = Change(started=True)
    # Its expiry is stored with it: from now on, a match nobody plays.
    await save_change(core, table, match, started, log=[entry], extra=[feed.lobby(table)])
    return Reply(t._("The match begins!"))


# ------------------------------------------------------------------ the deep link


_DEEP_LINK = re.compile(r"j([1-9][0-9]{0,11})")  # ASCII digits: ids stay far below 2**63


@retry_stale
async def start_private(
    core: Core, person: Person, payload: str, is_member: IsMember = nobody
) -> Reply:
    """``/start`` in private: the deep link ``j<table>`` seats the user in one step, if they
    are in the table's group (``is_member`` asks Telegram; not under the table's lock)."""
    user = await remember(core, person, private=True)
    t = user_t(user)
    await _resend_hand(core, person.user_id)
    if payload == START_PAYLOAD:  # opened from /nextgame's link: word can come now
        return Reply(started_text(t))
    found = _DEEP_LINK.fullmatch(payload)
    if found is None:
        if payload:  # a link that is not ours, or mangled
            return Reply(t._("This link is not valid. Ask for a new one in the group."))
        return Reply(
            t._(
                "Hello! I host Kozel tables in group chats. "
                "Add me to a group and send /newgame. See /help for more."
            )
        )
    gone = Reply(t._("That table is no longer open."))
    # A table that does not exist leaves nothing behind (no lock, no cache entry); one in a
    # group the user is not in gets the same answer, so ids tell strangers nothing.
    table = await core.storage.tables.get(int(found.group(1)))
    if table is None or table.status != TableStatus.LOBBY:
        return gone
    if seat_of_user(table, person.user_id) is None and not await is_member(table.chat_id):
        return gone
    async with core.table_locks.hold(table.id):
        table = await core.storage.tables.get(table.id)
        if table is None or table.status != TableStatus.LOBBY:
            return gone
        title = escape(await chat_title(core, table.chat_id))
        if seat_of_user(table, person.user_id) is not None:
            return Reply(t._("You already have a seat at the table in {chat}.", chat=title))
        elsewhere = await core.storage.tables.active_for_user(person.user_id)
        if elsewhere is not None:
            return await plays_elsewhere(core, t, elsewhere, alert=False)
        refusal = take_seat(table, person, t)
        if refusal is not None:
            return refusal
        try:
            await save_lobby(core, table, f"join {person.user_id} (deep link)")
        except SeatedElsewhereError:
            return await seated_elsewhere(core, t, person.user_id, alert=False)
    text = t._("You have a seat at the table in {chat}. Your cards will come here.", chat=title)
    return Reply(screen=seated_screen(t, text, table_id=table.id, version=feed.lobby_key(table)))


async def _resend_hand(core: Core, user_id: int) -> None:
    """After /start in private: the hand of a running match comes again, at the bottom of the
    chat (sending it may have failed before); the old one goes."""
    table = await core.storage.tables.active_for_user(user_id)
    if table is None or table.status != TableStatus.PLAYING:
        return
    async with core.table_locks.hold(table.id):
        fresh = await core.storage.tables.get(table.id)
        seat = None if fresh is None else seat_of_user(fresh, user_id)
        if fresh is None or seat is None:
            return
        old = fresh.seats[seat].hand_message_id
        fresh.seats[seat].hand_message_id = None
        owe = [*feed.delete(user_id, old), feed.hand(core, fresh, seat, Priority.PRESSER)]
        await core.storage.tables.save(fresh, expected_version=fresh.version, owe=owe)
    core.wake_sender()
