"""Delivering one outbox row: render it from the committed state, call Telegram, book the result.

``deliver`` returns the rows the delivery owes in turn (deleting a message it replaced), which the
sender writes in the transaction that finishes the row. Telegram's refusals arrive as the ports'
exceptions: the sender decides about retries; a chat that cannot be reached is handled here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from kozel_rules.card import Card
from kozel_rules.match import Match

from ..callback import Callback, Op
from ..i18n import Translator
from ..render.hand import HandMessage, hand_closed_screen, hand_screen
from ..render.lobby import lobby_closed_text
from ..render.next_table import tell_me_label
from ..render.table import table_screen
from ..screen import Button, Screen
from ..storage import (
    OutboxKind,
    Owed,
    TableRecord,
    TableStatus,
    UserRecord,
)
from . import blocked, closing, cup, feed, house_rules, post_buttons, webapp
from .admin import topic_gone
from .coach import coach_button
from .core import Core
from .people import chat_title
from .ports import MessageGone, TopicGone, Transient, Unreachable
from .retry import retry_stale, until_stored
from .seat_lookup import seat_infos
from .translators import chat_t, user_t

log = logging.getLogger(__name__)

LATE_EDIT = 10.0  # seconds after which an edit that timed out has surely landed or is lost


async def deliver(core: Core, item: Owed) -> list[Owed]:
    if item.kind is OutboxKind.POST:
        return await _deliver_post(core, item)
    if item.kind is OutboxKind.DELETE:
        assert item.message_id is not None
        await core.messenger.delete(item.chat_id, item.message_id)
        return []
    assert item.table_id is not None
    if item.kind is OutboxKind.TABLE:
        return await _table(core, item.table_id, item)
    if item.kind is OutboxKind.LOBBY:
        return await _lobby(core, item.table_id, item)
    return await _hand(core, item.table_id, item.seat, item)


async def _deliver_post(core: Core, item: Owed) -> list[Owed]:
    assert item.text is not None
    item = await cup.aimed(core, item)
    thread_id = await _thread_of(core, item)
    try:
        return await _post(core, item, post_buttons.screen(core, item), thread_id)
    except TopicGone:
        assert item.table_id is not None  # only a table's posts go to a topic
        log.info("the topic of table %s is gone: a post is dropped", item.table_id)
        await topic_gone(core, item.table_id)
    except Unreachable:
        log.info("chat %s is unreachable: a post is dropped", item.chat_id)
    return []


async def _post(core: Core, item: Owed, screen: Screen, thread_id: int | None) -> list[Owed]:
    """A post goes once: as an edit of the message it takes the place of (a deal's result of
    that deal's table), or as a new message when there is none or it is gone. An edit of that
    message that timed out may still land later, over the result: the result is then edited
    once more, after a while."""
    if item.message_id is not None:
        try:
            await core.messenger.edit(item.chat_id, item.message_id, screen)
            core.shown.remember(item.chat_id, item.message_id, hash(screen))
        except MessageGone:
            pass
        else:
            if not core.shown.settle(item.chat_id, item.message_id):
                return []
            again = time.time() + LATE_EDIT
            return [
                feed.post(
                    item.chat_id,
                    screen.text,
                    table_id=item.table_id,
                    over=item.message_id,
                    after=again,
                    buttons=item.buttons,
                )
            ]
    sent = await core.messenger.send(item.chat_id, screen, notify=item.notify, thread_id=thread_id)
    await cup.sent(core, item, sent)  # a cup's message is edited from now on
    return []


async def _thread_of(core: Core, item: Owed) -> int | None:
    """The forum topic a table's post goes to (a post to a player's private chat has none)."""
    if item.table_id is None:
        return None
    if item.table_id < 0:  # a cup's post
        return await cup.thread_of(core, item.table_id, item.chat_id)
    table = await core.storage.tables.get(item.table_id)
    return table.thread_id if table is not None and table.chat_id == item.chat_id else None


async def _table(core: Core, table_id: int, item: Owed) -> list[Owed]:
    table = await core.storage.tables.get(table_id)
    if table is None or table.match_state is None:
        return []
    match = core.matches.of(table)
    view = match.view(None)
    if view.match_over and table.table_message_id is None:
        return []  # the last deal's result took the table's place; the match's result is last
    screen = await _table_screen(core, table, match)
    try:
        # A new table message is owed exactly while the table has none: a deal's end clears
        # it in the commit that marks the row ``renew``. A delivery that read the row just
        # before that mark sends the new table already; the mark must not send another.
        sent = await _show(
            core, table.chat_id, table.table_message_id, screen, False, table.thread_id
        )
    except Transient:
        if table.table_message_id is not None:  # the edit may yet land, late
            core.shown.edit_failed(table.chat_id, table.table_message_id)
        raise
    except TopicGone:
        log.info("the topic of table %s is gone", table_id)
        await topic_gone(core, table_id)
        return []
    except Unreachable:
        log.info("group %s of table %s is unreachable", table.chat_id, table_id)
        return []
    if sent is None:
        return []
    await _remember(core, table_id, lambda fresh: _set_table_message(fresh, sent))
    return feed.delete(table.chat_id, table.table_message_id)


async def _table_screen(core: Core, table: TableRecord, match: Match) -> Screen:
    """The group's table message as it stands."""
    t = await chat_t(core, table.chat_id)
    return table_screen(
        t,
        view=match.view(None),
        seats=seat_infos(table, t),
        deal_lines=[f"\n{table.note}"] if table.note else [],
        cancelled=table.status == TableStatus.CANCELLED,
        app_link=webapp.table_link(core, table.id),
        options=match.options,
    )


