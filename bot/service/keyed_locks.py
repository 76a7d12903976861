"""One asyncio lock per key (a table, a chat): two presses on one table in this process take
turns. Across processes the database's versions keep the order (``retry.py``)."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class KeyedLocks:
    """A lock lives while someone holds or waits for it; then it is forgotten, so the locks
    do not grow with the number of tables ever played."""

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    @asynccontextmanager
    async def hold(self, key: int) -> AsyncIterator[None]:
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        async with lock:
            yield

    def is_held(self, key: int) -> bool:
        lock = self._locks.get(key)
        return lock is not None and lock.locked()

    def __len__(self) -> int:
        return len(self._locks)
