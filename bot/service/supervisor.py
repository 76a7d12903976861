"""The bot's background loops (the sender, the timers, the lease and worker renewals, the
database listener, Telegram's watch), kept running: a loop that fails is started again after
a pause that grows while it keeps failing, and is counted as down meanwhile (``/healthz``
says 503). A database out of reach is the store's to say, once; the loops wait quietly."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from ..storage import StorageUnavailable

log = logging.getLogger(__name__)

FIRST_PAUSE = 0.25  # seconds before a failed loop runs again
DATABASE_PAUSE = 1.0  # ... at most, while the database is away (it may be back any moment)
LONGEST_PAUSE = 30.0  # ... at most, after an unexpected error
STEADY = 60.0  # seconds a loop ran without failing: its next failure starts from FIRST_PAUSE


class Supervisor:
    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._down: set[str] = set()
        self.restarts = 0

    def start(self, name: str, loop: Callable[[], Awaitable[None]]) -> asyncio.Task[None]:
        """Run ``loop`` (a coroutine that runs until cancelled) and keep it running."""
        task = asyncio.create_task(self._keep(name, loop), name=name)
        self._tasks[name] = task
        return task

    def down(self) -> list[str]:
        """The loops not running now (failed, waiting to start again)."""
        return sorted(self._down)

    @property
    def tasks(self) -> list[asyncio.Task[None]]:
        return list(self._tasks.values())

    async def stop(self, name: str) -> None:
        task = self._tasks.pop(name, None)
        if task is not None:
            task.cancel()
            await asyncio.wait({task})
        self._down.discard(name)

    async def _keep(self, name: str, loop: Callable[[], Awaitable[None]]) -> None:
        pause = FIRST_PAUSE
        while True:
            began = time.monotonic()
            try:
                await loop()
                log.error("%s ended by itself; starting it again", name)
                longest = LONGEST_PAUSE
            except asyncio.CancelledError:
                raise
            except StorageUnavailable:
                longest = DATABASE_PAUSE  # said by the store, once
            except Exception:
                log.exception("%s failed; starting it again in %.2g s", name, pause)
                longest = LONGEST_PAUSE
            if time.monotonic() - began >= STEADY:
                pause = FIRST_PAUSE
            self._down.add(name)
            self.restarts += 1
            try:
                await asyncio.sleep(min(pause, longest))
            finally:
                self._down.discard(name)
            pause = min(pause * 2, longest)
