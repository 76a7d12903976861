"""Two workers on one database, in one process: each has its own store connection, timer
runner and sender, as two worker processes would. Timers and outbox rows are claimed, so each
runs once; a worker that dies holding claims leaves them to the other when they run out."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest
from service_fakes import GROUP, FakeMessenger, seat_four
from storage_targets import Target

from bot.screen import Screen
from bot.service import due_jobs
from bot.service.budget import Budget, Limits
from bot.service.core import Core
from bot.service.retry import retry_stale
from bot.service.running_settings import Settings
from bot.service.sender import Sender
from bot.service.timer_loop import TimerRunner
from bot.storage import (
    LogKind,
    OutboxKind,
    Owed,
    Priority,
    SeatRecord,
    StaleVersionError,
    Storage,
    TableRecord,
    TableStatus,
    Timer,
)
from bot.storage.postgres import LISTENER_NAME

# Workers wait on each other's leases and notifications: little CPU, seconds of wall.
pytestmark = pytest.mark.waits(2)

# Seconds a claim lasts: a dead worker's work waits about this long. A live worker renews a
# chat's claim when less than half is left, at its next look at the outbox: 0.6 s (before)
# left a loaded machine 0.3 s, and a claim that runs out under a delivery still being booked
# lets the other worker send the same row again (delivery is at least once: a duplicate
# 'Deal N is over' would fail the count). 3 s costs the test a few seconds after the kill.
CLAIM = 3.0
WAIT = 60.0  # seconds: only a guard against a hang (a loaded machine is slow, not stuck)
CLOCK_SLACK = 0.5  # seconds the database server's clock, as read from here, may be off


class SlowMessenger(FakeMessenger):
    """Telegram's answers take a moment, as over the network: long enough for the other
    worker to read the same row meanwhile."""

    async def send(
        self, chat_id: int, screen: Screen, *, notify: bool = True, thread_id: int | None = None
    ) -> int:
        await asyncio.sleep(0.03)
        return await super().send(chat_id, screen, notify=notify, thread_id=thread_id)

    async def edit(self, chat_id: int, message_id: int, screen: Screen) -> None:
        await asyncio.sleep(0.03)
        await super().edit(chat_id, message_id, screen)


@dataclass
class Worker:
    core: Core
    runner: TimerRunner
    sender: Sender
    tasks: list[asyncio.Task[None]]

    def kill(self) -> None:
        """Like SIGKILL: everything stops where it is; claims stay in the database."""
        for task in [*self.tasks, *self.runner._running]:
            task.cancel()


def worker(storage: Storage, messenger: FakeMessenger, name: str) -> Worker:
    runner = TimerRunner(storage.timers, holder=name, claim_seconds=CLAIM, poll=0.05)
    settings = Settings(
        ai_delay=0.02,  # a match takes seconds, not a blink: the kill lands mid-match
        table_interval=0.0,
        hand_interval=0.0,
        default_ai_level="random",
        timeout_scale=0.002,  # a 60 s turn times out after 0.12 s: nobody presses here
    )
    core = Core(storage, messenger, runner, settings, Budget(Limits.of(1e4, 1e4, 1e4)))
    runner.bind(lambda due: due_jobs.fire(core, due))
    sender = Sender(core, holder=name, claim_seconds=CLAIM)
    return Worker(core, runner, sender, [])


@asynccontextmanager
async def two_workers(target: Target) -> AsyncIterator[tuple[Worker, Worker, FakeMessenger]]:
    one, two = await target.open(), await target.open()
    messenger = SlowMessenger()  # one Telegram for both
    first, second = worker(one, messenger, "w1"), worker(two, messenger, "w2")
    try:
        yield first, second, messenger
    finally:
        for w in (first, second):
            w.kill()
            await asyncio.gather(*w.tasks, return_exceptions=True)
        await one.close()
        await two.close()


def start(w: Worker) -> None:
    w.tasks = [asyncio.create_task(w.runner.run()), asyncio.create_task(w.sender.run())]


async def until(condition: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not await condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def test_two_workers_play_a_match_out_and_one_dies_midway(target: Target) -> None:
    async with two_workers(target) as (first, second, messenger):
        table = await seat_four(first.core, deliver=False)
        start(first)
        start(second)

        async def moves(n: int) -> bool:
            return len(await first.core.storage.tables.log(table.id, LogKind.ACTION)) >= n

        await until(lambda: moves(12), WAIT, "a dozen moves")
        # The worker that ran the most timers dies (its chain of computer moves stops with
        # it), where a process may die but not with a post on its way: that one would be sent
        # again (delivery is at least once) and the count below would be off by one.
        dead, alive = sorted((first, second), key=lambda w: w.runner.fired, reverse=True)
        while dead.sender._in_flight:
            await asyncio.sleep(0)
        dead.kill()
        killed_at = len(await alive.core.storage.tables.log(table.id, LogKind.ACTION))
        at_kill = await alive.core.storage.tables.get(table.id)
        assert at_kill is not None and at_kill.status == TableStatus.PLAYING
        fired_before = alive.runner.fired

        async def finished() -> bool:
            fresh = await alive.core.storage.tables.get(table.id)
            return fresh is not None and fresh.status == TableStatus.FINISHED

        await until(finished, 5 * WAIT, "the match to end under the other worker")
        await until(lambda: _drained(alive.core), WAIT, "the outbox to drain")

        log = await alive.core.storage.tables.log(table.id)
        plies = [entry.ply for entry in log if entry.kind == LogKind.ACTION]
        assert plies == sorted(set(plies)), "a move was applied twice"
        assert len(plies) > killed_at + 4  # the other worker played on
        assert alive.runner.fired > fired_before
        deals = [entry for entry in log if entry.kind == LogKind.DEAL]
        posted = [
            int(n)
            for text in messenger.texts(GROUP.chat_id)
            for n in re.findall(r"Deal (\d+) is over", text)
        ]
        assert sorted(posted) == [int(entry.text.split()[1]) for entry in deals]
        assert sum("The match is over" in text for text in messenger.texts(GROUP.chat_id)) == 1
        assert await alive.core.storage.timers.of_table(table.id) == []


async def _drained(core: Core) -> bool:
    return await core.storage.outbox.pending() == 0


async def test_a_timer_is_claimed_by_one_worker_until_its_claim_runs_out(target: Target) -> None:
    now = [1000.0]
    one, two = await target.open(clock=lambda: now[0]), await target.open(clock=lambda: now[0])
    try:
        table = await seat_table(one)
        due = Timer("ai", "ai", 3, due_at=1001.0)
        later = Timer("expire", "expire", 0, due_at=5000.0)
        await one.timers.put(table, [due, later])
        assert await one.timers.claim("w1", 10) == []  # not due yet
        now[0] = 1002.0
        claimed = await one.timers.claim("w1", 10)
        assert [t.slot for t in claimed] == ["ai"] and claimed[0].table_id == table
        assert await two.timers.claim("w2", 10) == []  # held by w1
        assert await two.timers.next_time() == 1012.0  # when that claim runs out
        now[0] = 1013.0  # w1 died holding it
        taken = await two.timers.claim("w2", 10)
        assert [t.slot for t in taken] == ["ai"]
        await one.timers.done(claimed[0], "w1")  # too late: w2 holds it now
        assert len(await one.timers.of_table(table)) == 2
        await two.timers.done(taken[0], "w2")
        assert [t.slot for t in await one.timers.of_table(table)] == ["expire"]
        # A worker that starts alone gives back the claims of the dead at once.
        now[0] = 6000.0
        assert [t.slot for t in await one.timers.claim("w1", 10)] == ["expire"]
        await two.timers.release("w2")  # not its claim: it stays
        assert await two.timers.claim("w2", 10) == []
        await two.timers.release(None)
        assert [t.slot for t in await two.timers.claim("w2", 10)] == ["expire"]
    finally:
        await one.close()
        await two.close()


async def test_a_timer_set_again_while_it_runs_stays(target: Target) -> None:
    now = [1000.0]
    store = await target.open(clock=lambda: now[0])
    try:
        table = await seat_table(store)
        await store.timers.put(table, [Timer("ai", "ai", 3, due_at=999.0)])
        (claimed,) = await store.timers.claim("w1", 10)
        record = await store.tables.get(table)
        assert record is not None
        # The move it made saved the table's next wait in the same transaction.
        await store.tables.save(
            record, expected_version=record.version, timers=[Timer("ai", "ai", 4, due_at=1001.0)]
        )
        await store.timers.done(claimed, "w1")
        assert [(t.slot, t.ply) for t in await store.timers.of_table(table)] == [("ai", 4)]
        # A save without timers leaves them; a table that ended has none.
        record.note = "x"
        await store.tables.save(record, expected_version=record.version)
        assert len(await store.timers.of_table(table)) == 1
        record.status = TableStatus.CANCELLED
        await store.tables.save(record, expected_version=record.version, timers=[])
        assert await store.timers.of_table(table) == []
    finally:
        await store.close()


async def test_many_workers_claiming_at_once_each_get_other_timers(target: Target) -> None:
    stores = [await target.open() for _ in range(4)]
    try:
        table_ids = [await seat_table(stores[0], chat_id=-100 - n) for n in range(12)]
        for table_id in table_ids:
            await stores[0].timers.put(table_id, [Timer("ai", "ai", 1, due_at=0.0)])
        claims = await asyncio.gather(
            *(store.timers.claim(f"w{n}", 30, limit=5) for n, store in enumerate(stores))
        )
        got = [t.table_id for batch in claims for t in batch]
        assert sorted(got) == sorted(table_ids)  # every one, none twice
    finally:
        for store in stores:
            await store.close()


async def test_chat_claims_and_live_workers(target: Target) -> None:
    now = [1000.0]
    store = await target.open(clock=lambda: now[0])
    try:
        leases = store.leases
        assert await leases.take_many(["chat:1", "chat:2"], "w1", 5) == {"chat:1", "chat:2"}
        assert await leases.take_many(["chat:2", "chat:3"], "w2", 5) == {"chat:3"}
        await leases.take("worker:w1", "w1", 5)
        await leases.take("worker:w2", "w2", 5)
        assert await leases.live("worker:") == 2
        now[0] = 1006.0  # w1 stopped renewing
        await leases.take("worker:w2", "w2", 5)
        assert await leases.live("worker:") == 1
        assert await leases.take_many(["chat:1"], "w2", 5) == {"chat:1"}
        await leases.forget_expired(1006.0)
        assert await leases.holder("chat:2") is None and await leases.holder("worker:w1") is None
        await leases.release_all("w2")
        assert await leases.live("worker:") == 0
    finally:
        await store.close()


async def test_a_press_that_lost_to_another_worker_is_judged_again() -> None:
    calls = []

    @retry_stale
    async def case(n: int) -> int:
        calls.append(n)
        if len(calls) < 3:
            raise StaleVersionError(1, 1, 2)
        return n

    assert await case(7) == 7 and calls == [7, 7, 7]

    @retry_stale
    async def never(n: int) -> int:
        raise StaleVersionError(1, 1, 2)

    with pytest.raises(StaleVersionError):
        await never(1)


async def seat_table(store: Storage, chat_id: int = -100) -> int:
    table = TableRecord(
        id=0,
        chat_id=chat_id,
        status=TableStatus.PLAYING,
        variant="street",
        creator_id=1,
        seed=1,
        seats=[SeatRecord(seat=0, user_id=None, name="cpu", ai_level="random")],
    )
    created = await store.tables.create(table)
    return created.id


async def test_a_table_saved_by_another_worker_is_heard_on_postgresql(target: Target) -> None:
    if not target.is_postgres:
        pytest.skip("SQLite has no notifications: one process tells its own pages")
    one, two = await target.open(), await target.open()
    try:
        heard: list[int] = []
        changed = asyncio.Event()

        def on_change(table_id: int) -> None:
            heard.append(table_id)
            changed.set()

        listening = asyncio.create_task(one.listen(on_change))
        while not one.listening:
            await asyncio.sleep(0.01)
        table_id = await seat_table(two)
        record = await two.tables.get(table_id)
        assert record is not None
        record.note = "moved elsewhere"
        await two.tables.save(record, expected_version=record.version)
        await asyncio.wait_for(changed.wait(), WAIT)
        assert heard == [table_id]
        listening.cancel()
    finally:
        await one.close()
        await two.close()


async def test_the_listener_hears_again_after_its_connection_is_cut(target: Target) -> None:
    """``pg_terminate_backend`` (or a restart) ends the listening session: the worker listens
    again at once, says it may have missed changes (None), and hears the next ones."""
    if not target.is_postgres:
        pytest.skip("SQLite has no notifications: one process tells its own pages")
    one, two = await target.open(), await target.open()
    heard: list[int | None] = []
    listening = asyncio.create_task(one.listen(heard.append))
    try:
        while not one.listening:
            await asyncio.sleep(0.01)
        # This test's listener only: other tests listen in their own databases meanwhile.
        cut = time.monotonic()
        while not await target.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE application_name = '{LISTENER_NAME}' AND datname = current_database()"
        ):
            assert time.monotonic() - cut < WAIT, "no listening session in pg_stat_activity"
            await asyncio.sleep(0.05)
        # The dip in ``listening`` (/healthz 503) can be shorter than any poll: the listener
        # says it is back by telling None (whatever was saved meanwhile: look again).
        cut = time.monotonic()
        while not heard or not one.listening:
            assert time.monotonic() - cut < WAIT, "the listener did not come back"
            await asyncio.sleep(0.01)
        # None, once; or more if a health check of the new session timed out on a loaded
        # machine (the listener then listens again and says so: that is right too).
        assert heard and set(heard) == {None}, heard
        table_id = await seat_table(two)
        record = await two.tables.get(table_id)
        assert record is not None
        await two.tables.save(record, expected_version=record.version)
        deadline = time.monotonic() + WAIT
        while table_id not in heard:
            assert time.monotonic() < deadline, f"heard only {heard}"
            await asyncio.sleep(0.01)
    finally:
        listening.cancel()
        await one.close()
        await two.close()


async def test_a_retry_after_of_the_bots_own_limit_holds_back_every_worker(
    target: Target,
) -> None:
    async with two_workers(target) as (first, second, _):
        assert second.core.budget.room() > 0
        # The first worker met a 429 while the chat had calls to spare: the bot's own limit.
        assert first.core.budget.block(GROUP.chat_id, 2.0) is None
        await first.sender._tell_retry_after(2.0)
        await second.sender.step()
        assert second.core.budget.room() == 0
        wait = second.core.budget.overall_ready_at() - second.core.budget.clock()
        # About the 2 s told, less the time the step took. The lease is stamped by the
        # database server's clock (PostgreSQL: this host's plus an offset measured over a
        # round trip, off by up to half of one on a loaded machine), the wait by this host's.
        assert 0.0 < wait <= 2.0 + CLOCK_SLACK, wait


async def test_a_chat_stays_with_its_worker_while_its_calls_count_in_the_window(
    target: Target,
) -> None:
    async with two_workers(target) as (first, second, _):
        chat = GROUP.chat_id
        name = f"chat:{chat}"
        store = first.core.storage.leases
        assert await store.take_many([name], "w1", CLAIM) == {name}
        first.sender._claims[chat] = time.time() + CLAIM
        first.core.budget.spend(chat)  # counts for a minute in a group's window
        await asyncio.sleep(CLAIM * 0.6)
        await first.sender._claim([], time.time())  # no row owed there: kept all the same
        await asyncio.sleep(CLAIM * 0.6)
        assert await second.core.storage.leases.take_many([name], "w2", CLAIM) == set()


def test_workers_share_the_bots_limit_with_a_margin() -> None:
    budget = Budget(Limits())
    budget.share(2)
    assert budget._overall.count * 2 <= Limits().overall[0] - 2
    assert budget._pace.count * 2 <= Limits().pace[0]


async def test_a_worker_cut_off_from_telegram_gives_back_its_chat_and_runs_no_timer(
    target: Target,
) -> None:
    """A worker whose calls to Telegram fail (its own path is cut) holds nothing: the chat it
    sent to goes to the other worker at once (its failed calls would have kept it, a minute),
    and the timers (turn timeouts of hands it could not deliver) are the other's to run."""
    async with two_workers(target) as (first, second, _):
        table = await seat_four(first.core, deliver=False)
        start(first)
        leases = first.core.storage.leases
        name = f"chat:{GROUP.chat_id}"

        async def holder_is(who: str) -> bool:
            held = await leases.holder(name)
            return held is not None and held[0] == who

        await until(lambda: holder_is("w1"), 5, "the first worker to hold the group")
        first.runner.standing_aside = lambda: True
        first.sender.cut_off = lambda: True
        fired = first.runner.fired
        start(second)
        await until(lambda: holder_is("w2"), 3, "the other worker to hold the group")

        async def moves(n: int) -> bool:
            return len(await first.core.storage.tables.log(table.id, LogKind.ACTION)) >= n

        done = len(await first.core.storage.tables.log(table.id, LogKind.ACTION))
        await until(lambda: moves(done + 8), 20, "the match to go on")
        # At most the timer under way at the cut ended on the first worker.
        assert first.runner.fired - fired <= 1, (first.runner.fired, fired)
        assert second.runner.fired >= 8
        assert await holder_is("w2")