def _set_table_message(table: TableRecord, message_id: int) -> None:
    table.table_message_id = message_id


async def _lobby(core: Core, table_id: int, item: Owed) -> list[Owed]:
    table = await core.storage.tables.get(table_id)
    if table is None:
        return []
    t = await chat_t(core, table.chat_id)
    if table.status == TableStatus.LOBBY:
        options = house_rules.of_table(table)
        defaults = house_rules.chat_defaults(
            await core.storage.chats.get(table.chat_id), table.variant
        )
        group_default = not options.is_default and options == defaults
        screen = feed.render_lobby(core, t, table, group_default=group_default)
    elif table.lobby_message_id is None:
        return []  # never shown, or it became the table: nothing to close
    elif table.match_state is not None:
        # Shown only after the match began (its send crossed the Start): the table is below.
        await _remember(core, table_id, _forget_lobby)
        return feed.delete(table.chat_id, table.lobby_message_id)
    else:
        # A lobby that closed: who still wants to play hears of the next table.
        tell_me = Button(tell_me_label(t), Callback(table_id, 0, Op.NEXT).encode())
        screen = Screen.of(lobby_closed_text(t), [[tell_me]])
    try:
        # A new table is news: its lobby comes with a notification.
        sent = await _show(
            core,
            table.chat_id,
            table.lobby_message_id,
            screen,
            item.renew,
            table.thread_id,
            notify=True,
        )
    except TopicGone:
        log.info("the topic of table %s is gone", table_id)
        await topic_gone(core, table_id)
        return []
    except Unreachable:
        log.info("lobby of table %s cannot be shown in %s", table_id, table.chat_id)
        # A lobby nobody can see would block the chat's /newgame for ever.
        await closing.lobby_unshowable(core, table_id)
        return []
    if sent is not None:
        await _remember(core, table_id, lambda fresh: _set_lobby_message(fresh, sent))
    return []


def _set_lobby_message(table: TableRecord, message_id: int) -> None:
    table.lobby_message_id = message_id


def _forget_lobby(table: TableRecord) -> None:
    table.lobby_message_id = None


async def _hand(core: Core, table_id: int, seat: int, item: Owed) -> list[Owed]:
    target = await _hand_target(core, table_id, seat)
    if target is None:
        return []
    table, user = target
    record = table.seats[seat]
    screen = await _hand_screen(core, table, seat, user_t(user))
    chat = user.private_chat_id if user and user.private_chat_id else record.user_id
    assert chat is not None
    renew, notify = _hand_rings(core, table, seat, item)
    try:
        sent = await _show(core, chat, record.hand_message_id, screen, renew, notify=notify)
    except Unreachable:
        await blocked.player_unreachable(core, table_id, seat)
        return []
    if sent is None:
        return []
    return await _hand_sent(core, table, seat, chat, sent)


async def _hand_target(
    core: Core, table_id: int, seat: int
) -> tuple[TableRecord, UserRecord | None] | None:
    """The table and the player a hand message goes to; None when none is owed now."""
    table = await core.storage.tables.get(table_id)
    if table is None or table.match_state is None or seat >= len(table.seats):
        return None
    record = table.seats[seat]
    if record.user_id is None:
        return None
    if _shown_in_page(core, table, seat):
        core.live.hold_hand(table_id, seat)  # brought up to date when the page is gone
        return None
    user = await core.storage.users.get(record.user_id)
    if user is not None and not user.can_message:
        # They blocked the bot: every call would be a 403 spent from the shared budget. A
        # press or a /start of theirs says they are back, and their hand is shown again.
        return None
    return table, user


