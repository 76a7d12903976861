"""Playing: hand presses, computer moves, timeouts, and the messages that follow a commit.

Every use case: lock the table -> load -> check ply -> engine.apply -> save (commit) -> tell.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict
from enum import Enum
from html import escape
from typing import Any

from kozel_rules.action import Action
from kozel_rules.card import Card
from kozel_rules.errors import IllegalActionError
from kozel_rules.event import DealEnded, Event, MatchEnded
from kozel_rules.match import Match

from ..callback import Callback, CallbackDataError, decode_action, decode_card
from ..i18n import Translator
from ..render import deal_result_text, hand_screen, match_result_text, table_screen
from ..screen import Screen
from ..storage import LogEntry, MatchPlayerRecord, MatchRecord, TableRecord
from . import ladder
from .computer import choose_action, declare_special
from .core import Core, seat_infos, seat_of_user
from .ports import MessageGone, Person, Reply, Unreachable

log = logging.getLogger(__name__)

MAX_TIMEOUTS = 2  # timeouts in a row after which the computer keeps the seat


def is_computer_turn(table: TableRecord, match: Match) -> bool:
    seat = match.to_move
    if seat is None:
        return False
    record = table.seats[seat]
    return record.ai_level is not None or record.away


# ------------------------------------------------------------------ presses


async def hand_press(core: Core, cb: Callback, person: Person) -> Reply:
    user = await core.remember(person, private=True)
    t = core.user_t(user)
    async with core.table_lock(cb.table):
        table = await core.storage.get_table(cb.table)
        if table is None or table.status != "playing" or table.match_state is None:
            return Reply(t._("This match is over or was cancelled."), alert=True)
        seat = seat_of_user(table, person.user_id)
        if seat is None:
            return Reply(t._("These are not your cards."), alert=True)
        match = core.match_of(table)
        record = table.seats[seat]
        if cb.op == "back":  # safe at any ply: the table may move on while they reach for it
            return await _back(core, table, match, seat, t)
        if record.away:
            return Reply(t._("A computer plays for you now. Press “I'm back” first."), alert=True)
        if cb.version != match.ply:
            mark_hand(core, table.id, seat)
            return Reply(t._("That button is out of date — your cards are updated."))
        try:
            if cb.op == "act":
                return await _act(core, table, match, decode_action(seat, cb.arg), t)
            if cb.op == "clr":
                record.selection = []
                await core.storage.save_table(table, expected_version=table.version)
                mark_hand(core, table.id, seat)
                return Reply()
            if cb.op == "tog":
                return await _toggle(core, table, match, seat, decode_card(cb.arg), t)
        except CallbackDataError:
            return Reply(t._("This button is not valid."), alert=True)
    return Reply(t._("Unknown button."), alert=True)


async def _toggle(
    core: Core, table: TableRecord, match: Match, seat: int, card: Card, t: Translator
) -> Reply:
    view = match.view(seat)
    if card not in view.hand:
        return Reply(t._("That card is not in your hand."), alert=True)
    record = table.seats[seat]
    chosen = {Card.parse(c) for c in record.selection}
    chosen ^= {card}
    legal = [a for a in view.legal if not a.verb.is_special]
    if not legal:
        return Reply(t._("Not your turn yet."))
    if chosen and not any(chosen <= set(a.cards) for a in legal):
        if not any(card in a.cards for a in legal):
            return Reply(t._("{card} cannot be played now.", card=str(card)), alert=True)
        return Reply(
            t._("{card} does not go with the cards you chose.", card=str(card)), alert=True
        )
    if table.variant == "ziege" and chosen:
        # One card per play: a tap plays it (there is exactly one action per card).
        matching = [a for a in legal if set(a.cards) == chosen]
        if len(matching) == 1:
            return await _act(core, table, match, matching[0], t)
    record.selection = [str(c) for c in sorted(chosen)]
    await core.storage.save_table(table, expected_version=table.version)
    mark_hand(core, table.id, seat)
    return Reply()


async def _act(
    core: Core, table: TableRecord, match: Match, action: Action, t: Translator
) -> Reply:
    try:
        await commit(core, table, match, action, by="human")
    except IllegalActionError as err:
        return Reply(illegal_text(t, err), alert=True)
    return Reply(t._("Played: {action}", action=" ".join(str(c) for c in action.cards)))


async def _back(core: Core, table: TableRecord, match: Match, seat: int, t: Translator) -> Reply:
    record = table.seats[seat]
    if not record.away:
        return Reply(t._("You are playing already."))
    record.away = False
    record.timeouts = 0
    core.notes[table.id] = (await core.chat_t(table.chat_id))._(
        "{name} is back.", name=escape(record.name)
    )
    plan_deadlines(core, table, match, await timeout_of(core, table))
    await core.storage.save_table(
        table,
        expected_version=table.version,
        log=[LogEntry(kind="back", ply=match.ply, seat=seat, text="back", data=None, by="human")],
    )
    await after_change(core, table, match, actor=None)
    return Reply(t._("Welcome back — it is your seat again."))


def illegal_text(t: Translator, err: IllegalActionError) -> str:
    texts = {
        "not-your-turn": t._("It is not your turn."),
        "must-follow-suit": t._("You must follow the suit that was led."),
        "must-play-trump": t._("You must play a trump."),
        "trump-lead-banned": t._("Trumps may not be led."),
        "does-not-beat": t._("Those cards do not beat the cards on the table."),
        "override-not-nearer": t._(
            "Only a seat nearer to the leader may override that special lead."
        ),
        "molodka-cannot-override-moscow": t._("A molodka cannot override a Moscow."),
        "not-in-hand": t._("That card is not in your hand."),
        "lead-one-suit": t._("A lead is one card or several cards of one suit."),
        "wrong-card-count": t._("Answer with as many cards as were led."),
        "must-lead-returned-card": t._("Lead the card your partner gave you."),
        "match-over": t._("The match is over."),
    }
    return texts.get(err.rule, t._("That move is not allowed now."))


# ------------------------------------------------------------------ commit


async def commit(
    core: Core,
    table: TableRecord,
    match: Match,
    action: Action,
    *,
    by: str,
    note: str | None = None,
) -> list[Event]:
    """Apply, save, and only then tell anybody. Raises IllegalActionError (nothing changes)."""
    events = match.apply(action)
    for record in table.seats:
        record.selection = []
    if by == "human":
        table.seats[action.seat].timeouts = 0
    plan_deadlines(core, table, match, await timeout_of(core, table))
    table.match_state = match.to_json()
    entries = [
        LogEntry(kind="action", ply=match.ply, seat=action.seat, text=str(action), data=None, by=by)
    ]
    for event in events:
        if isinstance(event, DealEnded):
            entries.append(
                LogEntry(
                    kind="deal",
                    ply=match.ply,
                    seat=None,
                    text=f"deal {event.result.number}",
                    data=_jsonable(asdict(event.result)),
                    by="system",
                )
            )
        elif isinstance(event, MatchEnded):
            entries.append(
                LogEntry(
                    kind="match",
                    ply=match.ply,
                    seat=None,
                    text="match over",
                    data=_jsonable(asdict(event.result)),
                    by="system",
                )
            )
    record = None
    if match.is_over:
        table.status = "finished"
        table.finished_at = time.time()
        record = match_record(table, match)
    # The match record (the ladder's input) is written in the same transaction as the move.
    await core.storage.save_table(
        table, expected_version=table.version, log=entries, match=record, rate=ladder.rate
    )
    core.keep_match(table, match)
    if note:
        core.notes[table.id] = note
    await after_change(core, table, match, events=events, actor=action.seat)
    return events


def _jsonable(value: Any) -> Any:
    """Results as JSON: enums (the trump suit) by their symbol."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Enum):
        return str(value)
    return value


