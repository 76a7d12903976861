"""Stored enums only grow: a row a newer release wrote with a kind, a priority or an actor this
release has no name for is left alone (not sent, not run, not deleted, not read) and said once
in the log, while the rows it knows go on. Both backends."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Sequence

import asyncpg
import pytest
from storage_targets import Target
from test_shared_workers import seat_table

from bot.service.ports import DueKind
from bot.service.timer_loop import TimerRunner
from bot.storage import LogKind, OutboxKind, Owed, Priority, Timer, unknown
from bot.storage.pg_conn import numbered
from bot.storage.timers import KINDS


@pytest.fixture(autouse=True)
def said_afresh() -> None:
    unknown.forget()  # "once" is once per process: each test counts its own


async def execute(target: Target, sql: str, params: Sequence[object] = ()) -> None:
    """Write as another process (a newer release) would."""
    if target.is_postgres:
        conn = await asyncpg.connect(target.where)
        try:
            await conn.execute(numbered(sql), *params)
        finally:
            await conn.close()
        return
    with contextlib.closing(sqlite3.connect(target.where)) as conn:
        conn.execute(sql, tuple(params))
        conn.commit()


def warnings(caplog: pytest.LogCaptureFixture, what: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and what in r.getMessage()
    ]


async def test_outbox_rows_of_an_unknown_kind_or_priority_wait_for_a_newer_worker(
    target: Target, caplog: pytest.LogCaptureFixture
) -> None:
    now = [1000.0]
    store = await target.open(clock=lambda: now[0])
    try:
        table = await seat_table(store)
        insert = (
            "INSERT INTO outbox (kind, chat_id, table_id, seat, priority, renew, notify, "
            "not_before, created_at) VALUES (?, -100, ?, ?, ?, 0, 0, ?, 1000)"
        )
        # Priorities of the future (a new kind would need its CHECK widened first: see
        # CONTRIBUTING.md; the reading side is the same filter).
        top = int(max(Priority))
        await execute(target, insert, ("hand", table, 0, top + 1, 990.0))
        await execute(target, insert, ("post", table, -1, top + 2, 2000.0))  # later
        await store.outbox.add([Owed(OutboxKind.TABLE, -100, Priority.GROUP, table_id=table)])
        caplog.set_level(logging.WARNING, logger="bot.storage")

        due, held, at = await store.outbox.look(now[0])
        assert [(item.kind, item.priority) for item in due] == [("table", Priority.GROUP)]
        assert at is None and held == {}  # the later unknown post holds and wakes nobody
        assert await store.outbox.due(now[0]) == due
        said = warnings(caplog, "outbox row")
        assert len(said) == 2, said  # ('hand', 6) and ('post', 7), once each
        assert f"('hand', {top + 1})" in " ".join(said)

        await store.outbox.done(due[0])
        now[0] += 60  # looked at again after a while: not said again
        assert await store.outbox.look(now[0]) == ([], {}, None)
        assert len(warnings(caplog, "outbox row")) == 2
        assert await store.outbox.pending() == 2  # both left for a newer worker
    finally:
        await store.close()


async def test_timers_of_an_unknown_kind_are_not_claimed_and_stay(
    target: Target, caplog: pytest.LogCaptureFixture
) -> None:
    now = [1000.0]
    store = await target.open(clock=lambda: now[0])
    try:
        table = await seat_table(store)
        await store.timers.put(
            table,
            [Timer("vote", "vote", 3, due_at=990.0), Timer("ai", "ai", 3, due_at=995.0)],
        )
        caplog.set_level(logging.WARNING, logger="bot.storage")
        assert await store.timers.next_time(kinds=KINDS) == 995.0
        claimed = await store.timers.claim("w1", 10, kinds=KINDS)
        assert [t.kind for t in claimed] == ["ai"]
        await store.timers.done(claimed[0], "w1")
        assert await store.timers.next_time(kinds=KINDS) is None  # nothing to wake for
        assert await store.timers.claim("w1", 10, kinds=KINDS) == []
        assert [t.kind for t in await store.timers.of_table(table)] == ["vote"]  # it stays
        assert len(warnings(caplog, "timer kind 'vote'")) == 1

        # The runner looks, finds nothing it can run, and sleeps its poll (no busy loop).
        runner = TimerRunner(store.timers, holder="w1", claim_seconds=10, poll=0.5)
        runner.bind(lambda due: pytest.fail(f"ran {due}"))
        assert await runner.step() == 0.5
        assert len(warnings(caplog, "timer kind 'vote'")) == 1  # said once
        # A save that sets the table's timers replaces this release's kinds only.
        record = await store.tables.get(table)
        assert record is not None
        await store.tables.save(
            record, expected_version=record.version, timers=[Timer("ai", "ai", 4, due_at=2000.0)]
        )
        kinds = sorted(t.kind for t in await store.timers.of_table(table))
        assert kinds == ["ai", "vote"]
        # A worker that knows the kind (here: any kind) runs it.
        assert [t.kind for t in await store.timers.claim("w2", 10)] == ["vote"]
    finally:
        await store.close()


def test_the_timer_kinds_storage_keeps_are_the_ones_the_service_runs() -> None:
    assert set(KINDS) == {kind.value for kind in DueKind}


async def test_log_lines_of_an_unknown_kind_or_actor_are_skipped_when_read(
    target: Target, caplog: pytest.LogCaptureFixture
) -> None:
    store = await target.open()
    try:
        table = await seat_table(store)
        insert = (
            "INSERT INTO table_log (table_id, at, kind, ply, seat, text, by) "
            "VALUES (?, 1000, ?, 1, 0, ?, ?)"
        )
        await execute(target, insert, (table, "action", "0 play 7♣", "human"))
        await execute(target, insert, (table, "vote", "0 votes yes", "human"))
        await execute(target, insert, (table, "action", "1 play 8♣", "referee"))
        caplog.set_level(logging.WARNING, logger="bot.storage")
        lines = await store.tables.log(table)
        assert [(line.kind, line.text) for line in lines if line.ply == 1] == [
            (LogKind.ACTION, "0 play 7♣")
        ]
        await store.tables.log(table)
        assert len(warnings(caplog, "table log line")) == 2  # once per (kind, by)
    finally:
        await store.close()
