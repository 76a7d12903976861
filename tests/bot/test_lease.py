"""The database lease: one running bot per database, taken over only once expired."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.service.lease import NAME, Lease
from bot.storage import SqliteStorage


async def test_a_lease_is_held_renewed_released_and_taken_over_when_expired(
    tmp_path: Path,
) -> None:
    now = [1000.0]
    path = str(tmp_path / "kozel.sqlite3")
    one = await SqliteStorage.open(path, clock=lambda: now[0])
    two = await SqliteStorage.open(path, clock=lambda: now[0])
    try:
        assert await one.leases.take(NAME, "a", 30)
        assert not await two.leases.take(NAME, "b", 30)
        now[0] += 20
        assert await one.leases.take(NAME, "a", 30)  # renewed: good until 1050
        now[0] += 20
        assert not await two.leases.take(NAME, "b", 30)
        assert await one.leases.holder(NAME) == ("a", 1050.0)
        now[0] += 10  # a crash: nobody renewed it
        assert await two.leases.take(NAME, "b", 30)
        assert not await one.leases.take(NAME, "a", 30)  # the old holder cannot come back
        await one.leases.release(NAME, "a")  # not theirs: nothing happens
        assert await one.leases.holder(NAME) == ("b", 1080.0)
        await two.leases.release(NAME, "b")
        assert await one.leases.take(NAME, "a", 30)
    finally:
        await one.close()
        await two.close()


async def test_a_process_that_lost_its_lease_stops(tmp_path: Path) -> None:
    path = str(tmp_path / "kozel.sqlite3")
    storage = await SqliteStorage.open(path)
    try:
        lease = Lease(storage.leases, seconds=0.3, renew_every=0.05)
        lines: list[str] = []
        await lease.acquire(say=lines.append)
        assert lines == []
        other = Lease(storage.leases, seconds=0.3, renew_every=0.05)
        waiting = asyncio.create_task(other.acquire(say=lines.append))
        await asyncio.sleep(0.2)
        assert not waiting.done() and len(lines) == 1 and lease.holder in lines[0]
        lost = asyncio.Event()
        # Renewal stalls (the process was frozen) past the expiry: the other one takes over.
        await asyncio.wait_for(waiting, 2)
        keeper = asyncio.create_task(lease.keep(lost.set))
        await asyncio.wait_for(lost.wait(), 2)
        await keeper
    finally:
        await storage.close()
