"""In-process push for the Mini App: who watches which table, told after every commit.

A watcher is one open event stream of one seat's page; it exists while the page is open and
visible (the page closes its stream when it is hidden). Being watched is what lets a turn be
told in the page instead of by a new Telegram message, so it takes a page that is alive: one
that spoke lately (it opened its stream, called the API, or sent its heartbeat, every few
seconds while shown). A page that froze, or whose connection hangs half open, stops counting
after ``FRESH`` seconds, and the player gets their turn notices again. Everything here is this
process's: with several workers on PostgreSQL the database tells every worker of each saved
table (``Storage.listen``), and the stream also looks at the table's version now and then.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from .errors import ServiceError

MAX_WATCHERS = 2000  # open streams one process keeps; more are refused (nobody may hog it)
MAX_PER_SEAT = 4  # a player with a few tabs open is fine; a loop opening streams is not
FRESH = 12.0  # seconds a page counts as watching after its last sign of life (it beats every 5)


class Watcher:
    """One stream's doorbell: set when its table changed, or when the process stops.
    ``seat`` None: a spectator's page (it never makes a seat count as watched)."""

    def __init__(self, table_id: int, seat: int | None, user_id: int = 0) -> None:
        self.table_id = table_id
        self.seat = seat
        self.user_id = user_id
        self.changed = asyncio.Event()
        self.closed = False
        self.seen_at = time.monotonic()  # its last sign of life

    def is_fresh(self, now: float) -> bool:
        return now - self.seen_at <= FRESH


class TooManyWatchers(ServiceError):
    """The process or the seat has as many open streams as it allows."""


class Live:
    def __init__(self) -> None:
        self._watchers: dict[int, set[Watcher]] = {}
        # (table, seat, 0) for a seat's pages; (table, None, user) for a spectator's
        self._seats: Counter[tuple[int, int | None, int]] = Counter()
        self._count = 0
        # Hands not edited while their page showed them (table, seat): brought up to date
        # once the page is gone (``owed_hand``).
        self._held: set[tuple[int, int]] = set()

    def changed(self, table_id: int) -> None:
        """A change of the table was committed: wake its pages."""
        for watcher in self._watchers.get(table_id, ()):
            watcher.changed.set()

    def changed_all(self) -> None:
        """Changes may have been missed (the database's notifications were cut): every page
        looks at its table again."""
        for watchers in self._watchers.values():
            for watcher in watchers:
                watcher.changed.set()

    def alive(self, table_id: int, user_id: int) -> None:
        """A sign of life from ``user_id``'s page of the table (a heartbeat, an API call)."""
        now = time.monotonic()
        for watcher in self._watchers.get(table_id, ()):
            if watcher.user_id == user_id:
                watcher.seen_at = now

    @contextmanager
    def watch(self, table_id: int, seat: int | None, user_id: int = 0) -> Iterator[Watcher]:
        """A spectator (``seat`` None) may open a few streams of their own."""
        key = (table_id, seat, 0 if seat is not None else user_id)
        if self._count >= MAX_WATCHERS or self._seats[key] >= MAX_PER_SEAT:
            raise TooManyWatchers(f"table {table_id} seat {seat}")
        watcher = Watcher(table_id, seat, user_id)
        self._watchers.setdefault(table_id, set()).add(watcher)
        self._seats[key] += 1
        self._count += 1
        try:
            yield watcher
        finally:
            self._count -= 1
            self._seats[key] -= 1
            if self._seats[key] <= 0:
                del self._seats[key]
            watchers = self._watchers.get(table_id)
            if watchers is not None:
                watchers.discard(watcher)
                if not watchers:
                    del self._watchers[table_id]

    def is_watched(self, table_id: int, seat: int) -> bool:
        """Whether the seat's player has the page open, visible and alive in this process."""
        if self._seats.get((table_id, seat, 0), 0) <= 0:
            return False
        now = time.monotonic()
        return any(w.seat == seat and w.is_fresh(now) for w in self._watchers.get(table_id, ()))

    def hold_hand(self, table_id: int, seat: int) -> None:
        """The seat's hand message was not edited: its page shows the hand."""
        self._held.add((table_id, seat))

    def owed_hand(self, table_id: int, seat: int) -> bool:
        """The seat's page is gone (or froze) and its hand message missed edits meanwhile:
        True once, and the hand is then owed one edit."""
        key = (table_id, seat)
        if key not in self._held or self.is_watched(table_id, seat):
            return False
        self._held.discard(key)
        return True

    def close(self) -> None:
        """The process stops: every stream ends."""
        for watchers in self._watchers.values():
            for watcher in watchers:
                watcher.closed = True
                watcher.changed.set()

    def tracked(self) -> int:
        return self._count
