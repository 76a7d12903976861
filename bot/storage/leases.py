"""``LeaseRepo``: one row per lease, taken over only once it has expired (either backend)."""

from __future__ import annotations

from bot.storage.conn import Database


class Leases:
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
            row = await conn.fetchone("SELECT holder FROM leases WHERE name = ?", (name,))
        return row is not None and row["holder"] == holder

    async def holder(self, name: str) -> tuple[str, float] | None:
        async with self._db.read() as conn:
            row = await conn.fetchone(
                "SELECT holder, expires_at FROM leases WHERE name = ?", (name,)
            )
        return None if row is None else (str(row["holder"]), float(row["expires_at"]))

    async def release(self, name: str, holder: str) -> None:
        async with self._db.write() as conn:
            await conn.execute("DELETE FROM leases WHERE name = ? AND holder = ?", (name, holder))
