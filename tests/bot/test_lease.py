"""Who runs on the database: the one polling bot's process lock (freed by the system the moment
its holder dies, so a standby takes over at once), and the time leases the webhook workers
share (a worker's own, and its claims on chats), taken over only once expired."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import asyncpg
import pytest
from netcut import NetCut
from storage_targets import Target

from bot.service.lease import KEEP_STEP, Lease
from bot.storage import PostgresStorage, SqliteStorage, Storage


async def test_a_lease_is_held_renewed_released_and_taken_over_when_expired(
    tmp_path: Path,
) -> None:
    now = [1000.0]
    path = str(tmp_path / "kozel.sqlite3")
    one = await SqliteStorage.open(path, clock=lambda: now[0])
    two = await SqliteStorage.open(path, clock=lambda: now[0])
    name = "chat:-100"
    try:
        assert await one.leases.take(name, "a", 30)
        assert not await two.leases.take(name, "b", 30)
        now[0] += 20
        assert await one.leases.take(name, "a", 30)  # renewed: good until 1050
        now[0] += 20
        assert not await two.leases.take(name, "b", 30)
        assert await one.leases.holder(name) == ("a", 1050.0)
        now[0] += 10  # a crash: nobody renewed it
        assert await two.leases.take(name, "b", 30)
        assert not await one.leases.take(name, "a", 30)  # the old holder cannot come back
        await one.leases.release(name, "a")  # not theirs: nothing happens
        assert await one.leases.holder(name) == ("b", 1080.0)
        await two.leases.release(name, "b")
        assert await one.leases.take(name, "a", 30)
    finally:
        await one.close()
        await two.close()


async def test_one_process_holds_the_lock_and_a_standby_takes_it_the_moment_it_is_free(
    target: Target,
) -> None:
    one, two = await target.open(), await target.open()
    first, second = one.process_lock(), two.process_lock()
    try:
        assert await first.take("host:1:first")
        assert await first.take("host:1:first")  # taken again by its holder: still ours
        assert not await second.take("host:2:second")
        assert await second.holder() == "host:1:first"
        assert await first.held()

        lines: list[str] = []
        standby = Lease(second, holder="host:2:second")
        waiting = asyncio.create_task(standby.acquire(say=lines.append))
        await asyncio.sleep(0.6)
        assert not waiting.done()
        assert len(lines) == 1 and "(host:1:first)" in lines[0], lines  # said once
        freed = time.monotonic()
        await first.release()
        await asyncio.wait_for(waiting, 5)
        assert time.monotonic() - freed < 1.0  # at once, not after any lease's expiry
        assert not await first.take("host:1:first")
    finally:
        await second.release()
        await one.close()
        await two.close()


HOLD_FILE_LOCK = """
import asyncio, sys
from bot.storage import SqliteStorage

async def main():
    storage = await SqliteStorage.open(sys.argv[1])
    assert await storage.process_lock().take("the killed one")
    print("held", flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


async def test_the_file_lock_goes_with_a_killed_process(tmp_path: Path) -> None:
    path = str(tmp_path / "kozel.sqlite3")
    await (await SqliteStorage.open(path)).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_FILE_LOCK, path],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        storage = await SqliteStorage.open(path)
        lock = storage.process_lock()
        assert not await lock.take("standby")
        assert await lock.holder() == "the killed one"
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        assert await lock.take("standby")  # the system freed it with the process
        await lock.release()
        await storage.close()
    finally:
        holder.kill()
        holder.wait(10)


async def test_a_database_restart_ends_the_holders_session_and_it_takes_the_lock_again(
    pg_url: str,
) -> None:
    storage: Storage = await PostgresStorage.open(pg_url)
    lock = storage.process_lock()
    try:
        assert await lock.take("the bot")
        admin = await asyncpg.connect(pg_url)
        try:
            # What a restart does to the holder's session: it is cut, and the lock goes.
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = 'the bot' AND datname = current_database()"
            )
        finally:
            await admin.close()
        await asyncio.sleep(0.2)
        assert not await lock.held()
        lost = asyncio.Event()
        keeper = Lease(lock, holder="the bot")
        keeping = asyncio.create_task(keeper.keep(lost.set))
        await asyncio.sleep(1.5)
        assert await lock.held() and not lost.is_set()  # taken again: nobody else wanted it
        keeping.cancel()
    finally:
        await lock.release()
        await storage.close()


