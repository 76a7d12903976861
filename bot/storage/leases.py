"""``LeaseRepo``: one row per lease, taken over only once it has expired (either backend)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.storage.conn import Database

_TAKE = """
INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
WHERE leases.holder = excluded.holder OR leases.expires_at <= ?
"""


class Leases:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def take(self, name: str, holder: str, seconds: float) -> bool:
        now = self._db.clock()
        async with self._db.write() as conn:
            # One statement: insert, renew our own, or take over an expired one; else nothing.
            await conn.execute(_TAKE, (name, holder, now + seconds, now))
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

    async def take_many(self, names: Sequence[str], holder: str, seconds: float) -> set[str]:
        if not names:
            return set()
        now = self._db.clock()
        async with self._db.write() as conn:
            # In name order: two workers taking overlapping sets lock rows in the same order.
            await conn.executemany(_TAKE, [(n, holder, now + seconds, now) for n in sorted(names)])
            marks = ", ".join("?" for _ in names)
            rows = await conn.fetchall(
                f"SELECT name FROM leases WHERE holder = ? AND name IN ({marks})",
                (holder, *names),
            )
        return {str(row["name"]) for row in rows}

    async def live(self, prefix: str) -> int:
        now = self._db.clock()
        async with self._db.read() as conn:
            row = await conn.fetchone(
                "SELECT count(*) AS n FROM leases WHERE substr(name, 1, ?) = ? AND expires_at > ?",
                (len(prefix), prefix, now),
            )
        return 0 if row is None else int(row["n"])

    async def release_all(self, holder: str) -> None:
        async with self._db.write() as conn:
            await conn.execute("DELETE FROM leases WHERE holder = ?", (holder,))

    async def forget_expired(self, before: float) -> None:
        async with self._db.write() as conn:
            await conn.execute("DELETE FROM leases WHERE expires_at < ?", (before,))
