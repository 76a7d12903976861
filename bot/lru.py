"""A map that keeps only its most recently used entries: what the process remembers about
people, messages and matches must not grow with their number (each is a cache or a tally that
may start afresh)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most ``size`` entries: one more forgets the least recently used. An entry that
    ``pinned`` says must stay (work in progress) is moved up instead, and the map waits over
    its size until the next addition."""

    def __init__(self, size: int, *, pinned: Callable[[V], bool] | None = None) -> None:
        self._items: OrderedDict[K, V] = OrderedDict()
        self._size = size
        self._pinned = pinned

    def get(self, key: K) -> V | None:
        """The value (counted as used now), or None."""
        if key not in self._items:
            return None
        self._items.move_to_end(key)
        return self._items[key]

    def peek(self, key: K) -> V | None:
        """The value, not counted as used, or None."""
        return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        """Store ``value`` as the most recently used entry."""
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self._size:
            oldest, kept = next(iter(self._items.items()))
            if self._pinned is not None and self._pinned(kept):
                self._items.move_to_end(oldest)
                return
            del self._items[oldest]

    def pop(self, key: K) -> V | None:
        return self._items.pop(key, None)

    def oldest_first(self) -> list[K]:
        """The keys, least recently used first (a copy: the map may change meanwhile)."""
        return list(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)


class Expiring(Generic[K, V]):
    """A cache of records read from the database: at most ``size``, each good for ``seconds``
    (0: nothing is kept). Every read and write hands out a ``copy``, so that a caller who
    changes its record never changes the cached one."""

    def __init__(self, size: int, seconds: float, copy: Callable[[V], V]) -> None:
        self._items: LRU[K, tuple[V, float]] = LRU(size)
        self._seconds = seconds
        self._copy = copy
        self._writes = 0  # forgets so far: a read begun before one may hold what it undid

    def mark(self) -> int:
        """Before a read from the database: ``put`` its record ``since`` this."""
        return self._writes

    def get(self, key: K) -> V | None:
        cached = self._items.get(key)
        if cached is None or cached[1] <= time.monotonic():
            return None
        return self._copy(cached[0])

    def put(self, key: K, value: V, *, since: int | None = None) -> None:
        """Keep ``value``; not when a write came since the read began (``since``: its
        ``mark``): its snapshot may be older than the write, and would be kept for long."""
        if since is not None and since != self._writes:
            return
        if self._seconds > 0:
            self._items.put(key, (self._copy(value), time.monotonic() + self._seconds))

    def forget(self, *keys: K) -> None:
        self._writes += 1
        for key in keys:
            self._items.pop(key)
