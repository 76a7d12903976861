"""The stores the storage tests run against: a SQLite file and a PostgreSQL database.

``target`` (a fixture in ``tests/conftest.py``, one run per backend) names a fresh store;
``await target.open()`` opens it, ``await target.query(sql)`` reads it over a connection of its
own, the way another process would (SQL with ``?`` marks, as in ``bot.storage``).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg

from bot.storage import PostgresStorage, SqliteStorage, Storage
from bot.storage.conn import Clock, Row
from bot.storage.pg_conn import numbered

BACKENDS = ("sqlite", "postgres")


@dataclass(frozen=True)
class Target:
    backend: str
    where: str  # the SQLite file or the PostgreSQL URL

    @property
    def is_postgres(self) -> bool:
        return self.backend == "postgres"

    async def open(self, clock: Clock | None = None) -> Storage:
        if self.is_postgres:
            if clock is None:
                return await PostgresStorage.open(self.where)
            return await PostgresStorage.open(self.where, clock=clock)
        if clock is None:
            return await SqliteStorage.open(self.where)
        return await SqliteStorage.open(self.where, clock=clock)

    async def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        if self.is_postgres:
            conn = await asyncpg.connect(self.where)
            try:
                return list(await conn.fetch(numbered(sql), *params))
            finally:
                await conn.close()
        with contextlib.closing(sqlite3.connect(self.where)) as conn:
            conn.row_factory = sqlite3.Row
            return list(conn.execute(sql, tuple(params)))

    async def count(self, sql: str, params: Sequence[Any] = ()) -> int:
        (row,) = await self.query(sql, params)
        return int(row[0])
