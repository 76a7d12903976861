"""``LeaseRepo`` on SQLite: one row per lease, taken over only once it has expired."""

from __future__ import annotations

from bot.storage.db import Database
from bot.storage.rows import fetchone


class SqliteLeases:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def take(self, name: str, holder: str, seconds: float) -> bool:
        now = self._db.clock()
        async with self._db.write() as conn:
            # One statement: insert, renew our own, or take over an expired one; else nothing.
            await conn.execute(
                """
                INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET
                    holder = excluded.holder, expires_at = excluded.expires_at
                WHERE leases.holder = excluded.holder OR leases.expires_at <= ?
                """,
                (name, holder, now + seconds, now),
            )
            row = await fetchone(conn, "SELECT holder FROM leases WHERE name = ?", (name,))
        return row is not None and row[0] == holder

    async def holder(self, name: str) -> tuple[str, float] | None:
        async with self._db.read() as conn:
            row = await fetchone(
                conn, "SELECT holder, expires_at FROM leases WHERE name = ?", (name,)
            )
        return None if row is None else (str(row[0]), float(row[1]))

    async def release(self, name: str, holder: str) -> None:
        async with self._db.write() as conn:
            await conn.execute("DELETE FROM leases WHERE name = ? AND holder = ?", (name, holder))