async def timeout_of(core: Core, table: TableRecord) -> int:
    chat = await core.storage.get_chat(table.chat_id)
    return chat.turn_timeout if chat else 60


def plan_deadlines(core: Core, table: TableRecord, match: Match, timeout: int) -> None:
    """Store the deadline of the seat to move (humans only), so timers survive restarts."""
    now = time.time()
    to_move = None if match.is_over else match.to_move
    for record in table.seats:
        human_turn = (
            record.seat == to_move and record.ai_level is None and not record.away and timeout > 0
        )
        record.deadline = now + timeout * core.settings.timeout_scale if human_turn else None


async def after_change(
    core: Core,
    table: TableRecord,
    match: Match,
    *,
    events: list[Event] | None = None,
    actor: int | None = None,
    started: bool = False,
) -> None:
    """Everything that follows a commit: group posts, message refreshes, notices, next move."""
    events = events or []
    t = await core.chat_t(table.chat_id)
    seats = seat_infos(table)
    for event in events:
        if isinstance(event, DealEnded):
            result = event.result
            played = [side for side in range(match.sides) if side not in _out_before(match, result)]
            text = deal_result_text(
                t,
                result=result,
                players=match.players,
                seats=seats,
                totals=_totals_after(match, result.number),
                sides_in=played,
            )
            core.posts[table.id].append(Screen(text))
            core.repost.add(table.id)
        elif isinstance(event, MatchEnded):
            text = match_result_text(t, result=event.result, players=match.players, seats=seats)
            core.posts[table.id].append(Screen(text))
    if started:
        core.repost.add(table.id)
    mark_table(core, table.id)
    to_move = None if match.is_over else match.to_move
    for record in table.seats:
        if record.user_id is None:
            continue
        if record.seat == to_move and (actor != to_move or started) and not record.away:
            core.notify[table.id].add(record.seat)
        mark_hand(core, table.id, record.seat)
    schedule_next(core, table, match)


