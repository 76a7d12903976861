"""The PostgreSQL connection pool (asyncpg), its ``Conn`` and its transactions.

Why asyncpg: it speaks PostgreSQL's protocol itself (no libpq to install), runs natively on
asyncio with a connection pool built in, and its ``Record`` reads by name and by position like
``sqlite3.Row``, so the row mappers serve both backends unchanged.

Concurrency: unlike the SQLite backend, transactions from different coroutines (and processes)
run side by side, each on its own pooled connection. Writes run at READ COMMITTED: every check
the repositories make before changing a row is made by the statement that changes it (a table's
version in its UPDATE, unique indexes, ``ON CONFLICT``), or under a row lock
(``Dialect.for_update``). Reads run at REPEATABLE READ, READ ONLY: one snapshot per read, as on
SQLite.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import asyncpg

from bot.storage.conn import Clock, Conn
from bot.storage.errors import (
    ActiveTableExistsError,
    ConstraintError,
    SeatedElsewhereError,
    StorageError,
)
from bot.storage.pg_conn import PgConn
from bot.storage.pg_migrate import apply_pg_migrations

ONE_ACTIVE_INDEX = "game_tables_one_active_per_topic"
ONE_SEAT_INDEX = "seats_one_active_seat"


class PgDatabase:
    """An asyncpg pool; each transaction takes a connection from it."""

    def __init__(self, pool: asyncpg.Pool, *, url: str, clock: Clock = time.time) -> None:
        self._pool: asyncpg.Pool | None = pool
        self.clock = clock
        """Epoch seconds for the times the store writes (tests pass their own)."""
        self.url = url

    @classmethod
    async def open(
        cls, url: str, *, clock: Clock = time.time, min_size: int = 1, max_size: int = 8
    ) -> PgDatabase:
        """Connect to the database at ``url`` (``postgresql://user@host/db``) and bring its
        schema up to date."""
        try:
            pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size)
        except (OSError, asyncpg.PostgresError) as exc:
            raise StorageError(f"cannot connect to PostgreSQL: {exc}") from exc
        try:
            async with pool.acquire() as conn:
                await apply_pg_migrations(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, url=url, clock=clock)

    async def close(self) -> None:
        """Close the pool (waiting for running transactions first). Safe to call twice."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    @property
    def is_closed(self) -> bool:
        return self._pool is None

    @asynccontextmanager
    async def _transaction(self, **options: Any) -> AsyncIterator[Conn]:
        pool = self._pool
        if pool is None:
            raise StorageError("storage is closed")
        async with pool.acquire() as conn, conn.transaction(**options):
            yield PgConn(conn)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Conn]:
        """A write transaction; a broken constraint comes out as a ``StorageError``."""
        try:
            async with self._transaction() as conn:
                yield conn
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise _constraint_error(exc) from exc

    def read(self) -> AbstractAsyncContextManager[Conn]:
        """A read transaction: every query in it sees one snapshot."""
        return self._transaction(isolation="repeatable_read", readonly=True)


def _constraint_error(exc: asyncpg.IntegrityConstraintViolationError) -> StorageError:
    constraint = getattr(exc, "constraint_name", None)
    if constraint == ONE_ACTIVE_INDEX:
        return ActiveTableExistsError("the chat (or its topic) already has an active table")
    if constraint == ONE_SEAT_INDEX:
        return SeatedElsewhereError("a person already holds a seat at another active table")
    return ConstraintError(str(exc))
