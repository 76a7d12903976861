"""The play use cases in process, with fake ports: timers, stale and foreign presses, a player
the bot cannot reach, and a restart — the paths the e2e suite also walks, here in milliseconds."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest
from service_fakes import (
    GROUP,
    PEOPLE,
    FakeMessenger,
    due_in,
    fire,
    fire_next,
    make_core,
    play_until,
    press,
    reload,
    seat_four,
    settle,
    stored,
)

from bot.callback import Op, encode_action, encode_card
from bot.render.choice import sensible_plays
from bot.service import deadlines, moves
from bot.service.core import Core
from bot.service.restart import resume_all
from bot.service.timer_loop import TimerRunner
from bot.storage import Actor, LogKind, OutboxKind, Priority, SqliteStorage, TableRecord
from kozel_rules.action import Verb
from kozel_rules.card import Card
from kozel_rules.view import SeatView


def to_move(core: Core, table: TableRecord) -> int:
    seat = core.matches.of(table).to_move
    assert seat is not None
    return seat


def group_table_text(messenger: FakeMessenger, table: TableRecord) -> str:
    assert table.table_message_id is not None
    return messenger.messages[table.table_message_id].screen.text


async def test_a_timeout_plays_for_the_absent_player_and_twice_hands_the_seat_over(
    core: Core, messenger: FakeMessenger
) -> None:
    table = await seat_four(core, timer=30)
    first = to_move(core, table)
    assert await due_in(core, table.id, "timeout") == pytest.approx(30, abs=1)

    await fire(core, table.id, "timeout")
    await settle(core)
    table = await reload(core, table)
    match = core.matches.of(table)
    assert match.ply == 1
    assert table.seats[first].timeouts == 1 and not table.seats[first].away
    actions = await core.storage.tables.log(table.id, LogKind.ACTION)
    assert [(e.seat, e.by) for e in actions] == [(first, Actor.TIMER)]
    assert "ran out of time — a computer played for them" in group_table_text(messenger, table)

    # The next person's timer runs now; let the match come back round to the first seat.
    while to_move(core, table) != first:
        await fire(core, table.id, "timeout")
        table = await reload(core, table)
    await fire(core, table.id, "timeout")
    await settle(core)
    table = await reload(core, table)
    assert table.seats[first].away  # a second timeout in a row: the computer keeps the seat
    assert "until they are back" in group_table_text(messenger, table)


async def test_a_stale_press_changes_nothing_and_refreshes_the_hand(core: Core) -> None:
    table = await seat_four(core)
    seat = to_move(core, table)
    match = core.matches.of(table)
    action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
    stale = press(table, Op.ACT, PEOPLE[seat], version=match.ply + 1, arg=encode_action(action))

    answer = await moves.act(core, stale)

    assert answer.text == "That button is out of date — your cards have been updated."
    after = await reload(core, table)
    assert after.version == table.version and core.matches.of(after).ply == match.ply


async def test_presses_on_cards_that_are_not_yours_are_refused(core: Core) -> None:
    table = await seat_four(core)
    seat = to_move(core, table)
    match = core.matches.of(table)
    action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
    stranger = type(PEOPLE[0])(999, "Eve", None, "en")
    other = PEOPLE[(seat + 1) % 4]

    refused = await moves.act(
        core, press(table, Op.ACT, stranger, version=match.ply, arg=encode_action(action))
    )
    not_your_turn = await moves.act(
        core, press(table, Op.ACT, other, version=match.ply, arg=encode_action(action))
    )

    assert refused.text == "These are not your cards." and refused.alert
    assert not_your_turn.alert  # the seat's own press of another seat's cards is illegal
    after = await reload(core, table)
    assert after.version == table.version and core.matches.of(after).ply == match.ply


async def test_a_player_who_blocked_the_bot_is_played_for_and_the_table_says_so(
    core: Core, messenger: FakeMessenger
) -> None:
    table = await seat_four(core)
    seat = to_move(core, table)
    match = core.matches.of(table)
    action = next(a for a in match.legal_actions(seat) if a.verb is Verb.LEAD)
    following = (seat + 1) % 4
    messenger.unreachable.add(PEOPLE[following].user_id)

    answer = await moves.act(
        core, press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=encode_action(action))
    )
    await settle(core)  # every hand is refreshed after the move; one of them fails

    assert answer.text.startswith("Played: ")
    table = await reload(core, table)
    assert table.seats[following].away
    user = await core.storage.users.get(PEOPLE[following].user_id)
    assert user is not None and not user.can_message
    assert "I cannot reach" in group_table_text(messenger, table)
    assert to_move(core, table) == following
    assert "ai" in await stored(core, table.id)  # a computer plays their turn now
    await fire(core, table.id, "ai")
    table = await reload(core, table)
    logged = await core.storage.tables.log(table.id, LogKind.ACTION)
    assert [(e.seat, e.by) for e in logged] == [(seat, Actor.PERSON), (following, Actor.COMPUTER)]


async def test_a_player_who_blocked_the_bot_costs_one_refused_call_not_one_per_move(
    core: Core, messenger: FakeMessenger
) -> None:
    table = await seat_four(core)
    seat = to_move(core, table)
    match = core.matches.of(table)
    action = next(a for a in match.legal_actions(seat) if a.verb is Verb.LEAD)
    following = (seat + 1) % 4
    blocked = PEOPLE[following].user_id
    messenger.unreachable.add(blocked)
    await moves.act(
        core, press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=encode_action(action))
    )
    await settle(core)
    assert messenger.refused == [blocked]
    # The game goes on (computers for everybody, to be quick): every move marks every hand,
    # and the blocked player's is not sent again.
    table = await reload(core, table)
    for record in table.seats:
        record.away = True
    await core.storage.tables.save(
        table, expected_version=table.version, timers=deadlines.timer_rows(core, table)
    )
    for _ in range(12):
        assert await fire_next(core)
        await settle(core)
    moved = await core.storage.tables.log(table.id, LogKind.ACTION)
    assert len(moved) >= 10
    assert messenger.refused == [blocked], f"{len(messenger.refused)} calls refused"


async def test_a_timer_stored_due_now_wakes_a_runner_that_sleeps_long(
    core: Core, messenger: FakeMessenger
) -> None:
    runner = core.scheduler
    assert isinstance(runner, TimerRunner)
    runner.poll = 60.0  # left alone, it would look again only in a minute
    table = await seat_four(core)
    seat = to_move(core, table)
    action = next(a for a in core.matches.of(table).legal_actions(seat) if a.verb is Verb.LEAD)
    following = (seat + 1) % 4
    messenger.unreachable.add(PEOPLE[following].user_id)
    looking = asyncio.create_task(runner.run())
    try:
        await asyncio.sleep(0.2)  # it looked: nothing is due, it sleeps
        version = core.matches.of(table).ply
        await moves.act(
            core, press(table, Op.ACT, PEOPLE[seat], version=version, arg=encode_action(action))
        )
        await settle(core)  # the hand cannot be delivered: a computer's move is due now
        async with asyncio.timeout(5):
            while len(await core.storage.tables.log(table.id, LogKind.ACTION)) < 2:
                await asyncio.sleep(0.02)
    finally:
        looking.cancel()
        await runner.stop()
    logged = await core.storage.tables.log(table.id, LogKind.ACTION)
    assert [(e.seat, e.by) for e in logged] == [(seat, Actor.PERSON), (following, Actor.COMPUTER)]


async def test_after_a_restart_what_was_owed_is_delivered_and_timers_rearmed(
    storage: SqliteStorage, core: Core, messenger: FakeMessenger
) -> None:
    table = await seat_four(core, timer=120, deliver=False)  # the process dies before sending
    assert table.table_message_id is None and not messenger.in_chat(PEOPLE[0].user_id)

    fresh = make_core(storage, messenger)  # a new process: nothing in memory
    assert await resume_all(fresh) == 1
    await settle(fresh)

    assert await due_in(fresh, table.id, "timeout") <= 120
    again = await reload(fresh, table)
    assert "leads." in group_table_text(messenger, again)
    for person in PEOPLE:
        hands = [m for m in messenger.in_chat(person.user_id) if m.screen.buttons]
        assert len(hands) == 1  # every hand arrived once
    assert await storage.outbox.pending() == 0


async def test_a_finished_match_leaves_nothing_behind_in_memory(
    storage: SqliteStorage, messenger: FakeMessenger
) -> None:
    core = make_core(storage, messenger, ai_level="random")
    table = await seat_four(core, timer=30)
    for _ in range(2000):  # nobody presses: timers, then computers, play the match out
        if not await fire_next(core):
            break
    await settle(core)
    table = await reload(core, table)
    assert table.status == "finished"
    assert any("The match is over" in text for text in messenger.texts(GROUP.chat_id))
    assert await storage.outbox.pending() == 0
    assert await storage.timers.tables() == set()
    held = core.in_memory()
    assert held["locks"] == 0 and held["matches"] == 0


async def test_a_tap_while_another_plays_is_answered_without_a_write_or_an_edit(
    core: Core, messenger: FakeMessenger
) -> None:
    table = await seat_four(core)
    match = core.matches.of(table)
    seat = (to_move(core, table) + 1) % 4
    card = match.view(seat).hand[0]
    edits = sum(m.edits for m in messenger.messages.values())
    for ply in (match.ply, max(0, match.ply - 3)):  # from this hand and from an older one
        tap = press(table, Op.TOGGLE, PEOPLE[seat], version=ply, arg=encode_card(card))
        answer = await moves.toggle(core, tap)
        assert answer.text == "Not your turn yet." and not answer.alert
    assert await core.storage.outbox.pending() == 0
    await settle(core)
    assert sum(m.edits for m in messenger.messages.values()) == edits
    assert (await reload(core, table)).version == table.version


async def test_a_tap_that_selects_says_the_selection_and_its_edit_waits_last(
    core: Core, messenger: FakeMessenger
) -> None:
    def shared(view: SeatView) -> list[Card]:
        """Cards in more than one play whose first tap selects (the tap rule: not exactly one
        sensible play; a card that may beat an opponent or go face down is beaten with at
        once, and the deal is random, so counting plays alone failed now and then)."""
        legal = [a for a in view.legal if not a.verb.is_special]
        return [
            c
            for a in legal
            for c in a.cards
            if sum(c in b.cards for b in legal) > 1 and len(sensible_plays(view, c)) != 1
        ]

    table, seat = await play_until(core, await seat_four(core), lambda v: bool(shared(v)))
    match = core.matches.of(table)
    card = shared(match.view(seat))[0]
    tap = press(table, Op.TOGGLE, PEOPLE[seat], version=match.ply, arg=encode_card(card))
    answer = await moves.toggle(core, tap)
    assert answer.text.startswith(f"Selected: {card} — ") and not answer.alert
    owed = await core.storage.outbox.due(time.time() + 60)
    assert [(o.kind, o.seat, o.priority) for o in owed] == [(OutboxKind.HAND, seat, Priority.ECHO)]
    answer = await moves.toggle(core, tap)  # and out again
    assert answer.text == "Nothing selected."
    assert len(await core.storage.outbox.due(time.time() + 60)) == 1  # merged into one edit
    clear = press(table, Op.CLEAR, PEOPLE[seat], version=match.ply)
    await settle(core)
    assert (await moves.clear(core, clear)).text == "Nothing selected."
    assert await core.storage.outbox.pending() == 0  # nothing chosen: nothing to write


async def test_a_trick_end_is_owed_to_the_group_at_once_and_first(core: Core) -> None:
    table = await seat_four(core)
    for _ in range(12):
        table = await reload(core, table)
        match = core.matches.of(table)
        seat = to_move(core, table)
        action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
        before = match.copy()
        events = before.apply(action)
        ended = any(type(e).__name__ == "TrickTaken" for e in events)
        made = await moves.act(
            core, press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=encode_action(action))
        )
        assert (made.text or "").startswith("Played")
        rows = [o for o in await core.storage.outbox.due(time.time() + 60) if o.chat_id < 0]
        group = next(o for o in rows if o.kind is OutboxKind.TABLE)
        if ended:
            assert group.priority is Priority.TURN and group.not_before <= time.time()
            break
        assert group.priority is Priority.GROUP  # between trick ends: waits and merges
        await settle(core)
    else:
        pytest.fail("no trick ended in 12 plays")


async def test_on_a_quiet_evening_a_players_own_play_shows_in_their_hand_at_once(
    core: Core,
) -> None:
    core.settings = dataclasses.replace(core.settings, hand_interval=4.0)
    table = await seat_four(core)
    match = core.matches.of(table)
    seat = to_move(core, table)
    lead = next(a for a in match.legal_actions(seat) if a.verb is Verb.LEAD)
    cb = press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=encode_action(lead))
    assert (await moves.act(core, cb)).text.startswith("Played: ")
    soon = time.time() + 1.0
    hands = [o.seat for o in await core.storage.outbox.due(soon) if o.kind is OutboxKind.HAND]
    assert sorted(hands) == sorted([seat, (seat + 1) % 4])  # no prompt left over from the turn


async def test_a_players_own_play_leaves_the_hand_to_the_next_change_and_a_tap_shows_it(
    core: Core, messenger: FakeMessenger, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(core.budget, "busy", lambda: True)  # a busy evening
    core.settings = dataclasses.replace(core.settings, hand_interval=4.0)
    table = await seat_four(core)
    match = core.matches.of(table)
    seat = to_move(core, table)
    lead = next(a for a in match.legal_actions(seat) if a.verb is Verb.LEAD)
    shown_at = match.ply
    answer = await moves.act(
        core, press(table, Op.ACT, PEOPLE[seat], version=shown_at, arg=encode_action(lead))
    )
    assert answer.text.startswith("Played: ")
    # Their answer said the play: their hand's edit waits (for a draw, or their next turn).
    soon = time.time() + 1.0
    hands = [o.seat for o in await core.storage.outbox.due(soon) if o.kind is OutboxKind.HAND]
    assert hands == [(seat + 1) % 4]
    later = await core.storage.outbox.due(time.time() + 60)
    mine = [o for o in later if o.kind is OutboxKind.HAND and o.seat == seat]
    assert [o.priority for o in mine] == [Priority.WAITING]

    # A tap on that hand (still drawn at the turn they played) says the play and shows it.
    card = next(c for c in match.view(seat).hand if c not in lead.cards)
    tap = press(table, Op.TOGGLE, PEOPLE[seat], version=shown_at, arg=encode_card(card))
    answer = await moves.toggle(core, tap)
    played = " ".join(str(c) for c in lead.cards)
    assert answer.text == f"Not your turn yet — you played {played}." and not answer.alert
    now = [o for o in await core.storage.outbox.due(soon) if o.seat == seat]
    assert [o.priority for o in now] == [Priority.PRESSER]
    again = await moves.toggle(core, tap)  # the same answer; the hand is owed once
    assert again.text == answer.text
    assert [o.version for o in await core.storage.outbox.due(soon) if o.seat == seat] == [
        now[0].version
    ]
    await settle(core)
    table = await reload(core, table)
    hand = messenger.messages[table.seats[seat].hand_message_id or 0].screen.text
    assert "Waiting for the others" in hand and "👉" not in hand
    # From the hand shown now, a tap is the usual "not your turn" (no write, no edit).
    fresh = press(
        table, Op.TOGGLE, PEOPLE[seat], version=core.matches.of(table).ply, arg=encode_card(card)
    )
    assert (await moves.toggle(core, fresh)).text == "Not your turn yet."


async def test_a_play_that_brings_new_cards_shows_them_as_a_waiting_hand_would(
    core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(core.budget, "busy", lambda: True)  # a busy evening
    core.settings = dataclasses.replace(core.settings, hand_interval=4.0)
    table = await seat_four(core)  # street: a trick's end draws from the stock
    waits: list[float] = []
    for _ in range(8):
        match = core.matches.of(table)
        seat = to_move(core, table)
        action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
        before = match.view(seat).hand
        cb = press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=encode_action(action))
        assert (await moves.act(core, cb)).text.startswith("Played: ")
        table = await reload(core, table)
        after = core.matches.of(table)
        owed = await core.storage.outbox.due(time.time() + 60)
        row = next(o for o in owed if o.kind is OutboxKind.HAND and o.seat == seat)
        if after.to_move != seat:
            drew = not set(after.view(seat).hand) <= set(before)
            waits.append(row.not_before - time.time())
            assert waits[-1] == pytest.approx(4.0 if drew else 12.0, abs=1.0)
        await settle(core)
    assert waits and any(w < 6 for w in waits) and any(w > 6 for w in waits)