def _out_before(match: Match, result: Any) -> set[int]:
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


# ------------------------------------------------------------------ computer moves and timers


def cancel_jobs(core: Core, table_id: int) -> None:
    core.scheduler.cancel(f"ai:{table_id}")
    core.scheduler.cancel(f"timeout:{table_id}")


def schedule_next(core: Core, table: TableRecord, match: Match) -> None:
    cancel_jobs(core, table.id)
    if match.is_over or table.status != "playing" or match.to_move is None:
        return
    ply = match.ply
    table_id = table.id
    if is_computer_turn(table, match):

        async def computer() -> None:
            await computer_move(core, table_id, ply)

        core.scheduler.schedule(f"ai:{table_id}", core.settings.ai_delay, computer)
        return
    deadline = table.seats[match.to_move].deadline
    if deadline is not None:

        async def timeout() -> None:
            await timeout_move(core, table_id, ply)

        core.scheduler.schedule(f"timeout:{table_id}", max(0.0, deadline - time.time()), timeout)
    special_seat = _computer_with_special(table, match)
    if special_seat is not None:
        # A computer holding a molodka or Moscow may take the lead out of turn, like a person.
        async def special() -> None:
            await special_move(core, table_id, ply, special_seat)

        core.scheduler.schedule(f"ai:{table_id}", core.settings.ai_delay, special)


def _computer_with_special(table: TableRecord, match: Match) -> int | None:
    for record in table.seats:
        seat = record.seat
        if seat == match.to_move or not (record.ai_level is not None or record.away):
            continue
        if any(a.verb.is_special for a in match.legal_actions(seat)):
            return seat
    return None


async def special_move(core: Core, table_id: int, ply: int, seat: int) -> None:
    async with core.table_lock(table_id):
        table = await core.storage.get_table(table_id)
        if table is None or table.status != "playing":
            return
        match = core.match_of(table)
        if match.ply != ply or _computer_with_special(table, match) != seat:
            return
        level = table.seats[seat].ai_level or core.settings.default_ai_level
        action = await declare_special(match, seat, level, seed=table.seed + ply)
        if action is not None:
            await commit(core, table, match, action, by="computer")


async def computer_move(core: Core, table_id: int, ply: int) -> None:
    async with core.table_lock(table_id):
        table = await core.storage.get_table(table_id)
        if table is None or table.status != "playing":
            return
        match = core.match_of(table)
        if match.ply != ply or match.to_move is None or not is_computer_turn(table, match):
            return
        record = table.seats[match.to_move]
        level = record.ai_level or core.settings.default_ai_level
        action = await choose_action(match, match.to_move, level, seed=table.seed + ply)
        await commit(core, table, match, action, by="computer")


