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

import asyncpg
from storage_targets import Target

from bot.service.lease import Lease
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
