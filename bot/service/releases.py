"""Which releases run on the database now: this worker says its own, and anybody may ask
whether a worker of an older release is still alive (see ``storage.releases``).

The rule it serves (CONTRIBUTING.md): a release writes what the release before it cannot read
(a new kind of outbox row, a new house rule on a table, ...) only once no worker of that
release is alive. Ask ``previous_release_alive`` right before such a write, and write the old
form while it says True.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ..release import RELEASE, VERSION
from ..storage import ReleaseRepo, Storage
from .supervisor import Supervisor

log = logging.getLogger(__name__)

FORGET_AFTER = 3600.0  # seconds after which a dead worker's row is dropped


async def previous_release_alive(storage: Storage, release: int = RELEASE) -> bool:
    """Whether a worker of a release older than ``release`` (this one's, by default) is alive
    now: one that said so, or one that holds a lease or a timer claim without having said its
    release at all (v0.30 and older). A worker that died stops counting once its row and its
    leases run out (``KOZEL_LEASE_SECONDS`` and a little)."""
    oldest = await storage.oldest_live_release()
    return oldest is not None and oldest < release


class Announcer:
    """This worker's row in ``worker_releases``: written before it takes any lease, renewed
    while it runs, deleted at a clean stop. It outlives the worker's leases by a margin, so a
    worker that dies is never taken, for a moment, for an unregistered old one."""

    def __init__(
        self, releases: ReleaseRepo, holder: str, *, seconds: float, renew_every: float
    ) -> None:
        self.releases = releases
        self.holder = holder
        self.seconds = 2 * seconds + renew_every  # longer than any lease it takes
        self.renew_every = renew_every

    async def announce(self) -> None:
        await self.releases.announce(self.holder, RELEASE, VERSION, self.seconds)

    async def keep(self) -> None:
        """Renew forever (cancel to stop); a failed renewal (the database away) ends it and its
        supervisor starts it again."""
        while True:
            await asyncio.sleep(self.renew_every)
            await self.announce()
            await self.releases.forget_expired(time.time() - FORGET_AFTER)

    async def retire(self) -> None:
        try:
            await self.releases.retire(self.holder)
        except Exception:  # it ages out instead
            log.warning("could not say that this worker stops (its row ages out)", exc_info=True)


@asynccontextmanager
async def announced(
    storage: Storage, supervisor: Supervisor, holder: str, seconds: float, renew_every: float
) -> AsyncIterator[Announcer]:
    """This worker's release said in the database while the block runs (renewed under
    ``supervisor``), and unsaid at its end. Enter it before taking any lease or claim."""
    announcer = Announcer(storage.releases, holder, seconds=seconds, renew_every=renew_every)
    await announcer.announce()
    log.info("release %s (%d) on this database as %s", VERSION, RELEASE, holder)
    supervisor.start("release", announcer.keep)
    try:
        yield announcer
    finally:
        await supervisor.stop("release")
        await announcer.retire()
