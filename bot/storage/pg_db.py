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

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import asyncpg

from bot.storage.availability import Availability, describe
from bot.storage.conn import Clock, Conn
from bot.storage.errors import (
    ActiveTableExistsError,
    ConstraintError,
    SeatedElsewhereError,
    StorageError,
    StorageUnavailable,
)
from bot.storage.pg_conn import PgConn
from bot.storage.pg_migrate import apply_pg_migrations

if TYPE_CHECKING:
    from bot.storage.pg_conn import Connection

ONE_ACTIVE_INDEX = "game_tables_one_active_per_topic"
ONE_SEAT_INDEX = "seats_one_active_seat"

log = logging.getLogger(__name__)

CLOSE_WITHIN = 5.0  # seconds a closing pool waits for its connections to be given back


RESYNC = 60.0  # seconds between two readings of the server's clock


class ServerClock:
    """The database server's clock, read through this host's: every worker stamps leases,
    claims and timers by the one clock they share, so a worker whose own clock is off takes
    nobody's fresh claim. ``local`` plus the offset measured at the last reading."""

    def __init__(self, local: Clock = time.time) -> None:
        self.local = local
        self.offset = 0.0
        self._read_at = -RESYNC

    def __call__(self) -> float:
        return self.local() + self.offset

    @property
    def is_due(self) -> bool:
        return time.monotonic() - self._read_at >= RESYNC

    async def read(self, conn: Connection) -> None:
        before = self.local()
        server = await conn.fetchval("SELECT extract(epoch FROM clock_timestamp())::float8")
        after = self.local()
        self.offset = float(server) - (before + after) / 2
        self._read_at = time.monotonic()


class PgDatabase:
    """An asyncpg pool; each transaction takes a connection from it."""

    def __init__(self, pool: asyncpg.Pool, *, url: str, clock: Clock | None = None) -> None:
        self._pool: asyncpg.Pool | None = pool
        self.availability = Availability()
        self._server_clock = ServerClock() if clock is None else None
        self.clock: Clock = clock or self._server_clock or time.time
        """Epoch seconds for the times the store writes: the server's (tests pass their own)."""
        self.url = url

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        clock: Clock | None = None,
        local_clock: Clock = time.time,
        min_size: int = 0,
        max_size: int = 8,
        migrate: bool = True,
    ) -> PgDatabase:
        """Connect to the database at ``url`` (``postgresql://user@host/db``) and bring its
        schema up to date (unless not ``migrate``: then ``migrate()`` does, later). ``clock``:
        a fixed clock (tests); by default the server's, read through ``local_clock``. No
        connection is kept open for its own sake (``min_size`` 0): while the server is away,
        nothing tries to reconnect but the bot's own work."""
        pool: asyncpg.Pool | None = None
        try:
            pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size)
            first = await pool.acquire()  # connects: the server, the user, the database
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            if pool is not None:
                await pool.close()
            raise StorageError(
                f"cannot connect to PostgreSQL at {server_of(url)}: {describe(exc)}"
            ) from exc
        try:
            db = cls(pool, url=url, clock=clock)
            try:
                if migrate:
                    await apply_pg_migrations(first)
                if db._server_clock is not None:
                    db._server_clock.local = local_clock
                    await db._server_clock.read(first)
            finally:
                await pool.release(first)
        except BaseException:
            await pool.close()
            raise
        return db

    async def migrate(self) -> list[int]:
        """Bring the schema up to date (see ``open``); the versions applied."""
        pool = self._pool
        if pool is None:
            raise StorageError("storage is closed")
        async with pool.acquire() as conn:
            return await apply_pg_migrations(conn)

    async def close(self) -> None:
        """Close the pool, waiting up to ``CLOSE_WITHIN`` seconds for running transactions;
        then cut what is left (a stop must end before the supervisor's SIGKILL, and a
        connection never given back would hold it for ever). Safe to call twice."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        try:
            async with asyncio.timeout(CLOSE_WITHIN):
                await pool.close()
        except TimeoutError:
            log.warning("database connections still busy after %g s: cut", CLOSE_WITHIN)
            pool.terminate()

    @property
    def is_closed(self) -> bool:
        return self._pool is None

    @asynccontextmanager
    async def _transaction(self, **options: Any) -> AsyncIterator[Conn]:
        pool = self._pool
        if pool is None:
            raise StorageError("storage is closed")
        began = self.availability.begin()
        try:
            conn = await pool.acquire()
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            raise self._unavailable(began, exc) from exc
        try:
            if self._server_clock is not None and self._server_clock.is_due:
                await self._server_clock.read(conn)
            async with conn.transaction(**options):
                yield PgConn(conn)
        except Exception as exc:
            # A connection cut in the middle of a statement can also surface as asyncpg's own
            # confusion about its state: what counts is that the connection is gone.
            if not (is_unavailable(exc) or conn.is_closed()):
                raise
            raise self._unavailable(began, exc) from exc
        finally:
            # A connection that broke after its work is done (resetting it failed) is
            # terminated and replaced by the pool: the transaction's outcome stands.
            with contextlib.suppress(Exception):
                await pool.release(conn)
        self.availability.answered(began)

    def _unavailable(self, began: float, exc: BaseException) -> StorageUnavailable:
        self.availability.failed(began, exc)
        return StorageUnavailable(describe(exc))

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


def server_of(url: str) -> str:
    """Where a URL points, as an operator names it: ``host:port`` (or the socket's folder),
    never the password."""
    parts = urlsplit(url)
    options = parse_qs(parts.query)
    host = parts.hostname or (options.get("host") or ["localhost"])[0]
    try:
        port = parts.port or int((options.get("port") or ["5432"])[0])
    except ValueError:
        port = 5432
    return f"{host}:{port}"


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the server cannot be reached now (refused, restarting, shut down,
    the connection cut), rather than that the statement was wrong."""
    if isinstance(exc, (OSError, TimeoutError, asyncpg.PostgresConnectionError)):
        return True
    if isinstance(
        exc,
        (
            asyncpg.CannotConnectNowError,
            asyncpg.AdminShutdownError,
            asyncpg.CrashShutdownError,
            asyncpg.TooManyConnectionsError,
        ),
    ):
        return True
    return isinstance(exc, asyncpg.InterfaceError) and "closed" in str(exc)


def _constraint_error(exc: asyncpg.IntegrityConstraintViolationError) -> StorageError:
    constraint = getattr(exc, "constraint_name", None)
    if constraint == ONE_ACTIVE_INDEX:
        return ActiveTableExistsError("the chat (or its topic) already has an active table")
    if constraint == ONE_SEAT_INDEX:
        return SeatedElsewhereError("a person already holds a seat at another active table")
    return ConstraintError(str(exc))
