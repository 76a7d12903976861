"""One running bot per database: the lease that says which process may poll, send and run
timers. Two processes on one database (an overlapping deploy) would run every timer and
computer move twice; the second one waits here until the first is gone."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
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
        self, leases: LeaseRepo, *, seconds: float = 30.0, renew_every: float = 10.0
    ) -> None:
        self.leases = leases
        self.seconds = seconds
        self.renew_every = renew_every
        self.holder = holder_id()

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
