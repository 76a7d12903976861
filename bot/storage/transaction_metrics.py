"""The database as the repositories use it, each transaction timed for ``/metrics``
(``kozel_db_seconds``): from asking for a connection (a pool or the SQLite lock may make it
wait) to the end of the transaction, commit included."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from bot.metrics import DB_SECONDS
from bot.storage.conn import Clock, Conn, Database


class TimedDatabase:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._read = DB_SECONDS.labels("read")
        self._write = DB_SECONDS.labels("write")

    @property
    def clock(self) -> Clock:
        return self._db.clock

    @property
    def is_closed(self) -> bool:
        return self._db.is_closed

    def read(self) -> AbstractAsyncContextManager[Conn]:
        return _timed(self._db.read(), self._read.observe)

    def write(self) -> AbstractAsyncContextManager[Conn]:
        return _timed(self._db.write(), self._write.observe)

    async def close(self) -> None:
        await self._db.close()


@asynccontextmanager
async def _timed(
    transaction: AbstractAsyncContextManager[Conn], observe: Callable[[float], None]
) -> AsyncIterator[Conn]:
    start = time.perf_counter()
    try:
        async with transaction as conn:
            yield conn
    finally:
        observe(time.perf_counter() - start)
