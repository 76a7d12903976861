"""What a change makes the bot say: the group's table and lobby, hands, posts, notes, notices.

A use case commits first, then calls ``tell`` (or ``publish``) with what it owes. Messages are
rendered from the latest committed state by one worker per message, so bursts coalesce.
"""

from __future__ import annotations

import logging
import zlib
from html import escape

from kozel_rules.card import Card
from kozel_rules.event import DealEnded, MatchEnded
from kozel_rules.match import Match
from kozel_rules.result import DealResult

from ..i18n import Translator
from ..render.hand import hand_closed_screen, hand_screen, turn_notice_screen
from ..render.lobby import lobby_closed_text, lobby_screen
from ..render.results import deal_result_text, match_result_text
from ..render.table import table_screen
from ..screen import Screen
from ..storage import Actor, LogEntry, LogKind, TableRecord, TableStatus
from . import turns
from .core import Core
from .owed import Change, Owed
from .people import chat_t, chat_title, seat_infos, user_t
from .ports import MessageGone, Unreachable

log = logging.getLogger(__name__)


def join_link(core: Core, table_id: int) -> str:
    return f"https://t.me/{core.settings.bot_username}?start=j{table_id}"


# ------------------------------------------------------------------ what a change owes


async def tell(core: Core, table: TableRecord, match: Match, change: Change) -> None:
    """After a committed change of a running match: results, the table, hands, turn notices."""
    t = await chat_t(core, table.chat_id)
    seats = seat_infos(table)
    view = match.view(None)
    owed = Owed(repost=change.started, note=change.note)
    for event in change.events:
        if isinstance(event, DealEnded):
            result = event.result
            text = deal_result_text(
                t,
                result=result,
                view=view,
                seats=seats,
                totals=_totals_after(match, result.number),
                sides_in=[s for s in range(match.sides) if s not in _out_before(match, result)],
            )
            owed.posts.append(Screen(text))
            owed.repost = True  # the next deal's table goes below the result
        elif isinstance(event, MatchEnded):
            text = match_result_text(t, result=event.result, view=view, seats=seats)
            owed.posts.append(Screen(text))
    to_move = None if match.is_over else match.to_move
    for record in table.seats:
        # The player who just moved and is to move again needs no bell (unless it starts).
        asked = record.seat == to_move and (change.actor != to_move or change.started)
        if asked and record.user_id is not None and not record.away:
            owed.notify.add(record.seat)
    publish(core, table, owed)


def publish(core: Core, table: TableRecord, owed: Owed | None = None) -> None:
    """Queue what is owed, then refresh the table message and every seated person's hand."""
    if owed is not None:
        core.ledger.add(table.id, owed)
    mark_table(core, table.id)
    for record in table.seats:
        if record.user_id is not None:
            mark_hand(core, table.id, record.seat)


def _out_before(match: Match, result: DealResult) -> set[int]:
    """Sides already out before the given deal was played."""
    out: set[int] = set()
    for earlier in match.deal_results:
        if earlier.number >= result.number:
            break
        out.update(earlier.out)
    return out


def _totals_after(match: Match, number: int) -> list[int]:
    totals = [0] * match.sides
    for result in match.deal_results:
        if result.number > number:
            break
        totals = [a + b for a, b in zip(totals, result.defeat_points, strict=True)]
    return totals


# ------------------------------------------------------------------ the lobby


def refresh_lobby(core: Core, table_id: int) -> None:
    async def refresh() -> None:
        table = await core.storage.tables.get(table_id)
        if table is None or table.lobby_message_id is None:
            return
        t = await chat_t(core, table.chat_id)
        if table.status == TableStatus.LOBBY:
            screen = render_lobby(core, t, table)
        else:
            cancelled = table.status == TableStatus.CANCELLED
            screen = Screen(lobby_closed_text(t, cancelled=cancelled))
        try:
            await core.messenger.edit(table.chat_id, table.lobby_message_id, screen)
        except (MessageGone, Unreachable):
            log.info("lobby message of table %s is gone", table_id)

    core.live_tables.mark(("lobby", table_id), refresh)


def render_lobby(core: Core, t: Translator, table: TableRecord) -> Screen:
    creator = next((s.name for s in table.seats if s.user_id == table.creator_id), None)
    return lobby_screen(
        t,
        table_id=table.id,
        version=table.version,
        variant=table.variant,
        seats=seat_infos(table),
        creator=creator or "—",
        start_key=seating_key(table),
        join_url=join_link(core, table.id),
    )


def seating_key(table: TableRecord) -> str:
    """A short fingerprint of who sits where: Start must start the seating the creator saw."""
    seating = "|".join(f"{s.user_id}:{s.ai_level}" for s in table.seats) + table.variant
    return format(zlib.crc32(seating.encode()), "x")


# ------------------------------------------------------------------ the table and the hands


def mark_table(core: Core, table_id: int) -> None:
    async def refresh() -> None:
        await _refresh_table(core, table_id)

    core.live_tables.mark(("table", table_id), refresh)


def mark_hand(core: Core, table_id: int, seat: int) -> None:
    async def refresh() -> None:
        await _refresh_hand(core, table_id, seat)

    core.live_hands.mark(("hand", table_id, seat), refresh)


