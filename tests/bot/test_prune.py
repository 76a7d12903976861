"""Old finished and cancelled tables are pruned with everything that hangs on them, in batches,
on both backends; live and recent tables, and the ladder, stay."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from service_fakes import FakeMessenger
from storage_targets import Target
from test_storage import match_record, new_table

from bot.service import prune
from bot.service.core import Core
from bot.service.running_settings import Settings
from bot.service.timer_loop import TimerRunner
from bot.storage import (
    LogEntry,
    LogKind,
    OutboxKind,
    Owed,
    Priority,
    Storage,
    TableRecord,
    TableStatus,
    Timer,
)

DAY = 86400.0
NOW = 1_800_000_000.0


@pytest.fixture
async def storage(target: Target) -> AsyncIterator[Storage]:
    store = await target.open()
    yield store
    await store.close()


async def ended(
    storage: Storage, status: TableStatus, finished_at: float, users: tuple[int, ...]
) -> TableRecord:
    """A table that ran (a log line, a post still owed, a timer) and ended at ``finished_at``;
    a finished one with its match recorded for the ladder."""
    table = await storage.tables.create(
        new_table(users=users),
        owe=[Owed(OutboxKind.LOBBY, -100, Priority.GROUP)],
        timers=[Timer("expire", "expire", 0, finished_at + DAY)],
    )
    table.status = status
    table.finished_at = finished_at
    await storage.tables.save(
        table,
        expected_version=table.version,
        log=[
            LogEntry(
                LogKind.CANCEL if status is TableStatus.CANCELLED else LogKind.MATCH, 0, None, "x"
            )
        ],
        match=match_record(table.id) if status is TableStatus.FINISHED else None,
        owe=[Owed(OutboxKind.POST, -100, Priority.GROUP, text="over")],
    )
    return table


def make_core(storage: Storage, *, keep_finished_days: float) -> Core:
    runner = TimerRunner(storage.timers, holder="test", claim_seconds=60.0)
    settings = Settings(keep_finished_days=keep_finished_days)
    return Core(storage, FakeMessenger(), runner, settings)


async def rows_of(target: Target, table_id: int) -> dict[str, int]:
    counts = {}
    for name in ("game_tables", "seats", "table_log", "outbox", "timers"):
        column = "id" if name == "game_tables" else "table_id"
        counts[name] = await target.count(
            f"SELECT count(*) FROM {name} WHERE {column} = ?", (table_id,)
        )
    return counts


async def test_old_ended_tables_go_with_their_rows_and_the_ladder_stays(
    storage: Storage, target: Target
) -> None:
    old_finished = await ended(storage, TableStatus.FINISHED, NOW - 100 * DAY, (1, 2))
    old_cancelled = await ended(storage, TableStatus.CANCELLED, NOW - 95 * DAY, (3,))
    recent = await ended(storage, TableStatus.FINISHED, NOW - 10 * DAY, (4,))
    live = await storage.tables.create(new_table(users=(5,)))  # an old lobby: it stays
    cutoff = NOW - 90 * DAY

    assert await storage.tables.prune(finished_before=cutoff, limit=1) == 1  # a batch
    assert await storage.tables.prune(finished_before=cutoff, limit=10) == 1
    assert await storage.tables.prune(finished_before=cutoff, limit=10) == 0  # idempotent

    for gone in (old_finished, old_cancelled):
        assert set((await rows_of(target, gone.id)).values()) == {0}, gone.id
    assert (await rows_of(target, recent.id))["table_log"] == 1
    assert (await rows_of(target, live.id))["game_tables"] == 1
    assert await target.count("SELECT count(*) FROM matches") == 2  # the ladder keeps both
    assert await target.count("SELECT count(*) FROM match_players") == 8
    assert await storage.tables.get(old_finished.id) is None
    assert await storage.tables.get(recent.id) is not None


async def test_the_service_prunes_in_batches_and_zero_days_keeps_everything(
    storage: Storage, target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    for user in range(5):
        await ended(storage, TableStatus.CANCELLED, NOW - 200 * DAY, (10 + user,))
    monkeypatch.setattr(prune, "BATCH", 2)
    monkeypatch.setattr(prune, "PAUSE", 0.0)

    keeping = make_core(storage, keep_finished_days=0.0)
    assert await prune.prune_once(keeping, now=NOW) == 0
    assert await target.count("SELECT count(*) FROM game_tables") == 5

    core = make_core(storage, keep_finished_days=90.0)
    assert await prune.prune_once(core, now=NOW) == 5
    assert await target.count("SELECT count(*) FROM game_tables") == 0
    assert await prune.prune_once(core, now=NOW) == 0
