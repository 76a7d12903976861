"""Whether the database answers, as its transactions find it: said in the log once when it
stops answering and once when it is back, however many transactions fail meanwhile."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger("bot.storage")

# Seconds after a failure in which a transaction that succeeds does not yet mean the database
# is back: a server shutting down answers on one connection a moment after it cut another,
# and "back" then "cannot be reached" again 14 ms apart said one restart three times.
SETTLE = 1.0


class Availability:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.away_since: float | None = None  # clock() of the first failure
        self.outages = 0  # how many times it went away (said so each time)
        self._answered_began = 0.0  # when the latest transaction that succeeded began
        self._clock = clock

    @property
    def is_away(self) -> bool:
        return self.away_since is not None

    def begin(self) -> float:
        """A transaction starts: its stamp, for ``answered`` and ``failed``."""
        return self._clock()

    def answered(self, began: float) -> None:
        """A transaction begun at ``began`` succeeded. One that began before the database went
        away (it was nearly done), or within ``SETTLE`` of it, says nothing about whether it
        is back."""
        self._answered_began = max(self._answered_began, began)
        if self.away_since is not None and began >= self.away_since + SETTLE:
            away = self._clock() - self.away_since
            log.warning("the database answers again (it was away for %.1f s)", away)
            self.away_since = None

    def failed(self, began: float, error: BaseException) -> None:
        """A transaction begun at ``began`` could not reach the database. One that began before
        the database last answered tells nothing new (a connection from before an outage)."""
        if self.away_since is not None or began < self._answered_began:
            return
        self.away_since = self._clock()
        self.outages += 1
        log.warning(
            "the database cannot be reached (%s); waiting for it, and trying again",
            describe(error),
        )


def describe(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
