"""What the database knows about the bot as a whole, for ``/metrics`` and the owner's ``/status``:
each a small query on an index (live tables, their players, the outbox), never a scan of the
history (the newest matches are counted, at most ``RECENT`` of them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.storage.conn import Database
from bot.storage.records import ACTIVE_STATUSES

RECENT = 10_000  # newest matches looked at for "matches since" (more: at least this many)

_ACTIVE_SQL = "(" + ", ".join(f"'{status}'" for status in ACTIVE_STATUSES) + ")"


@dataclass(frozen=True)
class Snapshot:
    tables: dict[str, int] = field(default_factory=dict)  # live tables by status
    players: int = 0  # people seated at live tables
    outbox: int = 0  # rows owed to Telegram
    oldest_owed: float | None = None  # epoch seconds of the oldest of them
    matches: int = 0  # matches finished since the time asked for (at most RECENT)


class Facts:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def snapshot(self, *, matches_since: float | None = None) -> Snapshot:
        async with self._db.read() as conn:
            rows = await conn.fetchall(
                "SELECT status, count(*) AS n FROM game_tables "
                f"WHERE status IN {_ACTIVE_SQL} GROUP BY status",
                (),
            )
            tables = {str(status): 0 for status in ACTIVE_STATUSES}
            tables.update({str(row["status"]): int(row["n"]) for row in rows})
            players = await conn.fetchone(
                "SELECT count(*) AS n FROM seats "
                "WHERE active = 1 AND coalesce(user_id, left_user_id) IS NOT NULL",
                (),
            )
            owed = await conn.fetchone(
                "SELECT count(*) AS n, min(created_at) AS oldest FROM outbox", ()
            )
            matches = 0
            if matches_since is not None:
                row = await conn.fetchone(
                    "SELECT count(*) AS n FROM (SELECT finished_at FROM matches "
                    "ORDER BY id DESC LIMIT ?) AS recent WHERE finished_at >= ?",
                    (RECENT, matches_since),
                )
                matches = int(row["n"]) if row is not None else 0
        assert players is not None and owed is not None
        oldest = owed["oldest"]
        return Snapshot(
            tables=tables,
            players=int(players["n"]),
            outbox=int(owed["n"]),
            oldest_owed=None if oldest is None else float(oldest),
            matches=matches,
        )
