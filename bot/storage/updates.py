"""``UpdateRepo``: the Telegram updates taken lately, so that an update delivered twice (to two
workers, or again after an answer that got lost) is handled once, by whichever worker took it
first. A worker takes an update before handling it and finishes it after; one that failed gives
it back (Telegram sends it again); one that died leaves it taken, and anybody may take it again
once the dead worker's own lease has run out (``alive_prefix``: seconds, as its chats and
timers), or at the latest after ``stale_after`` seconds. Rows older than Telegram keeps an
update are forgotten."""

from __future__ import annotations

from enum import Enum

from bot.storage.conn import Database


class Taken(Enum):
    NEW = "new"  # now this worker's to handle
    DONE = "done"  # handled already: answer it, do nothing
    BUSY = "busy"  # another worker is handling it right now: let Telegram send it again


_TAKE = """
INSERT INTO updates (update_id, taken_by, taken_at) VALUES (?, ?, ?)
ON CONFLICT (update_id) DO UPDATE SET taken_by = excluded.taken_by, taken_at = excluded.taken_at
WHERE updates.done = 0 AND updates.taken_at <= ?
"""
# ... or its taker holds no live lease named ``prefix || taker`` (a worker that died).
_TAKE_FROM_DEAD = """
INSERT INTO updates (update_id, taken_by, taken_at) VALUES (?, ?, ?)
ON CONFLICT (update_id) DO UPDATE SET taken_by = excluded.taken_by, taken_at = excluded.taken_at
WHERE updates.done = 0 AND (
    updates.taken_at <= ?
    OR NOT EXISTS (
        SELECT 1 FROM leases
         WHERE leases.name = CAST(? AS TEXT) || updates.taken_by AND leases.expires_at > ?
    )
)
"""


class Updates:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def take(
        self, update_id: int, holder: str, *, stale_after: float, alive_prefix: str | None = None
    ) -> Taken:
        """``alive_prefix``: every taker holds a lease of that prefix and its name while it
        lives (``worker:``): an update whose taker's lease is gone is free at once."""
        now = self._db.clock()
        params: tuple[object, ...] = (update_id, holder, now, now - stale_after)
        sql = _TAKE
        if alive_prefix is not None:
            sql, params = _TAKE_FROM_DEAD, (*params, alive_prefix, now)
        async with self._db.write() as conn:
            # Every update costs these two writes: none waits for the disk (only a crash of
            # the database server itself could lose one, and Telegram sends it again then).
            if conn.dialect.lazy_commit:
                await conn.execute(conn.dialect.lazy_commit)
            if await conn.execute(sql, params):
                return Taken.NEW
            row = await conn.fetchone("SELECT done FROM updates WHERE update_id = ?", (update_id,))
        return Taken.DONE if row is not None and int(row["done"]) else Taken.BUSY

    async def finish(self, update_id: int) -> None:
        async with self._db.write() as conn:
            if conn.dialect.lazy_commit:
                await conn.execute(conn.dialect.lazy_commit)
            await conn.execute("UPDATE updates SET done = 1 WHERE update_id = ?", (update_id,))

    async def give_back(self, update_id: int, holder: str) -> None:
        """Free an update ``holder`` took and did not finish (its handling failed)."""
        async with self._db.write() as conn:
            await conn.execute(
                "DELETE FROM updates WHERE update_id = ? AND taken_by = ? AND done = 0",
                (update_id, holder),
            )

    async def forget(self, before: float) -> int:
        """Drop the updates taken before ``before`` (epoch seconds); returns how many."""
        async with self._db.write() as conn:
            return await conn.execute("DELETE FROM updates WHERE taken_at < ?", (before,))