async def _refresh_table(core: Core, table_id: int) -> None:
    async with core.table_lock(table_id):
        table = await core.storage.tables.get(table_id)
        if table is None or table.match_state is None:
            return
        match = core.match_of(table)
        t = await chat_t(core, table.chat_id)
        note = core.ledger.note(table_id)
        screen = table_screen(
            t,
            view=match.view(None),
            seats=seat_infos(table),
            deal_lines=[f"\n{note}"] if note else [],
            cancelled=table.status == TableStatus.CANCELLED,
        )
        posts, repost = core.ledger.take_table(table_id)
        repost = repost or table.table_message_id is None
        chat_id, old_id = table.chat_id, table.table_message_id
    try:
        for post in posts:
            await core.messenger.send(chat_id, post)
        if not repost and old_id is not None:
            try:
                await core.messenger.edit(chat_id, old_id, screen)
                return
            except MessageGone:
                pass
        new_id = await core.messenger.send(chat_id, screen, notify=False)
    except Unreachable:
        log.info("group %s of table %s is unreachable", chat_id, table_id)
        return
    if old_id is not None:
        await core.messenger.delete(chat_id, old_id)
    async with core.table_lock(table_id):
        table = await core.storage.tables.get(table_id)
        if table is not None:
            table.table_message_id = new_id
            await core.storage.tables.save(table, expected_version=table.version)


async def _refresh_hand(core: Core, table_id: int, seat: int) -> None:
    async with core.table_lock(table_id):
        table = await core.storage.tables.get(table_id)
        if table is None or table.match_state is None or seat >= len(table.seats):
            return
        record = table.seats[seat]
        if record.user_id is None:
            return
        user = await core.storage.users.get(record.user_id)
        title = await chat_title(core, table.chat_id)
        t = user_t(user)
        match = core.match_of(table)
        view = match.view(seat)
        if table.status == TableStatus.CANCELLED:
            screen = hand_closed_screen(t, title)
        else:
            screen = hand_screen(
                t,
                view=view,
                seats=seat_infos(table),
                chat_title=title,
                table_id=table_id,
                ply=match.ply,
                selection=[Card.parse(c) for c in record.selection],
                away=record.away,
            )
        notify = core.ledger.take_notify(table_id, seat) and view.to_move == seat
        my_turn = view.to_move == seat and not record.away and table.status == TableStatus.PLAYING
        hand_id, notice_id = record.hand_message_id, record.notice_message_id
        private_chat = user.private_chat_id if user and user.private_chat_id else record.user_id
    new_hand, new_notice = hand_id, notice_id
    try:
        if hand_id is not None:
            try:
                await core.messenger.edit(private_chat, hand_id, screen)
            except MessageGone:
                new_hand = None
        if new_hand is None:
            new_hand = await core.messenger.send(private_chat, screen, notify=False)
        if notify:
            new_notice = await core.messenger.send(
                private_chat, turn_notice_screen(t, title), notify=True
            )
        elif not my_turn:
            new_notice = None
        if notice_id is not None and notice_id != new_notice:
            await core.messenger.delete(private_chat, notice_id)
    except Unreachable:
        await _unreachable(core, table_id, seat)
        return
    if (new_hand, new_notice) != (hand_id, notice_id):
        async with core.table_lock(table_id):
            table = await core.storage.tables.get(table_id)
            if table is not None and seat < len(table.seats):
                table.seats[seat].hand_message_id = new_hand
                table.seats[seat].notice_message_id = new_notice
                await core.storage.tables.save(table, expected_version=table.version)


async def _unreachable(core: Core, table_id: int, seat: int) -> None:
    """A player blocked the bot: a computer plays for them, and the table says so."""
    async with core.table_lock(table_id):
        table = await core.storage.tables.get(table_id)
        if table is None or table.status != TableStatus.PLAYING:
            return
        record = table.seats[seat]
        if record.user_id is not None:
            await core.storage.users.set_can_message(record.user_id, False)
        if record.away:
            return
        record.away = True
        match = core.match_of(table)
        t = await chat_t(core, table.chat_id)
        note = t._(
            "📵 I cannot reach {name} in private — a computer plays for them. "
            "Open a chat with me and press “I'm back”.",
            name=escape(record.name),
        )
        await turns.plan_deadlines(core, table, match)
        entry = LogEntry(LogKind.UNREACHABLE, match.ply, seat, "blocked", by=Actor.SYSTEM)
        await core.storage.tables.save(table, expected_version=table.version, log=[entry])
    core.ledger.add(table_id, Owed(note=note))
    mark_table(core, table_id)
    turns.arm(core, table, match)


async def resend_hand(core: Core, user_id: int) -> None:
    """After /start in private: re-send the hand of a running match (it may have failed before)."""
    table = await core.storage.tables.active_for_user(user_id)
    if table is None or table.status != TableStatus.PLAYING:
        return
    seat = next((s.seat for s in table.seats if s.user_id == user_id), None)
    if seat is None:
        return
    async with core.table_lock(table.id):
        fresh = await core.storage.tables.get(table.id)
        if fresh is None:
            return
        old_hand = fresh.seats[seat].hand_message_id
        fresh.seats[seat].hand_message_id = None
        await core.storage.tables.save(fresh, expected_version=fresh.version)
    if old_hand is not None:  # the new hand goes to the bottom of the chat; one hand only
        await core.messenger.delete(user_id, old_hand)
    mark_hand(core, table.id, seat)