def _hand_rings(core: Core, table: TableRecord, seat: int, item: Owed) -> tuple[bool, bool]:
    """Whether the hand comes as a new message, and whether it notifies."""
    record = table.seats[seat]
    # A new hand message (with a notification) only while it is still their turn.
    my_turn = (
        core.matches.of(table).view(seat).to_move == seat
        and not record.away
        and table.status == TableStatus.PLAYING
    )
    # A player watching the Mini App hears their turn there (a cue in the page): no new message.
    renew = item.renew and my_turn and not core.live.is_watched(table.id, seat)
    # The match's first hand rings (``match_feed``): the start is news, and their first turn is not.
    notify = renew or (item.notify and record.hand_message_id is None)
    return renew, notify


async def _hand_screen(core: Core, table: TableRecord, seat: int, t: Translator) -> Screen:
    """The seat's hand message as it stands (or what it turns into on a cancel)."""
    title = await chat_title(core, table.chat_id)
    if table.status == TableStatus.CANCELLED:
        return hand_closed_screen(t, title)
    record = table.seats[seat]
    match = core.matches.of(table)
    hand = HandMessage(
        view=match.view(seat),
        seats=seat_infos(table, t),
        chat_title=title,
        table_id=table.id,
        ply=match.ply,
        selection=[Card.parse(c) for c in record.selection],
        away=record.away,
        page_url=webapp.page_url(core, table.id),
        seconds_left=None if record.deadline is None else record.deadline - time.time(),
        coach=coach_button(table.id, match, seat),
        options=match.options,
    )
    return hand_screen(t, hand)


async def _hand_sent(core: Core, table: TableRecord, seat: int, chat: int, sent: int) -> list[Owed]:
    """Store a new hand message; the one it replaces goes (and the new one too if the seat
    changed hands meanwhile: the player was removed, and this hand is nobody's now)."""
    record = table.seats[seat]
    old = [record.hand_message_id]
    owner = record.user_id
    assert owner is not None
    kept: list[bool] = []
    await _remember(core, table.id, lambda fresh: kept.append(_set_hand(fresh, seat, sent, owner)))
    if not all(kept):
        old.append(sent)
    return [d for message_id in old for d in feed.delete(chat, message_id)]


def _shown_in_page(core: Core, table: TableRecord, seat: int) -> bool:
    """The player has the Mini App open and alive: it shows their hand live, so the hand
    message costs no edit per card (its first message, a finished match or a cancel still
    go; a turn is told in the page, as ``renew`` below says)."""
    return (
        table.status == TableStatus.PLAYING
        and table.seats[seat].hand_message_id is not None
        and core.live.is_watched(table.id, seat)
    )


def _set_hand(table: TableRecord, seat: int, message_id: int, owner: int) -> bool:
    """Store the seat's new hand message; False if the seat has another owner by now."""
    if seat >= len(table.seats) or table.seats[seat].user_id != owner:
        return False
    table.seats[seat].hand_message_id = message_id
    return True


async def _show(
    core: Core,
    chat_id: int,
    message_id: int | None,
    screen: Screen,
    renew: bool,
    thread_id: int | None = None,
    *,
    notify: bool = False,
) -> int | None:
    """Edit the message in place, or send a new one (returned) when asked to or it is gone."""
    look = hash(screen)
    if message_id is not None and not renew:
        if core.shown.shows(chat_id, message_id, look):
            return None  # the same again: Telegram would refuse it ("not modified")
        try:
            await core.messenger.edit(chat_id, message_id, screen)
            core.shown.remember(chat_id, message_id, look)
            return None
        except MessageGone:
            pass  # gone: a new one below
    sent = await core.messenger.send(chat_id, screen, notify=notify, thread_id=thread_id)
    core.shown.remember(chat_id, sent, look)
    return sent


async def _remember(core: Core, table_id: int, change: Callable[[TableRecord], None]) -> None:
    """Store a message id on the table (under its lock: moves may be saving it meanwhile), even
    through a moment without the database: the message is sent, and a hand or a table whose
    new message is not stored would be sent anew."""
    await until_stored(lambda: _store_message(core, table_id, change))


@retry_stale
async def _store_message(core: Core, table_id: int, change: Callable[[TableRecord], None]) -> None:
    async with core.table_locks.hold(table_id):
        fresh = await core.storage.tables.get(table_id)
        if fresh is not None:
            change(fresh)
            await core.storage.tables.save(fresh, expected_version=fresh.version)
