"""A closing PostgreSQL store waits a bounded time for its connections: a stop must end before
the supervisor's SIGKILL even when a transaction never finishes."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
from pgcluster import PgCluster

from bot.storage import StorageUnavailable, pg_db
from bot.storage.pg_db import PgDatabase


async def test_a_transaction_that_never_ends_does_not_hold_the_close(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(pg_db, "CLOSE_WITHIN", 0.5)
    db = await PgDatabase.open(pg_url)
    inside = asyncio.Event()

    async def stuck() -> None:
        async with db._transaction() as conn:
            await conn.fetchone("SELECT 1")
            inside.set()
            await asyncio.sleep(3600)

    task = asyncio.create_task(stuck())
    await inside.wait()
    began = time.monotonic()
    await db.close()
    took = time.monotonic() - began
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert 0.4 < took < 5, took
    assert "database connections still busy after 0.5 s: cut" in caplog.text
    assert db.is_closed


async def test_a_quiet_store_closes_at_once(pg_url: str) -> None:
    db = await PgDatabase.open(pg_url)
    async with db._transaction() as conn:
        await conn.fetchone("SELECT 1")
    began = time.monotonic()
    await db.close()
    assert time.monotonic() - began < 0.4


async def test_a_restart_is_said_once_though_the_pool_held_connections_from_before(
    pg_cluster: PgCluster, pg_url: str
) -> None:
    """Every idle connection of the pool died with the server: once it answers again, the
    connections from before must not each say "cannot be reached" anew."""
    db = await PgDatabase.open(pg_url, min_size=0, max_size=6)

    async def one() -> None:
        async with db.read() as conn:
            await conn.fetchone("SELECT pg_sleep(0.05)")

    await asyncio.gather(*(one() for _ in range(6)))  # six connections, idle in the pool
    await asyncio.to_thread(pg_cluster.stop_server)
    with pytest.raises(StorageUnavailable):
        await one()
    await asyncio.to_thread(pg_cluster.start_server)
    for _ in range(100):  # back once a transaction begun SETTLE after the failure works
        with contextlib.suppress(StorageUnavailable):
            await one()
        if not db.availability.is_away:
            break
        await asyncio.sleep(0.1)
    assert not db.availability.is_away
    for _ in range(3):
        await asyncio.gather(*(one() for _ in range(6)), return_exceptions=True)
    await db.close()
    assert db.availability.outages == 1
