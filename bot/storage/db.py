"""The SQLite connection: opening it, its pragmas, and the read and write transactions.

Durability: WAL journal with ``synchronous=FULL`` by default, so a transaction is on disk (the WAL
is fsynced) when ``commit`` returns and survives a power cut as well as a process crash. With WAL,
``NORMAL`` is also safe against corruption and against process crashes, but the last commits can
be lost on power failure or an OS crash, after the bot may already have told players about them.
Our writes are small and human-paced (one per accepted action), so one fsync per commit is cheap;
pass ``synchronous="NORMAL"`` to ``open`` to trade that guarantee for speed.

Concurrency: every operation runs inside its own transaction (``BEGIN IMMEDIATE`` for writes,
``BEGIN`` for reads), writes under one ``asyncio.Lock`` on the writing connection, so coroutines
never see or interleave each other's half-done transactions, and multi-statement reads (a table
and its seats) come from one snapshot. Reads run on a second connection (read-only, its own
thread and lock): with WAL a reader sees every committed write and never waits for a write, so
the presses' reads do not queue behind another press's commit and its fsync. An in-memory
database has one connection for both.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import sqlite3
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import aiosqlite

from bot.storage.conn import Clock, Conn
from bot.storage.errors import (
    ActiveTableExistsError,
    ConstraintError,
    SeatedElsewhereError,
    StorageError,
)
from bot.storage.migrations import apply_migrations
from bot.storage.sqlite_conn import SqliteConn

SYNCHRONOUS_MODES = ("FULL", "NORMAL", "EXTRA")
BUSY_TIMEOUT_MS = 5000


class SqliteDatabase:
    """The writing aiosqlite connection, the reading one, and the lock each one's transactions
    take turns on."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        *,
        path: str,
        clock: Clock = time.time,
        reader: aiosqlite.Connection | None = None,
    ) -> None:
        self._conn: aiosqlite.Connection | None = conn
        self._lock = asyncio.Lock()
        # None: reads share the writing connection and its lock (an in-memory database)
        self._reader = reader
        self._read_lock = asyncio.Lock() if reader is not None else self._lock
        self.clock = clock
        """Epoch seconds for the times the store writes (tests pass their own)."""
        self.path = path

    @classmethod
    async def open(
        cls,
        path: str,
        *,
        synchronous: str = "FULL",
        clock: Clock = time.time,
        migrate: bool = True,
    ) -> SqliteDatabase:
        """Open (creating if needed) the database at ``path`` and bring its schema up to date
        (unless not ``migrate``: then ``migrate()`` does, later).

        ``":memory:"`` gives a private in-memory database (no WAL), handy in tests.
        """
        synchronous = synchronous.upper()
        if synchronous not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}, not {synchronous!r}")
        in_memory = path == ":memory:"
        try:
            if not in_memory:
                directory = os.path.dirname(os.path.abspath(path))
                os.makedirs(directory, exist_ok=True)
                _writable(path, directory)
        except OSError as exc:
            raise _unopenable(path, exc) from exc
        conn = await _connect(path)
        try:
            row = await SqliteConn(conn).fetchone("PRAGMA journal_mode = WAL")
            mode = None if row is None else row[0]
            if not in_memory and str(mode).lower() != "wal":
                raise StorageError(f"could not switch {path!r} to WAL journal mode (got {mode!r})")
            await conn.execute(f"PRAGMA synchronous = {synchronous}")
            await conn.execute("PRAGMA foreign_keys = ON")
            if migrate:
                await apply_migrations(conn)
        except sqlite3.Error as exc:  # a folder or file it may read but not write, say
            await conn.close()
            raise _unopenable(path, exc) from exc
        except BaseException:
            await conn.close()
            raise
        if in_memory:
            return cls(conn, path=path, clock=clock)
        try:
            reader = await _connect(path)
            await reader.execute("PRAGMA query_only = ON")
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path=path, clock=clock, reader=reader)

    async def migrate(self) -> list[int]:
        """Bring the schema up to date (see ``open``); the versions applied."""
        async with self._lock:
            if self._conn is None:
                raise StorageError("storage is closed")
            try:
                return await apply_migrations(self._conn)
            except sqlite3.Error as exc:
                raise _unopenable(self.path, exc) from exc

    async def close(self) -> None:
        """Close the connections (waiting for running operations first). Safe to call twice."""
        if self._reader is not None:
            async with self._read_lock:
                reader, self._reader = self._reader, None
                if reader is not None:
                    await reader.close()
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is None:
                return
            try:
                # Only a hint for the query planner: a file another process is writing to
                # ("database is locked" past the busy timeout) must not fail the close.
                with contextlib.suppress(sqlite3.OperationalError):
                    await conn.execute("PRAGMA optimize")
            finally:
                await conn.close()

    @property
    def is_closed(self) -> bool:
        return self._conn is None

    @asynccontextmanager
    async def _transaction(self, *, write: bool) -> AsyncIterator[Conn]:
        separate = not write and self._read_lock is not self._lock
        async with self._read_lock if separate else self._lock:
            conn = self._reader if separate else self._conn
            if conn is None or self._conn is None:
                raise StorageError("storage is closed")
            try:
                await conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                yield SqliteConn(conn)
                await conn.commit()
            except BaseException:
                # Queued behind anything still running on the connection's thread, so it runs
                # even if this coroutine was cancelled; a no-op when no transaction is open.
                await conn.rollback()
                raise

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Conn]:
        """A write transaction; a broken constraint comes out as a ``StorageError``."""
        try:
            async with self._transaction(write=True) as conn:
                yield conn
        except sqlite3.IntegrityError as exc:
            raise _constraint_error(exc) from exc

    def read(self) -> AbstractAsyncContextManager[Conn]:
        """A read transaction: every query in it sees one snapshot."""
        return self._transaction(write=False)


async def _connect(path: str) -> aiosqlite.Connection:
    """A connection with rows by name and a wait for a lock held by another process."""
    connection = aiosqlite.connect(path, isolation_level=None)
    try:
        conn = await connection
    except sqlite3.Error as exc:
        # aiosqlite's thread finishes the failed connection after this: let it, or it
        # would reach for an event loop that is closed by then (a traceback at exit).
        await asyncio.to_thread(connection._thread.join, 5.0)
        raise _unopenable(path, exc) from exc
    try:
        conn.row_factory = aiosqlite.Row
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except BaseException:
        await conn.close()
        raise
    return conn


def _writable(path: str, directory: str) -> None:
    """SQLite writes the file and, in WAL mode, two more beside it: both must be writable
    (checked first, so that the error names the cause rather than SQLite's "unable to open")."""
    for needed in (directory, path):
        if os.path.exists(needed) and not os.access(needed, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), needed)


def _unopenable(path: str, exc: BaseException) -> StorageError:
    """One line for the operator: which file, why, and as whom (a folder made by root and
    mounted into a container is the usual cause)."""
    reason = getattr(exc, "strerror", None) or str(exc)
    return StorageError(
        f"cannot open the SQLite database {os.path.abspath(path)}: {reason} (the file and its "
        f"folder must be writable by user id {os.geteuid()})"
    )


def _constraint_error(exc: sqlite3.IntegrityError) -> StorageError:
    message = str(exc)
    if "game_tables_one_active_per_topic" in message:
        return ActiveTableExistsError("the chat (or its topic) already has an active table")
    if "seats_one_active_seat" in message:
        return SeatedElsewhereError("a person already holds a seat at another active table")
    return ConstraintError(message)
