"""Runs the stored timers (computer moves, turn timers, expiries) of every table, whichever
worker set them: it claims the due rows for a while, runs each, then finishes it.

It is the service's ``Scheduler``: a change this process saved tells it when its soonest
timer is due (the row itself is already stored with the change), so the loop looks by then.
Timers other workers set are found by looking again at least every ``poll`` seconds. A
worker that dies holding claims leaves them to run out; then any worker claims them again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from ..metrics import TIMER_LATENESS, TIMERS_DUE, TIMERS_LATE
from ..storage import StorageUnavailable, Timer, TimerRepo
from ..storage.timers import KINDS
from ..wake import woken
from .deadlines import due_of
from .ports import Due
from .retry import until_stored

log = logging.getLogger(__name__)

POLL = 0.5  # seconds between looks for timers that other workers set
RUNNING = 16  # timers run at once (a strong computer's search runs in a thread)
SKIPPED_WAIT = 0.05  # due timers another worker holds locked: look again shortly


LATE = 1.0  # seconds after its due time a timer counts as late
# Claimed are only the kinds this release runs (``storage.timers.KINDS``, ``DueKind``'s
# values): a timer of another kind (a newer release's) waits for a worker that knows it.


def _count(timer: Timer) -> None:
    late = max(0.0, time.time() - timer.due_at)
    TIMERS_DUE.labels(timer.kind).inc()
    TIMER_LATENESS.observe(late)
    if late > LATE:
        TIMERS_LATE.labels(timer.kind).inc()


class TimerRunner:
    def __init__(
        self, timers: TimerRepo, *, holder: str, claim_seconds: float, poll: float = POLL
    ) -> None:
        self.timers = timers
        self.holder = holder
        self.claim_seconds = claim_seconds
        self.poll = poll
        self._run: Callable[[Due], Awaitable[None]] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._sleeping_until = 0.0
        self.fired = 0
        self.failed = 0  # timers that raised (left claimed, tried again later)
        # Whether to claim nothing now: a worker cut off from Telegram leaves the timers to
        # the others (a turn timeout would strike a player whose hand it never delivered).
        self.standing_aside: Callable[[], bool] = lambda: False

    def bind(self, run: Callable[[Due], Awaitable[None]]) -> None:
        """Set what runs a due timer (wired once at start-up: it needs the service's core)."""
        self._run = run

    def wake_by(self, at: float) -> None:
        """The ``Scheduler`` port: a timer was stored, due at ``at``. The loop wakes if it
        sleeps past that (not sleeping, it is looking right now and will see it)."""
        if not self._sleeping_until or at < self._sleeping_until:
            self._wake.set()

    def wake(self) -> None:
        """Look again now (another worker may have set a timer)."""
        self._wake.set()

    async def run(self) -> None:
        """Run due timers forever (cancel to stop). A look that fails (the database is away)
        ends it: its supervisor starts it again, and the timers under way go on."""
        while True:
            wait = await self.step()
            await self._sleep(wait)

    async def step(self) -> float:
        """Claim and start what is due; returns how long to wait before the next look."""
        room = RUNNING - len(self._running)
        if room <= 0 or self.standing_aside():
            return self.poll  # a timer that ends wakes the loop
        later = await self.timers.next_time(kinds=KINDS)
        if later is not None and later <= time.time():
            claimed = await self.timers.claim(
                self.holder, self.claim_seconds, limit=room, kinds=KINDS
            )
            for timer in claimed:
                _count(timer)
                task = asyncio.create_task(self._fire(timer), name=f"timer {timer.slot}")
                self._running.add(task)
            if not claimed:
                return SKIPPED_WAIT  # another worker is claiming them right now
            later = await self.timers.next_time(kinds=KINDS)
        wait = self.poll
        if later is not None:
            wait = min(wait, later - time.time())
        return max(wait, 0.0)

    async def _fire(self, timer: Timer) -> None:
        assert self._run is not None, "bind() first"
        try:
            await self._run(due_of(timer))
        except asyncio.CancelledError:
            raise
        except Exception as err:
            # Left claimed: it is tried again when the claim runs out, like after a crash.
            self.failed += 1
            if isinstance(err, StorageUnavailable):  # said by the store, once
                log.debug("timer %s of table %s waits for the database", timer.slot, timer.table_id)
            else:
                log.exception("timer %s of table %s failed", timer.slot, timer.table_id)
        else:
            self.fired += 1
            # Not booked for long, it runs again when its claim ends: safe (it checks the table).
            with contextlib.suppress(StorageUnavailable):
                await until_stored(lambda: self.timers.done(timer, self.holder), within=30.0)
        finally:
            self._running.discard(asyncio.current_task())
            self._wake.set()

    async def _sleep(self, seconds: float) -> None:
        self._sleeping_until = time.time() + seconds
        await woken(self._wake, seconds)
        self._wake.clear()
        self._sleeping_until = 0.0

    async def idle(self) -> None:
        """Wait until the timers this worker started have ended."""
        while self._running:
            await asyncio.wait(list(self._running))

    async def stop(self, grace: float = 2.0) -> None:
        """Let running timers finish (briefly), then give back every claim of this worker."""
        tasks = list(self._running)
        if tasks:
            await asyncio.wait(tasks, timeout=grace)
        for task in tasks:
            task.cancel()
        with contextlib.suppress(Exception):
            await self.timers.release(self.holder)
