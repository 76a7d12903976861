"""``ProcessLock``s: a lock on the database that the system frees the moment its holder's
process dies, unlike a lease that has to run out. PostgreSQL: a session advisory lock, held on
a connection of its own. SQLite: ``flock`` on a file beside the database (one machine)."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import time

import asyncpg

from bot.storage.availability import Availability, describe
from bot.storage.errors import StorageUnavailable
from bot.storage.pg_db import is_unavailable

log = logging.getLogger(__name__)

BOT_KEY = 0x6B6F7A656C0001  # one polling bot per database ("kozel", 1); the schema's is "kozel"
CHECK_TIMEOUT = 5.0  # seconds the holding session has to answer that it is alive
OWN_SESSION_ENDS = 5.0  # seconds this process's old session has to end once told to
NAME_LENGTH = 63  # PostgreSQL keeps this much of an application_name

# The sessions holding the lock, with their names (the holder's, see ``take``).
_HOLDERS = """
SELECT a.pid, a.application_name FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid
 WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
   AND l.classid = $1 AND l.objid = $2
   AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""


class PgProcessLock:
    def __init__(self, url: str, availability: Availability, key: int = BOT_KEY) -> None:
        self._url = url
        self._availability = availability
        self._key = key
        self._conn: asyncpg.Connection | None = None
        self._backend: int | None = None  # the server pid of the session that took the lock

    async def take(self, holder: str) -> bool:
        """Take the lock; a session of this very process that still holds it (its connection
        was cut by a network partition, and the server has not noticed) is ended first."""
        began = self._availability.begin()
        try:
            if self._conn is None or self._conn.is_closed():
                # Named after the holder: a waiting process can say who runs (``holder``).
                self._conn = await asyncpg.connect(
                    self._url, server_settings={"application_name": holder[:NAME_LENGTH]}
                )
            conn = self._conn
            if await self._try(conn) or await self._end_own_old_session(conn, holder):
                self._backend = conn.get_server_pid()
                return True
            return False
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            self._availability.failed(began, exc)
            raise StorageUnavailable(describe(exc)) from exc

    async def _try(self, conn: asyncpg.Connection) -> bool:
        return bool(await conn.fetchval("SELECT pg_try_advisory_lock($1)", self._key))

    async def _end_own_old_session(self, conn: asyncpg.Connection, holder: str) -> bool:
        """If the lock's holder is this process's own earlier session, end it and take the
        lock; True if taken. Ours: named after ``holder`` (host, pid, a random part), and,
        where the name had to be cut short, the server pid it had."""
        rows = await conn.fetch(_HOLDERS, self._key >> 32, self._key & 0xFFFFFFFF)
        name = holder[:NAME_LENGTH]
        own = [
            int(row["pid"])
            for row in rows
            if row["application_name"] == name
            and (len(holder) <= NAME_LENGTH or row["pid"] == self._backend)
            and row["pid"] != conn.get_server_pid()
        ]
        if not own:
            return False
        for pid in own:
            await conn.fetchval("SELECT pg_terminate_backend($1)", pid)
        # The session lets the lock go as it ends: a moment after it was told to.
        deadline = time.monotonic() + OWN_SESSION_ENDS
        while not await self._try(conn):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.05)
        log.warning("this process's own earlier database session held the lock: ended it")
        return True

    async def held(self) -> bool:
        conn = self._conn
        if conn is None or conn.is_closed():
            return False
        try:
            async with asyncio.timeout(CHECK_TIMEOUT):
                await conn.fetchval("SELECT 1")
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError):
            # The session is gone (a restart, a cut connection), and its lock with it.
            with contextlib.suppress(Exception):
                conn.terminate()
            self._conn = None
            return False
        return True

    async def holder(self) -> str | None:
        try:
            conn = await asyncpg.connect(self._url)
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            raise StorageUnavailable(describe(exc)) from exc
        try:
            row = await conn.fetchrow(_HOLDERS, self._key >> 32, self._key & 0xFFFFFFFF)
        finally:
            await conn.close()
        name = None if row is None else row["application_name"]
        return str(name) if name else None

    async def release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None or conn.is_closed():
            return
        with contextlib.suppress(Exception):
            async with asyncio.timeout(CHECK_TIMEOUT):
                await conn.close()  # the lock goes with the session
        if not conn.is_closed():
            conn.terminate()


class FileLock:
    """``flock`` on ``<database>.lock``, which holds the holder's name while it is held."""

    def __init__(self, path: str | None) -> None:
        self.path = None if path is None else f"{path}.lock"
        self._fd: int | None = None

    async def take(self, holder: str) -> bool:
        if self.path is None:  # an in-memory database: nobody else can open it
            return True
        if self._fd is not None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder.encode(), 0)
        self._fd = fd
        return True

    async def held(self) -> bool:
        return self.path is None or self._fd is not None

    async def holder(self) -> str | None:
        if self.path is None:
            return None
        try:
            with open(self.path, encoding="utf-8", errors="replace") as file:
                return file.read(200).strip() or None
        except OSError:
            return None

    async def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
