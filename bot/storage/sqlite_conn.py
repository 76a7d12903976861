"""``Conn`` over an aiosqlite connection (``db`` opens it and runs its transactions)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import aiosqlite

from bot.storage.conn import Dialect, Row

SQLITE = Dialect(
    name="sqlite",
    username_is="username = ? COLLATE NOCASE",
    for_update="",
    skip_locked="",
    notify_table="",
)


class SqliteConn:
    """``Conn`` over an aiosqlite connection."""

    dialect = SQLITE

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with self._conn.execute(sql, params) as cursor:
            return cursor.rowcount

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        async with self._conn.executemany(sql, rows):
            pass

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self._conn.execute_fetchall(sql, params))

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        async with self._conn.execute(sql, params) as cursor:
            row: Row | None = await cursor.fetchone()
            return row
