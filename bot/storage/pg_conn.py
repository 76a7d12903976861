"""``Conn`` over an asyncpg connection (``pg_db`` opens the pool and runs the transactions)."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import asyncpg

from bot.storage.conn import Dialect, Row

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

    Connection: TypeAlias = asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]

POSTGRES = Dialect(
    name="postgresql",
    username_is="lower(username) = lower(?)",
    for_update=" FOR UPDATE",
    skip_locked=" FOR UPDATE SKIP LOCKED",
    notify_table="SELECT pg_notify('kozel_tables', ?)",
    lazy_commit="SET LOCAL synchronous_commit TO OFF",
)


@functools.lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """``sql`` with each ``?`` mark outside a quoted string or identifier as ``$1``, ``$2``..."""
    out: list[str] = []
    quote = ""
    count = 0
    for char in sql:
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "?":
            count += 1
            out.append(f"${count}")
            continue
        out.append(char)
    return "".join(out)


class PgConn:
    """``Conn`` over an asyncpg connection."""

    dialect = POSTGRES

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        status = await self._conn.execute(numbered(sql), *params)
        # A command tag such as "UPDATE 3", "INSERT 0 1" or "DELETE 0": the count comes last.
        count = status.rsplit(" ", 1)[-1]
        return int(count) if count.isdigit() else 0

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        args = list(rows)
        if args:
            await self._conn.executemany(numbered(sql), args)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self._conn.fetch(numbered(sql), *params))

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        row: Row | None = await self._conn.fetchrow(numbered(sql), *params)
        return row
