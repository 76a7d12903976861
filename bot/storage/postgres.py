"""``Storage`` on PostgreSQL: an asyncpg pool (see ``pg_db``) shared by the repositories."""

from __future__ import annotations

import time
from collections.abc import Callable

import asyncpg

from bot.storage.conn import Clock
from bot.storage.parts import Repositories
from bot.storage.pg_db import PgDatabase

CHANNEL = "kozel_tables"  # see ``pg_conn.POSTGRES.notify_table``


class PostgresStorage(Repositories):
    """``Storage`` in a PostgreSQL database. Create it with ``await PostgresStorage.open(url)``."""

    def __init__(self, db: PgDatabase) -> None:
        super().__init__(db)
        self._url = db.url
        self._listener: asyncpg.Connection | None = None

    @classmethod
    async def open(
        cls, url: str, *, clock: Clock = time.time, max_connections: int = 8
    ) -> PostgresStorage:
        """Connect to ``url`` (``postgresql://user@host/db``) and bring the schema up to date."""
        return cls(await PgDatabase.open(url, clock=clock, max_size=max_connections))

    @property
    def url(self) -> str:
        return self._url

    async def watch_tables(self, on_change: Callable[[int], None]) -> None:
        """Listen on a connection of its own (a pooled one would be handed to others)."""
        conn = self._listener = await asyncpg.connect(self._url)

        def heard(_conn: object, _pid: int, _channel: str, payload: object) -> None:
            if isinstance(payload, str) and payload.isdigit():
                on_change(int(payload))

        await conn.add_listener(CHANNEL, heard)

    async def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.close()
        await super().close()