async def test_a_polling_sender_whose_lock_was_taken_over_sends_nothing_more(
    target: Target,
) -> None:
    """Polling senders hold no chat claims: one whose database lock another process took
    (``Lease.lost``) would go on sending beside the new one while it stops. It sends nothing
    from the moment it knows."""
    async with two_workers(target) as (first, _, messenger):
        await seat_four(first.core, deliver=False)
        assert await first.core.storage.outbox.due(time.time(), limit=1)  # owed: the hands
        lost = [True]
        sender = Sender(first.core)  # polling: one process, no claims
        sender.cut_off = lambda: lost[0]
        for _ in range(3):
            await sender.step()
            await asyncio.sleep(0.05)
        assert messenger.messages == {}
        lost[0] = False  # (a process that keeps the lock sends as ever)
        await sender.drain(timeout=10)
        assert messenger.messages


class AnswersLate(FakeMessenger):
    """Telegram posts the message at once and answers 3 s later (a slow moment)."""

    async def send(
        self, chat_id: int, screen: Screen, *, notify: bool = True, thread_id: int | None = None
    ) -> int:
        message_id = await super().send(chat_id, screen, notify=notify, thread_id=thread_id)
        await asyncio.sleep(3.0)
        return message_id


async def test_a_stopping_sender_books_a_post_telegram_took_rather_than_leave_it_owed(
    target: Target,
) -> None:
    """SIGTERM while a post's call is out: cut there, Telegram has posted it and the outbox
    still owes it, so the next worker posts it again. The stopping sender waits for the
    answer (seconds) and books it; what never went out is left owed at once."""
    store = await target.open()
    messenger = AnswersLate()
    w = worker(store, messenger, "w1")
    try:
        await store.outbox.add([Owed(OutboxKind.POST, -100, Priority.GROUP, None, text="hi")])
        await w.sender.step()  # the call goes out
        await asyncio.sleep(0.3)
        began = time.monotonic()
        await w.sender.stop(grace=0.5)
        assert time.monotonic() - began < 5.0
        assert len(messenger.messages) == 1  # posted once ...
        assert await store.outbox.pending() == 0  # ... and booked: nobody posts it again
    finally:
        await store.close()