async def timeout_move(core: Core, table_id: int, ply: int) -> None:
    async with core.table_lock(table_id):
        table = await core.storage.get_table(table_id)
        if table is None or table.status != "playing":
            return
        match = core.match_of(table)
        seat = match.to_move
        if match.ply != ply or seat is None or is_computer_turn(table, match):
            return
        record = table.seats[seat]
        record.timeouts += 1
        t = await core.chat_t(table.chat_id)
        name = escape(record.name)
        if record.timeouts >= MAX_TIMEOUTS:
            record.away = True
            note = t._(
                "⏰ {name} ran out of time again — a computer plays for them until they are back.",
                name=name,
            )
        else:
            note = t._("⏰ {name} ran out of time — a computer played for them.", name=name)
        action = await choose_action(
            match, seat, core.settings.default_ai_level, seed=table.seed + ply
        )
        await commit(core, table, match, action, by="timeout", note=note)


# ------------------------------------------------------------------ live messages


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
        table = await core.storage.get_table(table_id)
        if table is None or table.match_state is None:
            return
        match = core.match_of(table)
        t = await core.chat_t(table.chat_id)
        note = core.notes.get(table_id)
        lines = [f"\n{note}"] if note else []
        screen = table_screen(t, view=match.view(None), seats=seat_infos(table), deal_lines=lines)
        if table.status == "cancelled":
            screen = Screen(screen.text + "\n\n✖️ " + t._("The table was cancelled."))
        posts = core.posts.pop(table_id, [])
        repost = table_id in core.repost or table.table_message_id is None
        core.repost.discard(table_id)
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
        table = await core.storage.get_table(table_id)
        if table is not None:
            table.table_message_id = new_id
            await core.storage.save_table(table, expected_version=table.version)


async def _refresh_hand(core: Core, table_id: int, seat: int) -> None:
    async with core.table_lock(table_id):
        table = await core.storage.get_table(table_id)
        if table is None or table.match_state is None or seat >= len(table.seats):
            return
        record = table.seats[seat]
        if record.user_id is None:
            return
        user = await core.storage.get_user(record.user_id)
        chat = await core.storage.get_chat(table.chat_id)
        t = core.user_t(user)
        match = core.match_of(table)
        view = match.view(seat)
        if table.status == "cancelled":
            screen = Screen(
                t._("The table in {chat} was cancelled.", chat=escape(chat.title if chat else ""))
            )
        else:
            screen = hand_screen(
                t,
                view=view,
                seats=seat_infos(table),
                chat_title=chat.title if chat else "",
                table_id=table_id,
                ply=match.ply,
                selection=[Card.parse(c) for c in record.selection],
                away=record.away,
            )
        notify = seat in core.notify[table_id] and view.to_move == seat
        core.notify[table_id].discard(seat)
        my_turn = view.to_move == seat and not record.away and table.status == "playing"
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
            text = "🔔 " + t._("Your turn in {chat}!", chat=escape(chat.title if chat else ""))
            new_notice = await core.messenger.send(private_chat, Screen(text), notify=True)
        elif not my_turn:
            new_notice = None
        if notice_id is not None and notice_id != new_notice:
            await core.messenger.delete(private_chat, notice_id)
    except Unreachable:
        await _unreachable(core, table_id, seat)
        return
    if (new_hand, new_notice) != (hand_id, notice_id):
        async with core.table_lock(table_id):
            table = await core.storage.get_table(table_id)
            if table is not None and seat < len(table.seats):
                table.seats[seat].hand_message_id = new_hand
                table.seats[seat].notice_message_id = new_notice
                await core.storage.save_table(table, expected_version=table.version)


