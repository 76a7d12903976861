"""Whether Telegram can be reached, as the bot's own calls find it. While it cannot, people
cannot move (they see nothing, their presses do not arrive), so their turn clocks stop: the
turn timers are paused in the database (``TimerRepo.pause``), each keeping the time it had
left, from the first call that failed; the first call Telegram answers again resumes them
(whichever worker makes it) and lets the outbox's failed rows go at once. Said once each way.

Every HTTP call to Telegram reports here (``answered`` / ``failed``); when no call has
succeeded for a moment, ``watch`` asks Telegram itself (``probe``, a cheap ``getMe``)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from ..storage import OutboxRepo, TimerRepo
from .ports import DueKind

log = logging.getLogger(__name__)

AWAY_AFTER = 1.5  # seconds of calls failing (none answered) before Telegram counts as away
LOOK_EVERY = 0.5  # seconds between looks
PROBE_AFTER = 2.0  # seconds without an answer after which the watch asks Telegram itself
# Seconds the probe (getMe, which Telegram answers at once) may take: a path that drops packets
# makes calls time out only after their own long timeouts (10 s to connect, 30 s to read).
PROBE_TIMEOUT = 5.0
PAUSED = str(DueKind.TIMEOUT)  # the timers that pause: a person's turn clock ...
WARNING = str(DueKind.HURRY)  # ... and its "time is nearly out" (a seat's deadline: the clock's)


class Reach:
    def __init__(
        self,
        timers: TimerRepo,
        outbox: OutboxRepo,
        *,
        wake: Callable[[], None],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.timers = timers
        self.outbox = outbox
        self.wake = wake  # the sender: what failed may go now
        self.clock = clock
        self.answered_at = clock()  # the bot starts having heard Telegram (getMe)
        self.failing_since: float | None = None  # the first failure since the last answer
        self.away = False  # this worker paused the timers (and said so)

    @property
    def cut_off(self) -> bool:
        """Telegram has not answered this worker for a while (``away``): beside other workers,
        it steps aside (claims no chat and no timer, ``/healthz`` says 503) until it does."""
        return self.away

    def answered(self) -> None:
        self.answered_at = self.clock()
        self.failing_since = None

    def failed(self, since: float | None = None) -> None:
        """A call got no answer (``since``: when it was made, if that says more)."""
        if self.failing_since is None:
            self.failing_since = self.clock() if since is None else since

    async def watch(self, probe: Callable[[], Awaitable[object]]) -> None:
        """Forever (cancel to stop): ask Telegram when nothing answered lately, and pause or
        resume the turn timers. A database that is away ends it (its supervisor starts it
        again); the state it had stays."""
        while True:
            await asyncio.sleep(LOOK_EVERY)
            if self.failing_since is not None or self.clock() - self.answered_at >= PROBE_AFTER:
                await self.ask(probe)
            await self.decide()

    async def ask(self, probe: Callable[[], Awaitable[object]]) -> None:
        """Ask Telegram; an answer, or a failure, is reported by the call itself. One that
        does not come within ``PROBE_TIMEOUT`` (packets dropped, not refused) is a failure
        from when it was asked: the pause starts seconds after the path broke, not when the
        first call's own timeout ends."""
        asked = self.clock()
        try:
            async with asyncio.timeout(PROBE_TIMEOUT):
                await probe()
        except TimeoutError:
            if self.answered_at < asked:  # no other call answered meanwhile
                self.failed(since=asked)
        except Exception:
            pass  # reported by the call

    async def decide(self) -> None:
        now = self.clock()
        if self.failing_since is not None:
            if not self.away and now - self.failing_since >= AWAY_AFTER:
                await self.timers.pause(PAUSED, self.failing_since)
                await self.timers.pause(WARNING, self.failing_since)
                self.away = True
                log.warning(
                    "Telegram cannot be reached (for %.1f s now): people's turn timers are "
                    "paused until it answers",
                    now - self.failing_since,
                )
            return
        if (
            self.away
            or await self.timers.paused(PAUSED) is not None
            or await self.timers.paused(WARNING) is not None
        ):
            # This worker reaches Telegram: whoever paused the timers, they run again.
            await self.timers.resume(WARNING, deadlines=False)
            since = await self.timers.resume(PAUSED)
            await self.outbox.retry_now(now)
            if self.away or since is not None:
                log.warning(
                    "Telegram answers again: turn timers run on with the time each had left "
                    "(paused for %.0f s)",
                    now - since if since is not None else 0.0,
                )
            self.away = False
            self.wake()
