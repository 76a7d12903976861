"""``Storage`` on SQLite: one writing and one reading connection (see ``db``), shared by the
repositories."""

from __future__ import annotations

import time

from bot.storage.conn import Clock
from bot.storage.db import SqliteDatabase
from bot.storage.locks import FileLock
from bot.storage.parts import Repositories


class SqliteStorage(Repositories):
    """``Storage`` backed by one SQLite file. Create it with ``await SqliteStorage.open(path)``."""

    def __init__(self, db: SqliteDatabase) -> None:
        # One process holds the file (``process_lock``): its own writes are all there are.
        super().__init__(db, user_cache=300.0)
        self._path = db.path
        self._sqlite = db

    @classmethod
    async def open(
        cls,
        path: str,
        *,
        synchronous: str = "FULL",
        clock: Clock = time.time,
        migrate: bool = True,
    ) -> SqliteStorage:
        """Open (creating if needed) the database at ``path`` and bring its schema up to date
        (unless not ``migrate``: the polling bot migrates once it holds the process lock).

        ``":memory:"`` gives a private in-memory database (no WAL), handy in tests.
        ``synchronous`` is SQLite's (``FULL``, ``NORMAL`` or ``EXTRA``; see ``db``).
        """
        db = await SqliteDatabase.open(path, synchronous=synchronous, clock=clock, migrate=migrate)
        return cls(db)

    async def migrate(self) -> list[int]:
        """Bring the schema up to date, if ``open`` was told not to; the versions applied."""
        return await self._sqlite.migrate()

    @property
    def path(self) -> str:
        return self._path

    def process_lock(self) -> FileLock:
        """``flock`` beside the database file (one machine: SQLite's own reach)."""
        return FileLock(None if self._path == ":memory:" else self._path)