async def _unreachable(core: Core, table_id: int, seat: int) -> None:
    """A player blocked the bot: a computer plays for them, and the table says so."""
    async with core.table_lock(table_id):
        table = await core.storage.get_table(table_id)
        if table is None or table.status != "playing":
            return
        record = table.seats[seat]
        if record.user_id is not None:
            await core.storage.set_can_message(record.user_id, False)
        if record.away:
            return
        record.away = True
        match = core.match_of(table)
        t = await core.chat_t(table.chat_id)
        core.notes[table_id] = t._(
            "📵 I cannot reach {name} in private — a computer plays for them. "
            "Open a chat with me and press “I'm back”.",
            name=escape(record.name),
        )
        plan_deadlines(core, table, match, await timeout_of(core, table))
        await core.storage.save_table(
            table,
            expected_version=table.version,
            log=[
                LogEntry(
                    kind="unreachable",
                    ply=match.ply,
                    seat=seat,
                    text="blocked",
                    data=None,
                    by="system",
                )
            ],
        )
    mark_table(core, table_id)
    schedule_next(core, table, match)


async def user_is_back(core: Core, user_id: int) -> None:
    """After /start in private: re-send the hand of a running match (it may have failed before)."""
    table = await core.storage.active_table_for_user(user_id)
    if table is None or table.status != "playing":
        return
    seat = seat_of_user(table, user_id)
    if seat is not None:
        async with core.table_lock(table.id):
            fresh = await core.storage.get_table(table.id)
            if fresh is None:
                return
            old_hand = fresh.seats[seat].hand_message_id
            fresh.seats[seat].hand_message_id = None
            await core.storage.save_table(fresh, expected_version=fresh.version)
        if old_hand is not None:  # the new hand goes to the bottom of the chat; one hand only
            await core.messenger.delete(user_id, old_hand)
        mark_hand(core, table.id, seat)


async def close_hands(core: Core, table: TableRecord) -> None:
    """A cancelled table: the group's table and every hand say so (the keyboards go)."""
    mark_table(core, table.id)
    for record in table.seats:
        if record.user_id is not None:
            mark_hand(core, table.id, record.seat)


# ------------------------------------------------------------------ match records


def match_record(table: TableRecord, match: Match) -> MatchRecord:
    """The finished match as the ladder stores it, with each player's numbers."""
    result = match.result
    assert result is not None
    players: list[MatchPlayerRecord] = []
    for record in table.seats:
        side = match.side_of(record.seat)
        deals_won = deals_lost = eggs = queens = 0
        tricks = points = 0
        for deal in match.deal_results:
            award = deal.defeat_points[side]
            if award > 0:
                deals_lost += 1
            elif any(deal.defeat_points):
                deals_won += 1
            eggs += deal.eggs
            if deal.queen_caught and deal.queen_side is not None and deal.queen_side != side:
                queens += 1
            tricks += deal.tricks[side]
            points += deal.card_points[side]
        players.append(
            MatchPlayerRecord(
                seat=record.seat,
                side=side,
                user_id=record.user_id,
                name=record.name,
                ai_level=record.ai_level,
                won=side in result.winners,
                goat=side == result.goat,
                defeat_points=result.defeat_points[side],
                deals_won=deals_won,
                deals_lost=deals_lost,
                eggs=eggs,
                queens_caught=queens,
                tricks=tricks,
                card_points=points,
            )
        )
    return MatchRecord(
        table_id=table.id,
        chat_id=table.chat_id,
        variant=table.variant,
        players=len(table.seats),
        started_at=table.created_at,
        finished_at=table.finished_at or time.time(),
        deals=result.deals,
        goat_with_eggs=result.goat_with_eggs,
        result=_jsonable(asdict(result)),
        players_list=players,
    )


# ------------------------------------------------------------------ restart


async def resume_all(core: Core) -> int:
    """After a (re)start: re-render every unfinished table and re-arm its timers."""
    from .lobby import refresh_lobby

    tables = await core.storage.active_tables()
    for table in tables:
        if table.status == "lobby":
            await refresh_lobby(core, table.id)
            continue
        match = core.match_of(table)
        mark_table(core, table.id)
        for record in table.seats:
            if record.user_id is not None:
                mark_hand(core, table.id, record.seat)
        schedule_next(core, table, match)
    return len(tables)
