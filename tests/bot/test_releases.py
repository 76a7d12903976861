"""Which releases run on a database: workers say theirs, and a worker of v0.30 (which says
nothing) is found by the leases and timer claims it holds. Both backends."""

from __future__ import annotations

import logging

import aiosqlite
import asyncpg
import pytest
from storage_targets import Target
from test_shared_workers import seat_table

from bot.release import RELEASE
from bot.service.lease import Workers
from bot.service.releases import Announcer, previous_release_alive
from bot.storage import SchemaError, Timer
from bot.storage.migrations import MIGRATIONS, Migration, apply_migrations
from bot.storage.pg_migrate import apply_pg_migrations
from bot.storage.releases import UNREGISTERED


async def test_workers_say_their_release_and_a_dead_ones_row_ages_out(target: Target) -> None:
    now = [1000.0]
    store = await target.open(clock=lambda: now[0])
    try:
        assert await store.oldest_live_release() is None  # nobody runs
        await store.releases.announce("new-1", RELEASE, "v0.31", 30)
        await store.releases.announce("newer-1", RELEASE + 1, "v0.32", 30)
        assert await store.oldest_live_release() == RELEASE
        assert not await previous_release_alive(store)
        assert await previous_release_alive(store, release=RELEASE + 1)  # new-1 is older
        assert [w.holder for w in await store.releases.live()] == ["new-1", "newer-1"]

        now[0] += 20
        await store.releases.announce("newer-1", RELEASE + 1, "v0.32", 30)  # renewed
        now[0] += 15  # new-1 died 35 s ago: its row has run out
        assert await store.oldest_live_release() == RELEASE + 1
        assert not await previous_release_alive(store, release=RELEASE + 1)

        await store.releases.retire("newer-1")  # a clean stop
        assert await store.oldest_live_release() is None
        assert await store.releases.forget_expired(now[0]) == 1  # new-1's old row
    finally:
        await store.close()


async def test_an_old_worker_that_never_says_its_release_is_found_by_its_leases(
    target: Target,
) -> None:
    now = [1000.0]
    store = await target.open(clock=lambda: now[0])
    try:
        await store.releases.announce("new-1", RELEASE, "v0.31", 30)
        # v0.30's webhook worker: its own lease and a chat's claim, no release row.
        await store.leases.take("worker:old-1", "old-1", 3)
        await store.leases.take("chat:-100", "old-1", 3)
        assert await store.oldest_live_release() == UNREGISTERED
        assert await previous_release_alive(store)
        # The shared 429 notice is a lease held by its own name: nobody's worker.
        await store.leases.release_all("old-1")
        await store.leases.take("telegram:retry-after", "telegram:retry-after", 30)
        assert await store.oldest_live_release() == RELEASE
        assert not await previous_release_alive(store)

        # A timer claim of an unknown holder (v0.30 polling, or a worker's claims) counts too.
        table = await seat_table(store)
        await store.timers.put(table, [Timer("turn", "ai", 1, due_at=now[0])])
        assert [t.slot for t in await store.timers.claim("old-2", 3)] == ["turn"]
        assert await previous_release_alive(store)
        now[0] += 3  # its claim runs out: the old worker is taken for gone
        await store.releases.announce("new-1", RELEASE, "v0.31", 30)
        assert not await previous_release_alive(store)

        # This release's own leases and claims are vouched for by its row.
        await store.leases.take("worker:new-1", "new-1", 3)
        assert [t.slot for t in await store.timers.claim("new-1", 3)] == ["turn"]
        assert await store.oldest_live_release() == RELEASE
    finally:
        await store.close()


async def test_a_worker_is_said_before_its_lease_and_outlives_it(target: Target) -> None:
    """The order the bot starts in: the release row first, then the worker's lease, so that a
    new worker is never, even for a moment, taken for an old one; and the row is written for
    longer than the lease, so that a new worker that dies is not either."""
    store = await target.open()
    try:
        announcer = Announcer(store.releases, "new-1", seconds=3.0, renew_every=0.5)
        assert announcer.seconds > 3.0
        await announcer.announce()
        workers = Workers(store.leases, "new-1", seconds=3.0, renew_every=0.5)
        assert await workers.announce() == 1
        assert await store.oldest_live_release() == RELEASE
        await announcer.retire()
        # Retired before its lease went (a stop gone wrong): its lease is an unknown holder's.
        assert await store.oldest_live_release() == UNREGISTERED
    finally:
        await store.close()


NEWER = "CREATE TABLE newer_release_thing (x INTEGER)"


async def migrate_as_newer_release(target: Target, *, contracts: bool) -> None:
    """What the next release's first worker does: its own migration, recorded as its own."""
    newer = (
        *MIGRATIONS,
        Migration(len(MIGRATIONS) + 1, "next", NEWER, postgres=NEWER, contracts=contracts),
    )
    if target.is_postgres:
        conn = await asyncpg.connect(target.where)
        try:
            await apply_pg_migrations(conn, newer, release=RELEASE + 1)
        finally:
            await conn.close()
        return
    conn = await aiosqlite.connect(target.where, isolation_level=None)
    try:
        await apply_migrations(conn, newer, release=RELEASE + 1)
    finally:
        await conn.close()


async def test_a_worker_restarted_mid_upgrade_runs_on_the_next_releases_schema(
    target: Target, caplog: pytest.LogCaptureFixture
) -> None:
    """An expand-only migration of the next release leaves this one able to start (its
    worker restarted in the middle of the upgrade); it runs there without migrating."""
    await (await target.open()).close()
    await migrate_as_newer_release(target, contracts=False)
    caplog.set_level(logging.WARNING, logger="bot.storage")
    store = await target.open()
    try:
        assert await store.tables.active() == []  # it works on the newer schema
    finally:
        await store.close()
    assert any("newer than this code" in r.getMessage() for r in caplog.records)
    readers = await target.query("SELECT version, oldest_release FROM schema_readers ORDER BY 1")
    assert [tuple(r) for r in readers][-2:] == [
        (len(MIGRATIONS), RELEASE - 1),  # this release's: the one before may run on it
        (len(MIGRATIONS) + 1, RELEASE),  # the next one's: this one may
    ]


async def test_a_contracting_migration_of_the_next_release_keeps_this_one_out(
    target: Target,
) -> None:
    await (await target.open()).close()
    await migrate_as_newer_release(target, contracts=True)
    with pytest.raises(SchemaError, match="newer than this code"):
        await target.open()