@pytest.mark.waits(10)
async def test_a_partition_that_leaves_its_own_old_session_holding_the_lock_is_survived(
    pg_url: str,
) -> None:
    """The path to PostgreSQL is cut for 6 s (packets dropped): the bot's check of its lock
    times out, it gives the session up, and reconnects once the path is back, while the server
    still has the old session (it never heard of its end) holding the lock. That session is
    this process's own: it is ended and the lock taken again; the bot goes on."""
    address = urlsplit(pg_url)  # postgresql://user@/db?host=<the socket's folder>
    folder = parse_qs(address.query)["host"][0]
    cut = NetCut.unix(f"{folder}/.s.PGSQL.5432")
    await cut.start()
    through = f"postgresql://{address.username}@127.0.0.1:{cut.listen_port}{address.path}"
    storage: Storage = await PostgresStorage.open(through)
    lock = storage.process_lock()
    lease = Lease(lock, holder="host:4242:partition")
    lost = asyncio.Event()
    keeping: asyncio.Task[None] | None = None
    try:
        await lease.acquire(say=print)
        (old,) = await lock_holders(pg_url)
        keeping = asyncio.create_task(lease.keep(lost.set))
        cut.cut()
        await asyncio.sleep(7.0)  # its check (5 s, within 1 s) timed out: the session is given up
        cut.heal()
        deadline = time.monotonic() + 15
        # Until a new session holds it: the old one, then for a moment none (ended, not yet
        # taken again).
        while (holders := await lock_holders(pg_url)) in ([old], []):
            assert not lost.is_set(), "it stopped: its own old session was taken for another"
            assert time.monotonic() < deadline, f"the lock is not taken again: {holders}"
            await asyncio.sleep(0.2)
        await asyncio.sleep(KEEP_STEP * 2)
        assert not lost.is_set() and not lease.lost
        assert await lock.held()
        (new,) = await lock_holders(pg_url)
        assert new[1] == "host:4242:partition" and new[0] != old[0]  # a new session holds it
        assert holders == [new]
    finally:
        if keeping is not None:
            keeping.cancel()
        await lock.release()
        await storage.close()
        await cut.stop()


async def lock_holders(pg_url: str) -> list[tuple[int, str]]:
    """(server pid, application name) of the sessions holding an advisory lock."""
    admin = await asyncpg.connect(pg_url)
    try:
        rows = await admin.fetch(
            "SELECT a.pid, a.application_name FROM pg_locks l JOIN pg_stat_activity a "
            "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
            "AND a.datname = current_database()"
        )
    finally:
        await admin.close()
    return [(int(row[0]), str(row[1])) for row in rows]


async def test_a_lock_another_process_took_meanwhile_is_not_taken_from_it(pg_url: str) -> None:
    """Only this process's own old session is ended: when the database cut this one's session
    and another process took the lock meanwhile, that one keeps it and this one stops (with
    ``lost`` set: the exit status is a failure's)."""
    one, two = await PostgresStorage.open(pg_url), await PostgresStorage.open(pg_url)
    mine, theirs = one.process_lock(), two.process_lock()
    try:
        lease = Lease(mine, holder="host:2:mine")
        assert await mine.take(lease.holder)
        admin = await asyncpg.connect(pg_url)
        try:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = 'host:2:mine' AND datname = current_database()"
            )
        finally:
            await admin.close()
        deadline = time.monotonic() + 5
        while not await theirs.take("host:1:other"):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        lost = asyncio.Event()
        keeper = asyncio.create_task(lease.keep(lost.set))
        await asyncio.wait_for(lost.wait(), 5)
        keeper.cancel()
        assert lease.lost
        assert await theirs.held() and await two.process_lock().holder() == "host:1:other"
    finally:
        await mine.release()
        await theirs.release()
        await one.close()
        await two.close()


async def test_a_process_whose_lock_was_taken_by_another_stops(tmp_path: Path) -> None:
    path = str(tmp_path / "kozel.sqlite3")
    one, two = await SqliteStorage.open(path), await SqliteStorage.open(path)
    mine, theirs = one.process_lock(), two.process_lock()
    try:
        lease = Lease(mine, holder="first")
        await lease.acquire(say=print)
        # The lock is lost (say the database restarted) and another process is quicker.
        await mine.release()
        assert await theirs.take("second")
        lost = asyncio.Event()
        keeper = asyncio.create_task(lease.keep(lost.set))
        await asyncio.wait_for(lost.wait(), 5)
        keeper.cancel()
        assert lease.lost  # the exit status says so (``app.run``: 1)
    finally:
        await theirs.release()
        await one.close()
        await two.close()


async def test_a_worker_whose_clock_is_fast_takes_no_fresh_claim(pg_url: str) -> None:
    """Claims and leases are stamped by the database's clock: a worker whose own clock runs
    40 s ahead still sees another's 30 s claim as fresh."""
    honest = await PostgresStorage.open(pg_url)
    fast = await PostgresStorage.open(pg_url, local_clock=lambda: time.time() + 40)
    try:
        assert await honest.leases.take("chat:-100", "honest", 30)
        assert not await fast.leases.take("chat:-100", "fast", 30)
        assert await fast.leases.take_many(["chat:-100"], "fast", 30) == set()
        held = await fast.leases.holder("chat:-100")
        assert held is not None and held[0] == "honest"
        assert abs(held[1] - (time.time() + 30)) < 5  # by the database's clock, not +40
    finally:
        await honest.close()
        await fast.close()
