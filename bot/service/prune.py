"""Finished and cancelled tables are kept ``KOZEL_KEEP_FINISHED_DAYS`` days (their log answers
questions about a match for that long), then deleted in small batches with their seats, log,
timers and outbox leftovers; the ladder keeps every match. Any worker may prune: a batch is
one transaction, and a table deleted twice is deleted once."""

from __future__ import annotations

import asyncio
import logging
import time

from .core import Core

log = logging.getLogger(__name__)

DAY = 86400.0
BATCH = 200  # tables deleted in one transaction (a short one: other writes wait meanwhile)
PAUSE = 1.0  # seconds between batches while there is more to delete
EVERY = 3600.0  # seconds between looks when nothing is left


async def prune_once(core: Core, *, now: float | None = None) -> int:
    """Delete what is due now, batch after batch; returns how many tables went."""
    days = core.settings.keep_finished_days
    if days <= 0:
        return 0
    before = (time.time() if now is None else now) - days * DAY
    total = 0
    while True:
        deleted = await core.storage.tables.prune(finished_before=before, limit=BATCH)
        total += deleted
        if deleted < BATCH:
            break
        await asyncio.sleep(PAUSE)
    if total:
        log.info("pruned %d tables finished over %g days ago (the ladder keeps them)", total, days)
    return total


async def keep_pruning(core: Core) -> None:
    """Prune now and every hour, forever (cancel to stop); a failure ends it, for the
    supervisor to start it again."""
    while True:
        await prune_once(core)
        await asyncio.sleep(EVERY)
