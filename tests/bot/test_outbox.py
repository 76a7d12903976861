"""The outbox (storage), the budget and the sender's order: what the bot owes Telegram is kept
until Telegram took it, merged where it can be, and spent where players feel it first."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from service_fakes import FakeMessenger, make_core
from storage_targets import Target

from bot.screen import Screen
from bot.service.budget import Budget, Limits, Window
from bot.service.ports import Transient
from bot.service.sender import Sender, heads
from bot.service.urgency import PRESSER_PATIENCE, TURN_FIRST
from bot.storage import OutboxKind, Owed, Priority, SqliteStorage, Storage


@pytest.fixture
async def storage(target: Target) -> AsyncIterator[Storage]:
    store = await target.open()
    yield store
    await store.close()


def hand_mark(priority: Priority, *, renew: bool = False, at: float = 0.0) -> Owed:
    return Owed(OutboxKind.HAND, 101, priority, 7, 1, renew=renew, not_before=at)


def post(text: str, chat: int = -100) -> Owed:
    return Owed(OutboxKind.POST, chat, Priority.GROUP, 7, text=text)


async def test_marks_of_one_message_merge_and_posts_stay_apart(storage: Storage) -> None:
    await storage.outbox.add([hand_mark(Priority.WAITING, at=50.0), post("deal 1")])
    await storage.outbox.add([hand_mark(Priority.TURN, renew=True, at=10.0), post("deal 2")])
    due = await storage.outbox.due(now=100.0)
    hands = [i for i in due if i.kind is OutboxKind.HAND]
    assert len(hands) == 1  # ten moves, one edit
    assert hands[0].priority is Priority.TURN and hands[0].renew and hands[0].not_before == 10.0
    assert [i.text for i in due if i.kind is OutboxKind.POST] == ["deal 1", "deal 2"]
    assert await storage.outbox.due(now=5.0) == [i for i in due if i.not_before <= 5.0]


async def test_a_mark_made_again_while_it_was_sent_stays_for_the_newer_state(
    storage: Storage,
) -> None:
    await storage.outbox.add([hand_mark(Priority.TURN, renew=True)])
    (sent,) = await storage.outbox.due(now=1.0)
    await storage.outbox.add([hand_mark(Priority.WAITING)])  # a move while it was on its way
    assert not await storage.outbox.done(sent)
    (again,) = await storage.outbox.due(now=1.0)
    assert not again.renew  # the new message was sent; the newer change is an edit
    assert await storage.outbox.done(again)
    assert await storage.outbox.pending() == 0


async def test_finishing_a_row_writes_what_it_owes_in_the_same_transaction(
    storage: Storage,
) -> None:
    await storage.outbox.add([hand_mark(Priority.TURN)])
    (item,) = await storage.outbox.due(now=1.0)
    old = Owed(OutboxKind.DELETE, 101, Priority.CLEANUP, message_id=55)
    assert await storage.outbox.done(item, extra=[old])
    (left,) = await storage.outbox.due(now=1.0)
    assert left.kind is OutboxKind.DELETE and left.message_id == 55


async def test_retries_wait_and_a_dropped_row_is_gone(storage: Storage) -> None:
    await storage.outbox.add([post("result")])
    (item,) = await storage.outbox.due(now=1.0)
    await storage.outbox.retry(item, not_before=30.0)
    assert await storage.outbox.due(now=20.0) == []
    assert await storage.outbox.next_time(now=20.0) == 30.0
    (again,) = await storage.outbox.due(now=31.0)
    assert again.attempts == 1
    await storage.outbox.drop(again)
    assert await storage.outbox.next_time(now=20.0) is None


async def test_a_chat_migration_takes_its_owed_messages_along(storage: Storage) -> None:
    await storage.outbox.add([post("result", chat=-100)])
    await storage.chats.migrate(-100, -1001)
    (item,) = await storage.outbox.due(now=1.0)
    assert item.chat_id == -1001


async def test_a_chat_migration_drops_deletions_of_the_old_groups_messages(
    storage: SqliteStorage,
) -> None:
    # Message 7 of the old group is not message 7 of the supergroup: never delete that one.
    await storage.outbox.add([Owed(OutboxKind.DELETE, -100, Priority.CLEANUP, message_id=7)])
    await storage.chats.migrate(-100, -1001)
    assert await storage.outbox.due(now=1.0) == []


def test_a_window_allows_its_count_then_waits_for_the_oldest_call() -> None:
    window = Window(3, 10.0)
    for now in (0.0, 1.0, 2.0):
        assert window.ready_at(now) == now
        window.spend(now)
    assert window.ready_at(3.0) == 10.0
    assert window.ready_at(3.0, reserve=1) == 11.0
    assert window.ready_at(10.5) == 10.5


def test_the_budget_keeps_groups_under_twenty_a_minute_and_obeys_retry_after() -> None:
    now = [0.0]
    budget = Budget(Limits.of(30, 20, 1), clock=lambda: now[0])
    sent = 0
    while budget.ready_at(-100) <= now[0] and sent < 100:
        budget.spend(-100)
        sent += 1
        now[0] += 1.0
    assert sent == 19  # a little under Telegram's 20
    assert budget.ready_at(-100) == 60.0  # when the first call leaves the minute
    assert budget.ready_at(-100, edit=True) == 63.0  # edits leave room for a deal's result
    budget.block(-100, 5.0)  # the group had spent its minute: only the group waits
    assert budget.ready_at(-100) == 60.0 and budget.ready_at(556) == now[0]
    budget.block(555, 5.0)  # a private chat with calls to spare: the whole bot was too fast
    assert budget.ready_at(556) == now[0] + 5.0
    now[0] = 100.0
    budget.forget_idle()
    assert budget.tracked() == 0


def test_the_sender_takes_posts_of_a_chat_first_then_the_most_felt_rows() -> None:
    rows = [
        Owed(OutboxKind.HAND, 101, Priority.TURN, 7, 1, id=5),
        Owed(OutboxKind.TABLE, -100, Priority.GROUP, 7, renew=True, id=3),
        Owed(OutboxKind.POST, -100, Priority.GROUP, 7, text="result", id=4),
        Owed(OutboxKind.HAND, 102, Priority.WAITING, 7, 2, id=1),
    ]
    ordered = sorted(rows, key=lambda r: (r.priority, r.id))
    picked = heads(ordered)
    assert [(r.chat_id, r.kind) for r in picked] == [
        (101, OutboxKind.HAND),
        (-100, OutboxKind.POST),  # the result before the table below it
        (102, OutboxKind.HAND),
    ]


def test_a_chat_whose_result_waits_for_a_retry_gets_nothing_new_above_it() -> None:
    rows = [
        Owed(OutboxKind.TABLE, -100, Priority.GROUP, 7, renew=True, id=3),
        Owed(OutboxKind.POST, -100, Priority.GROUP, 7, text="deal 2", id=5),
        Owed(OutboxKind.TABLE, -200, Priority.GROUP, 8, id=6),
    ]
    held = {(-100, 7): 4}
    assert [r.id for r in heads(rows, held=held)] == [6]  # post 4 waits: 5 and 3 wait
    assert [r.id for r in heads(rows, held={(-100, 7): 9})] == [5, 6]  # an older post may go
    edit = Owed(OutboxKind.TABLE, -100, Priority.GROUP, 7, id=3)
    assert [r.id for r in heads([edit], held=held)] == [3]  # an edit in place may go


def test_a_result_waiting_in_one_topic_holds_back_nothing_in_the_others() -> None:
    # Two tables of one forum group, each in its own topic; table 7's result waits (post 4).
    rows = [
        Owed(OutboxKind.POST, -100, Priority.GROUP, 8, text="deal 1 of the other topic", id=5),
        Owed(OutboxKind.TABLE, -100, Priority.GROUP, 8, renew=True, id=6),
        Owed(OutboxKind.POST, -100, Priority.GROUP, 7, text="deal 2", id=7),
    ]
    assert [r.id for r in heads(rows, held={(-100, 7): 4})] == [5]


def test_the_budget_paces_a_burst_over_the_second() -> None:
    now = [0.0]
    budget = Budget(Limits.of(30, 20, 1), clock=lambda: now[0])
    assert budget.room() == 7  # a quarter of the 25 a second the bot allows itself (rounded up)
    for chat in range(101, 108):
        assert budget.ready_at(chat) == 0.0
        budget.spend(chat)
    assert budget.room() == 0
    assert budget.ready_at(200) == 0.25  # the eighth call waits for the next quarter second
    now[0] = 0.25
    assert budget.room() == 7


def test_the_budget_is_busy_while_more_than_half_its_last_seconds_are_spent() -> None:
    now = [0.0]
    budget = Budget(Limits.of(30, 20, 1), clock=lambda: now[0])  # 25 a second: 125 in 5 s
    for call in range(62):  # 62 of 125: half the budget, not busy yet
        now[0] = call / 13
        budget.spend(call)
    assert not budget.busy()
    budget.spend(1000)
    assert budget.busy()
    now[0] += 5.0  # those calls are past
    assert not budget.busy()


async def test_the_sender_starts_no_more_calls_than_the_budget_holds_the_most_felt_first(
    tmp_path: Path,
) -> None:
    store = await SqliteStorage.open(str(tmp_path / "kozel.sqlite3"))
    core = make_core(store, FakeMessenger())
    core.budget = Budget(Limits(overall=(2, 1.0), pace=(2, 1.0)))
    felt = [Priority.WAITING, Priority.TURN, Priority.CLEANUP, Priority.PRESSER]
    await store.outbox.add([Owed(OutboxKind.HAND, 101 + i, p, 7, i) for i, p in enumerate(felt)])
    sender = Sender(core)
    await sender.step()
    started = sorted(sender._in_flight)
    for task in sender._in_flight.values():
        task.cancel()
    await store.close()
    assert started == [102, 104]  # the turn and the presser's hand; the others wait


def test_a_row_that_waited_long_never_goes_before_a_turn_or_a_trick_end() -> None:
    now = 1000.0
    rows = [
        Owed(OutboxKind.HAND, 101, Priority.ECHO, 7, 1, id=1, created_at=now - 60),
        Owed(OutboxKind.TABLE, -100, Priority.GROUP, 7, id=2, created_at=now - 60),
        Owed(OutboxKind.HAND, 102, Priority.TURN, 7, 2, id=3, created_at=now),
        Owed(OutboxKind.TABLE, -200, Priority.TURN, 8, id=4, created_at=now - 0.5),
        Owed(OutboxKind.HAND, 103, Priority.WAITING, 7, 3, id=5, created_at=now - 1),
    ]
    ordered = sorted(rows, key=lambda r: (r.priority, r.id))
    # The urgent ones first (the older of them first); the aged ones after, still by age.
    assert [r.id for r in heads(ordered, now=now)] == [4, 3, 1, 2, 5]


def test_a_lobby_waiting_past_the_pressers_patience_goes_before_fresh_turns() -> None:
    # When the turns take nearly the whole budget, a new table's lobby still goes: after the
    # patience it goes before the turns just owed, never before one that waited a while.
    now = 1000.0
    late = PRESSER_PATIENCE + 6
    fresh = TURN_FIRST / 2
    rows = [
        Owed(OutboxKind.LOBBY, -300, Priority.PRESSER, 9, id=1, created_at=now - late),
        Owed(OutboxKind.LOBBY, -400, Priority.PRESSER, 10, id=2, created_at=now - 5),
        Owed(OutboxKind.HAND, 102, Priority.TURN, 7, 2, id=3, created_at=now - fresh),
        Owed(OutboxKind.HAND, 103, Priority.TURN, 7, 3, id=4, created_at=now - 2 * TURN_FIRST),
        Owed(OutboxKind.HAND, 104, Priority.WAITING, 7, 1, id=5, created_at=now - 600),
    ]
    ordered = sorted(rows, key=lambda r: (r.priority, r.id))
    # the turn that waited a while; the lobby past its patience; the fresh turn; the lobby
    # within its patience; a waiting hand never goes before a turn, however long it waited
    assert [r.id for r in heads(ordered, now=now)] == [4, 1, 3, 2, 5]


def test_group_edits_between_trick_ends_and_waiting_hands_leave_room_for_the_urgent() -> None:
    now = [0.0]
    budget = Budget(Limits.of(30, 20, 1), clock=lambda: now[0])
    between = budget.reserve_for(-100, table_edit=True, priority=Priority.GROUP)
    trick_end = budget.reserve_for(-100, table_edit=True, priority=Priority.TURN)
    assert (between, trick_end) == (4, 0)
    for _ in range(19 - 3 - between):  # what the group's minute allows edits between tricks
        assert budget.ready_at(-100, edit=True, reserve=between) == now[0]
        budget.spend(-100)
        now[0] += 1.0
    assert budget.ready_at(-100, edit=True, reserve=between) > now[0]  # these wait now ...
    assert budget.ready_at(-100, edit=True, reserve=trick_end) == now[0]  # a trick's end goes
    # A private chat: a waiting hand or an echo leaves the last call of the window to a turn.
    waiting = budget.reserve_for(101, table_edit=False, priority=Priority.ECHO)
    turn = budget.reserve_for(101, table_edit=False, priority=Priority.TURN)
    budget.spend(101)
    budget.spend(101)
    assert budget.ready_at(101, reserve=waiting) > now[0]
    assert budget.ready_at(101, reserve=turn) == now[0]


async def test_one_look_reads_what_is_due_what_is_held_and_when_more_is(storage: Storage) -> None:
    await storage.outbox.add([hand_mark(Priority.WAITING, at=50.0), post("deal 1")])
    await storage.outbox.add([post("deal 2", chat=-200), post("deal 3", chat=-200)])
    (first, *_) = [i for i in await storage.outbox.due(now=1.0) if i.chat_id == -200]
    await storage.outbox.retry(first, 30.0)  # a result waits for a retry: its table waits
    for now in (1.0, 40.0, 60.0):
        due, held, later = await storage.outbox.look(now)
        assert due == await storage.outbox.due(now)
        assert held == await storage.outbox.held(now)
        assert later == await storage.outbox.next_time(now)
    assert await storage.outbox.look(1.0) != await storage.outbox.look(60.0)


async def test_a_post_that_fails_while_the_outbox_is_read_still_holds_back_the_next_one(
    tmp_path: Path,
) -> None:
    """Deal 1's result fails (a 500) just while the sender reads which posts wait for a
    retry: that read is stale, so deal 2's result must not go out above it meanwhile."""
    store = await SqliteStorage.open(str(tmp_path / "kozel.sqlite3"))
    release = asyncio.Event()

    class Failing(FakeMessenger):
        async def send(
            self,
            chat_id: int,
            screen: Screen,
            *,
            notify: bool = True,
            thread_id: int | None = None,
        ) -> int:
            if screen.text == "deal 1":
                await release.wait()
                raise Transient("500: Internal Server Error")
            return await super().send(chat_id, screen, notify=notify, thread_id=thread_id)

    messenger = Failing()
    core = make_core(store, messenger)
    sender = Sender(core)
    await store.outbox.add([post("deal 1")])
    await sender.step()  # deal 1 goes (and hangs until released)
    await store.outbox.add([post("deal 2")])
    read = store.outbox.look

    async def read_then_fail(
        now: float, limit: int = 500
    ) -> tuple[list[Owed], dict[tuple[int, int | None], int], float | None]:
        found = await read(now, limit)  # before deal 1's retry is written: nothing held
        release.set()
        await asyncio.gather(*sender._in_flight.values())  # deal 1 fails, its retry is booked
        return found

    store.outbox.look = read_then_fail  # type: ignore[method-assign]
    async with asyncio.timeout(10):  # a read that is not this one would leave deal 1 hanging
        await sender.step()
        store.outbox.look = read  # type: ignore[method-assign]
        await asyncio.gather(*sender._in_flight.values())
        await sender.step()
        await asyncio.gather(*sender._in_flight.values())
    await store.close()
    assert messenger.texts(-100) == []  # deal 1 waits for its retry; deal 2 waits behind it
