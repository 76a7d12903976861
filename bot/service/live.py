"""Coalesced message refreshes: one worker per message key, so bursts collapse into one edit.

While a refresh is in flight (the rate limiter may hold it for seconds in a busy group),
further marks only set a flag; the worker then renders the latest state once more.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable

log = logging.getLogger(__name__)

Refresh = Callable[[], Awaitable[None]]


class LiveMessages:
    def __init__(self, interval: float) -> None:
        self._interval = interval
        self._dirty: dict[Hashable, Refresh] = {}
        self._tasks: dict[Hashable, asyncio.Task[None]] = {}

    def mark(self, key: Hashable, refresh: Refresh) -> None:
        self._dirty[key] = refresh
        task = self._tasks.get(key)
        if task is None or task.done():
            self._tasks[key] = asyncio.create_task(self._run(key), name=f"refresh {key}")

    async def _run(self, key: Hashable) -> None:
        while (refresh := self._dirty.pop(key, None)) is not None:
            try:
                await refresh()
            except Exception:
                log.exception("refresh of %s failed", key)
            if self._interval:
                await asyncio.sleep(self._interval)

    async def settle(self) -> None:
        """Wait until every pending refresh has run (used at shutdown)."""
        while tasks := [t for t in self._tasks.values() if not t.done()]:
            await asyncio.gather(*tasks, return_exceptions=True)

    def cancel_all(self) -> None:
        for task in self._tasks.values():
            task.cancel()
