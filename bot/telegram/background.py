"""The lifespan's background work, each started in order and stopped in reverse by
``lifespan``: a webhook worker's lease and its ear on the database, the stored timers and the
outbox sender (and the pruning), and the watch on whether Telegram answers. Every loop runs
under the runtime's supervisor, which starts a failed one again."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ..config import Config
from ..service import prune
from ..service.lease import Workers
from ..service.sender import Sender
from .runtime import App, Runtime

log = logging.getLogger(__name__)


@asynccontextmanager
async def worker(runtime: Runtime, workers: Workers) -> AsyncIterator[None]:
    """Webhook: this worker announces itself, keeps to its share of the budget, and hears
    what the other workers save. At the end, every lease it holds (its chats and itself)
    goes back, so that the others take over at once."""
    core, supervisor = runtime.core, runtime.supervisor
    runtime.workers = workers
    core.budget.share(await workers.announce())
    supervisor.start("worker lease", lambda: workers.keep(core.budget.share))
    runner, reach = runtime.runner, runtime.reach
    assert runner is not None and reach is not None
    runner.standing_aside = lambda: reach.cut_off  # others run the timers meanwhile

    def heard(table_id: int | None) -> None:
        # Another worker saved a table: what it owes may be ours to send (a chat we hold),
        # its timers ours to run, its pages ours to tell. None: some may have been missed.
        if table_id is None:
            core.outbox_ready.set()
            core.live.changed_all()
        else:
            core.table_changed(table_id)
        runner.wake()

    supervisor.start("database listener", lambda: core.storage.listen(heard))
    try:
        yield
    finally:
        await supervisor.stop("database listener")
        await supervisor.stop("worker lease")
        try:
            await core.storage.leases.release_all(workers.holder)
        except Exception:
            log.warning("could not give back this worker's leases", exc_info=True)


@asynccontextmanager
async def work(runtime: Runtime, config: Config, holder: str) -> AsyncIterator[None]:
    """The stored timers and the outbox sender; at the end they finish what is under way
    (briefly) and give back their claims."""
    core, runner, supervisor = runtime.core, runtime.runner, runtime.supervisor
    assert runner is not None
    polling = config.webhook_url is None
    sender = Sender(core, holder=None if polling else holder, claim_seconds=config.lease_seconds)
    runtime.sender = sender
    if not polling and runtime.reach is not None:
        reach = runtime.reach
        sender.cut_off = lambda: reach.cut_off  # its chats go to the other workers meanwhile
    if polling and runtime.lease is not None:
        # The lock taken over: the other process sends and times from now on, not both.
        lease = runtime.lease
        sender.cut_off = runner.standing_aside = lambda: lease.lost
    supervisor.start("timers", runner.run)
    supervisor.start("outbox sender", sender.run)
    supervisor.start("pruning", lambda: prune.keep_pruning(core))
    try:
        yield
    finally:
        await supervisor.stop("pruning")
        await supervisor.stop("timers")
        await runner.stop()  # its claims go back: other workers may run them at once
        await supervisor.stop("outbox sender")
        await sender.stop()


@asynccontextmanager
async def telegram_watch(app: App, runtime: Runtime) -> AsyncIterator[None]:
    """The watch on whether Telegram answers (people's turn timers pause while it does not)."""
    reach = runtime.reach
    assert reach is not None
    runtime.supervisor.start("telegram watch", lambda: reach.watch(app.bot.get_me))
    try:
        yield
    finally:
        await runtime.supervisor.stop("telegram watch")
