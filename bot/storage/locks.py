"""``ProcessLock``s: a lock on the database that the system frees the moment its holder's
process dies, unlike a lease that has to run out. PostgreSQL: a session advisory lock, held on
a connection of its own. SQLite: ``flock`` on a file beside the database (one machine)."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os

import asyncpg

from bot.storage.availability import Availability, describe
from bot.storage.errors import StorageUnavailable
from bot.storage.pg_db import is_unavailable

BOT_KEY = 0x6B6F7A656C0001  # one polling bot per database ("kozel", 1); the schema's is "kozel"
CHECK_TIMEOUT = 5.0  # seconds the holding session has to answer that it is alive


class PgProcessLock:
    def __init__(self, url: str, availability: Availability, key: int = BOT_KEY) -> None:
        self._url = url
        self._availability = availability
        self._key = key
        self._conn: asyncpg.Connection | None = None

    async def take(self, holder: str) -> bool:
        began = self._availability.begin()
        try:
            if self._conn is None or self._conn.is_closed():
                # Named after the holder: a waiting process can say who runs (``holder``).
                self._conn = await asyncpg.connect(
                    self._url, server_settings={"application_name": holder[:63]}
                )
            return bool(await self._conn.fetchval("SELECT pg_try_advisory_lock($1)", self._key))
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            self._availability.failed(began, exc)
            raise StorageUnavailable(describe(exc)) from exc

    async def held(self) -> bool:
        conn = self._conn
        if conn is None or conn.is_closed():
            return False
        try:
            await asyncio.wait_for(conn.fetchval("SELECT 1"), CHECK_TIMEOUT)
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
            name = await conn.fetchval(
                """
                SELECT a.application_name FROM pg_locks AS l JOIN pg_stat_activity AS a
                    ON a.pid = l.pid
                 WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                   AND l.classid = $1 AND l.objid = $2
                   AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """,
                self._key >> 32,
                self._key & 0xFFFFFFFF,
            )
        finally:
            await conn.close()
        return str(name) if name else None

    async def release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None or conn.is_closed():
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(conn.close(), CHECK_TIMEOUT)  # the lock goes with the session
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
