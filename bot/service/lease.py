"""Who runs on the database. Polling: one running bot per database, the process that holds the
database's process lock (Telegram allows one ``getUpdates`` consumer per token); a second one
waits here, and takes over the moment the first is gone: the lock is the system's (a database
session, a file lock), freed when its holder dies, so a crash costs no lease's expiry. Webhook:
any number of workers, each announcing itself with a lease of its own (``Workers``), so that
each keeps to its share of the bot's call budget."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable

from ..storage import LeaseRepo, ProcessLock, StorageUnavailable, UpdateRepo

log = logging.getLogger(__name__)

WAIT_STEP = 0.25  # seconds between looks at the lock while another process holds it
KEEP_STEP = 1.0  # seconds between looks at whether the lock is still this process's
UPDATES_KEPT = 24 * 3600.0  # seconds an update id is remembered (Telegram keeps an update a day)


def holder_id() -> str:
    """Unique per process and readable in the database: host, pid and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Lease:
    """This process as the database's one polling bot (see the module docstring)."""

    def __init__(self, lock: ProcessLock, *, holder: str | None = None) -> None:
        self.lock = lock
        self.holder = holder or holder_id()
        self.lost = False  # another process took the lock: the bot stops, as a failure

    async def acquire(self, *, say: Callable[[str], None]) -> None:
        """Take the lock, waiting for as long as another live process holds it.

        Waiting rather than exiting: in an overlapping deploy, or when a crashed bot's
        replacement starts beside a stuck one, this process takes over by itself the moment
        the other one is gone."""
        told = False
        while not await self._take():
            if not told:
                other = await self._holder() or "another process"
                say(
                    f"kozel-bot: the database is in use by another running bot ({other}); "
                    "waiting until it stops (this one takes over the moment it does)"
                )
                told = True
            await asyncio.sleep(WAIT_STEP)
        if told:
            log.info("lock taken: this process (%s) runs the bot now", self.holder)

    async def _take(self) -> bool:
        try:
            return await self.lock.take(self.holder)
        except StorageUnavailable:
            return False  # the database is away (said by the store): look again

    async def _holder(self) -> str | None:
        try:
            return await self.lock.holder()
        except StorageUnavailable:
            return None

    async def keep(self, on_lost: Callable[[], None]) -> None:
        """Hold the lock forever (cancel to stop). A database restart ends the session that
        held it: it is taken again at once (a partition that left this process's own old
        session holding it: that session is ended first, see ``ProcessLock.take``); if
        another process took it meanwhile, this one stops (``on_lost``), and ``lost`` says
        so (the exit status is a failure's: a supervisor's restart brings it back, waiting)."""
        while True:
            await asyncio.sleep(KEEP_STEP)
            if await self.lock.held():
                continue
            while True:
                try:
                    taken = await self.lock.take(self.holder)
                    break
                except StorageUnavailable:
                    await asyncio.sleep(WAIT_STEP)  # the database is away: nobody can take it
            if not taken:
                other = await self._holder() or "unknown"
                log.error("another process (%s) took the database's lock: stopping", other)
                self.lost = True
                on_lost()
                await asyncio.Event().wait()  # nothing more to hold: the bot stops

    async def release(self) -> None:
        await self.lock.release()


WORKER_PREFIX = "worker:"


class Workers:
    """This worker's own lease, renewed forever; how many workers are alive now."""

    def __init__(
        self,
        leases: LeaseRepo,
        holder: str,
        *,
        seconds: float = 30.0,
        renew_every: float = 10.0,
        updates: UpdateRepo | None = None,
    ) -> None:
        self.leases = leases
        self.holder = holder
        self.seconds = seconds
        self.renew_every = renew_every
        self.updates = updates
        self.name = f"{WORKER_PREFIX}{holder}"

    async def alive(self) -> int:
        """Live workers (asked before this one announces itself: is anybody else running?)."""
        return await self.leases.live(WORKER_PREFIX)

    async def announce(self) -> int:
        """Renew this worker's lease; returns how many workers are alive (this one too)."""
        await self.leases.take(self.name, self.holder, self.seconds)
        return await self.leases.live(WORKER_PREFIX)

    async def keep(self, on_count: Callable[[int], None]) -> None:
        """Renew forever (cancel to stop), telling ``on_count`` how many workers live; leases
        long expired (of workers and chats gone) and update ids older than Telegram keeps an
        update are cleared on the way. A renewal that fails (the database is away) ends it:
        its supervisor starts it again."""
        while True:
            await asyncio.sleep(self.renew_every)
            on_count(await self.announce())
            now = time.time()
            await self.leases.forget_expired(now - 10 * self.seconds)
            if self.updates is not None:
                await self.updates.forget(now - UPDATES_KEPT)
