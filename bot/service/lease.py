"""Who runs on the database. Polling: one running bot per database, the lease that says which
process may poll (Telegram allows one ``getUpdates`` consumer per token); the second one waits
here until the first is gone. Webhook: any number of workers, each announcing itself with a
lease of its own (``Workers``), so that each keeps to its share of the bot's call budget."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable

from ..storage import LeaseRepo

log = logging.getLogger(__name__)

NAME = "bot"


def holder_id() -> str:
    """Unique per process and readable in the database: host, pid and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Lease:
    def __init__(
        self,
        leases: LeaseRepo,
        *,
        seconds: float = 30.0,
        renew_every: float = 10.0,
        holder: str | None = None,
    ) -> None:
        self.leases = leases
        self.seconds = seconds
        self.renew_every = renew_every
        self.holder = holder or holder_id()

    async def acquire(self, *, say: Callable[[str], None]) -> None:
        """Take the lease, waiting for as long as another live process holds it.

        Waiting rather than exiting: in an overlapping deploy the new process takes over by
        itself the moment the old one stops (or its lease expires after a crash)."""
        told = False
        while not await self.leases.take(NAME, self.holder, self.seconds):
            if not told:
                current = await self.leases.holder(NAME)
                other = current[0] if current else "another process"
                say(
                    f"kozel-bot: the database is in use by another running bot ({other}); "
                    f"waiting until it stops or its lease expires (at most {self.seconds:g} s "
                    "after it dies)"
                )
                told = True
            await asyncio.sleep(min(self.renew_every, self.seconds / 3))
        if told:
            log.info("lease taken: this process (%s) runs the bot now", self.holder)

    async def keep(self, on_lost: Callable[[], None]) -> None:
        """Renew the lease forever (cancel to stop); if another process took it meanwhile
        (this one stalled past the expiry), ``on_lost`` stops this one."""
        while True:
            await asyncio.sleep(self.renew_every)
            try:
                held = await self.leases.take(NAME, self.holder, self.seconds)
            except Exception:
                log.exception("renewing the lease failed; trying again")
                continue
            if not held:
                log.error("the lease was taken over by another process: stopping")
                on_lost()
                return

    async def release(self) -> None:
        await self.leases.release(NAME, self.holder)


WORKER_PREFIX = "worker:"


class Workers:
    """This worker's own lease, renewed forever; how many workers are alive now."""

    def __init__(
        self, leases: LeaseRepo, holder: str, *, seconds: float = 30.0, renew_every: float = 10.0
    ) -> None:
        self.leases = leases
        self.holder = holder
        self.seconds = seconds
        self.renew_every = renew_every
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
        long expired (of workers and chats gone) are cleared on the way."""
        while True:
            await asyncio.sleep(self.renew_every)
            try:
                on_count(await self.announce())
                await self.leases.forget_expired(time.time() - 10 * self.seconds)
            except Exception:
                log.exception("renewing the worker lease failed; trying again")
