"""``Storage`` on PostgreSQL: an asyncpg pool (see ``pg_db``) shared by the repositories."""

from __future__ import annotations

import time

from bot.storage.conn import Clock
from bot.storage.parts import Repositories
from bot.storage.pg_db import PgDatabase


class PostgresStorage(Repositories):
    """``Storage`` in a PostgreSQL database. Create it with ``await PostgresStorage.open(url)``."""

    def __init__(self, db: PgDatabase) -> None:
        super().__init__(db)
        self._url = db.url

    @classmethod
    async def open(
        cls, url: str, *, clock: Clock = time.time, max_connections: int = 8
    ) -> PostgresStorage:
        """Connect to ``url`` (``postgresql://user@host/db``) and bring the schema up to date."""
        return cls(await PgDatabase.open(url, clock=clock, max_size=max_connections))

    @property
    def url(self) -> str:
        return self._url
