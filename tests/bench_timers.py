"""Benchmark: what arming a turn timer costs with many timers pending (run by hand).

    .venv/bin/python tests/bench_timers.py

Every move cancels its table's timer and schedules the next one through the bot's
``JobScheduler`` on PTB's job queue; the bot once found the old job by scanning every job's name.
Prints microseconds per re-arm with 10, 1,000 and 10,000 timers pending.
"""

from __future__ import annotations

import asyncio
import time

from telegram.ext import ApplicationBuilder

from bot.service.ports import Due, DueKind
from bot.telegram.io import JobScheduler

REARMS = 2000


async def nothing(_: Due) -> None:
    return None


async def rearm_cost(pending: int) -> float:
    app = ApplicationBuilder().token("1:bench").build()
    assert app.job_queue is not None
    await app.job_queue.start()
    try:
        scheduler = JobScheduler(app.job_queue)
        scheduler.bind(nothing)
        for table in range(pending):
            scheduler.schedule(f"turn:{table}", 3600, Due(DueKind.TIMEOUT, table, 0, 0))
        started = time.perf_counter()
        for move in range(REARMS):
            table = move % pending
            scheduler.schedule(f"turn:{table}", 3600, Due(DueKind.TIMEOUT, table, move, 0))
        return (time.perf_counter() - started) / REARMS
    finally:
        await app.job_queue.stop(wait=False)


async def main() -> None:
    for pending in (10, 1_000, 10_000):
        seconds = await rearm_cost(pending)
        print(f"{pending:>6} timers pending: {seconds * 1e6:7.1f} µs per re-arm")


if __name__ == "__main__":
    asyncio.run(main())
