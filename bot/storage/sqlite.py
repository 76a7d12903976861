"""``Storage`` on SQLite: one connection (see ``db``) shared by the four repositories."""

from __future__ import annotations

import time
from types import TracebackType

from bot.storage.chats import SqliteChats
from bot.storage.db import Clock, Database
from bot.storage.ladder import SqliteLadder
from bot.storage.leases import SqliteLeases
from bot.storage.outbox import SqliteOutbox
from bot.storage.tables import SqliteTables
from bot.storage.users import SqliteUsers


class SqliteStorage:
    """``Storage`` backed by one SQLite file. Create it with ``await SqliteStorage.open(path)``."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.users = SqliteUsers(db)
        self.chats = SqliteChats(db)
        self.ladder = SqliteLadder(db)
        self.tables = SqliteTables(db, self.ladder)
        self.outbox = SqliteOutbox(db)
        self.leases = SqliteLeases(db)

    @classmethod
    async def open(
        cls, path: str, *, synchronous: str = "FULL", clock: Clock = time.time
    ) -> SqliteStorage:
        """Open (creating if needed) the database at ``path`` and bring its schema up to date.

        ``":memory:"`` gives a private in-memory database (no WAL), handy in tests.
        ``synchronous`` is SQLite's (``FULL``, ``NORMAL`` or ``EXTRA``; see ``db``).
        """
        return cls(await Database.open(path, synchronous=synchronous, clock=clock))

    @property
    def path(self) -> str:
        return self._db.path

    @property
    def is_closed(self) -> bool:
        return self._db.is_closed

    async def close(self) -> None:
        """Close the connection (waiting for a running operation first). Safe to call twice."""
        await self._db.close()

    async def __aenter__(self) -> SqliteStorage:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
