"""People's turn clocks stop while Telegram cannot be reached: the turn timers are paused in
the database with the time each had left, and run on from there when Telegram answers again,
whichever worker sees it. Computer moves and expiries are not paused."""

from __future__ import annotations

import asyncio

import pytest
from storage_targets import Target

from bot.service import reach as reach_module
from bot.service.reach import AWAY_AFTER, PAUSED, WARNING, Reach
from bot.storage import (
    OutboxKind,
    Owed,
    Priority,
    SeatRecord,
    Storage,
    TableRecord,
    TableStatus,
    Timer,
)


class Clock:
    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now


async def playing_table(store: Storage, deadline: float) -> TableRecord:
    seats = [
        SeatRecord(seat=0, user_id=7, name="Anna", deadline=deadline),
        SeatRecord(seat=1, user_id=None, name="cpu", ai_level="random"),
    ]
    table = TableRecord(
        id=0, chat_id=-100, status=TableStatus.PLAYING, variant="moscow", creator_id=7, seed=1,
        seats=seats,
    )  # fmt: skip
    timers = [
        Timer("timeout", PAUSED, 3, deadline, 0),
        Timer("expire", "expire", 0, deadline + 1000),
    ]
    return await store.tables.create(table, timers=timers)


async def test_turn_timers_pause_while_telegram_is_away_and_keep_their_time(
    target: Target,
) -> None:
    clock = Clock()
    store = await target.open(clock=clock)
    woken: list[bool] = []
    try:
        table = await playing_table(store, deadline=clock.now + 6)
        reach = Reach(store.timers, store.outbox, wake=lambda: woken.append(True), clock=clock)
        await store.outbox.add([Owed(OutboxKind.TABLE, -100, Priority.GROUP, table.id)])
        (owed,) = await store.outbox.due(clock.now)
        await store.outbox.retry(owed, clock.now + 60)  # failed: it waits a minute

        clock.now += 1  # 5 s left on Anna's clock when the first call fails
        reach.failed()
        clock.now += AWAY_AFTER / 2
        await reach.decide()
        assert await store.timers.paused(PAUSED) is None  # one failure is no outage yet
        clock.now += AWAY_AFTER
        reach.failed()
        await reach.decide()
        assert await store.timers.paused(PAUSED) == 10_001.0  # from the first failure

        clock.now += 600  # ten minutes without Telegram: her timer is long past due...
        claimed = await store.timers.claim("worker", 30)
        assert [t.slot for t in claimed] == []  # ...and does not run
        later = Timer("timeout", PAUSED, 4, clock.now + 6, 0)  # a turn begun meanwhile
        await store.timers.put(table.id, [later])

        reach.answered()  # Telegram answers again
        await reach.decide()
        assert await store.timers.paused(PAUSED) is None and woken
        (timer,) = [t for t in await store.timers.of_table(table.id) if t.slot == "timeout"]
        assert timer.due_at == pytest.approx(clock.now + 6)  # all its time: it began paused
        fresh = await store.tables.get(table.id)
        assert fresh is not None and fresh.seats[0].deadline == pytest.approx(clock.now + 6)
        assert [o.id for o in await store.outbox.due(clock.now)] == [owed.id]  # goes now
    finally:
        await store.close()


async def test_a_pause_one_worker_made_is_ended_by_another_that_reaches_telegram(
    target: Target,
) -> None:
    clock = Clock()
    one, two = await target.open(clock=clock), await target.open(clock=clock)
    try:
        table = await playing_table(one, deadline=clock.now + 6)
        cut_off = Reach(one.timers, one.outbox, wake=lambda: None, clock=clock)
        fine = Reach(two.timers, two.outbox, wake=lambda: None, clock=clock)
        cut_off.failed()
        clock.now += AWAY_AFTER
        await cut_off.decide()
        assert await one.timers.paused(PAUSED) is not None
        clock.now += 2
        fine.answered()
        await fine.decide()  # this worker reaches Telegram: people can play through it
        assert await one.timers.paused(PAUSED) is None
        (timer,) = [t for t in await one.timers.of_table(table.id) if t.slot == "timeout"]
        assert timer.due_at == pytest.approx(clock.now + 6)  # paused from its first failure
        await cut_off.decide()  # still cut off: it said so once, it does not pause again
        assert await one.timers.paused(PAUSED) is None
    finally:
        await one.close()
        await two.close()


async def test_a_probe_without_any_answer_pauses_from_when_it_was_asked(
    target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Packets dropped, not refused: no call fails before its own timeout (10 s to connect,
    30 s to read). The watch's probe gets no answer within its few seconds: a failure from
    when it was asked, and the turn clocks pause from then, not half a minute late."""
    monkeypatch.setattr(reach_module, "PROBE_TIMEOUT", 0.05)
    clock = Clock()
    store = await target.open(clock=clock)
    try:
        await playing_table(store, deadline=clock.now + 30)
        reach = Reach(store.timers, store.outbox, wake=lambda: None, clock=clock)
        clock.now += 3  # nothing answered lately: the watch asks
        asked = clock.now

        async def dropped() -> None:
            clock.now += 5  # the probe's few seconds pass without an answer
            await asyncio.sleep(10)

        await reach.ask(dropped)
        assert reach.failing_since == asked
        await reach.decide()
        assert reach.away and reach.cut_off
        assert await store.timers.paused(PAUSED) == asked

        async def answered() -> None:
            reach.answered()  # the path is back: the call itself reports the answer

        await reach.ask(answered)
        await reach.decide()
        assert not reach.away and await store.timers.paused(PAUSED) is None
    finally:
        await store.close()


async def test_the_hurry_warning_pauses_with_the_turn_clock_and_the_table_is_read_again(
    target: Target,
) -> None:
    """While Telegram is away, the "time is nearly out" warning waits as the turn clock does
    (else it fires, and shows, with the whole turn still to come once the clock runs on); when
    the clock resumes, the seat's new deadline comes with a new table version, so that no
    worker goes on with the table as it read it before."""
    clock = Clock()
    store = await target.open(clock=clock)
    try:
        table = await playing_table(store, deadline=clock.now + 30)
        await store.timers.put(table.id, [Timer("hurry", WARNING, 3, clock.now + 20, 0)])
        before = await store.tables.get(table.id)
        assert before is not None
        reach = Reach(store.timers, store.outbox, wake=lambda: None, clock=clock)
        reach.failed()
        clock.now += AWAY_AFTER
        await reach.decide()
        assert await store.timers.paused(WARNING) == 10_000.0
        clock.now += 600
        assert await store.timers.claim("worker", 30) == []  # neither runs meanwhile

        reach.answered()
        await reach.decide()
        assert await store.timers.paused(WARNING) is None
        due = {t.slot: t.due_at for t in await store.timers.of_table(table.id)}
        assert due["hurry"] == pytest.approx(clock.now + 20)
        assert due["timeout"] == pytest.approx(clock.now + 30)
        after = await store.tables.get(table.id)
        assert after is not None and after.version == before.version + 1
        assert after.seats[0].deadline == pytest.approx(clock.now + 30)  # not the warning's
    finally:
        await store.close()
