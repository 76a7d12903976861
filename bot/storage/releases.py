"""``ReleaseRepo``: which release each live worker runs, so that a release writes what the one
before it cannot read only once no worker of that one is left (see CONTRIBUTING.md).

A worker announces itself (its holder name, ``bot.release.RELEASE`` and its version text) with
an expiry, renews it while it runs and deletes it on a clean stop; a dead worker's row ages
out. Releases before this table (v0.30 and older) never announce themselves: they are found by
what they hold instead, a lease or a timer claim under a holder name the table does not know.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.conn import Database

UNREGISTERED = 30
"""The release a live holder that never announced itself is taken for: v0.30, the last release
without this table (older ones cannot run beside this schema anyway)."""

_ANNOUNCE = """
INSERT INTO worker_releases (holder, release, version, started_at, expires_at)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (holder) DO UPDATE SET release = excluded.release, version = excluded.version,
                                   expires_at = excluded.expires_at
"""

# Holders alive now by what they hold: a lease (a worker's own, its chats' claims) or a timer
# claim. A lease whose holder is its own name (the shared 429 notice) is nobody's.
_UNKNOWN_HOLDER = """
SELECT holder FROM (
    SELECT holder FROM leases WHERE expires_at > ? AND holder <> name
    UNION
    SELECT claimed_by AS holder FROM timers WHERE claimed_until > ? AND claimed_by IS NOT NULL
) AS live
WHERE NOT EXISTS (SELECT 1 FROM worker_releases AS r WHERE r.holder = live.holder)
LIMIT 1
"""


@dataclass(frozen=True)
class LiveWorker:
    holder: str
    release: int
    version: str


class Releases:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def announce(self, holder: str, release: int, version: str, seconds: float) -> None:
        """This worker runs ``release``: said for ``seconds`` from now (renew before then)."""
        now = self._db.clock()
        async with self._db.write() as conn:
            await conn.execute(_ANNOUNCE, (holder, release, version, now, now + seconds))

    async def retire(self, holder: str) -> None:
        """A clean stop: this worker runs no release any more."""
        async with self._db.write() as conn:
            await conn.execute("DELETE FROM worker_releases WHERE holder = ?", (holder,))

    async def live(self) -> list[LiveWorker]:
        """The workers that announced themselves and are alive, oldest release first."""
        now = self._db.clock()
        async with self._db.read() as conn:
            rows = await conn.fetchall(
                "SELECT holder, release, version FROM worker_releases WHERE expires_at > ? "
                "ORDER BY release, holder",
                (now,),
            )
        return [LiveWorker(str(r["holder"]), int(r["release"]), str(r["version"])) for r in rows]

    async def oldest_live(self) -> int | None:
        """The oldest release any live worker runs (None: no worker is alive). A live holder
        of a lease or a timer claim that never announced itself counts as ``UNREGISTERED``.
        A row that expired but is not yet forgotten still vouches for its holder's claims:
        they were made by a release that announces itself."""
        now = self._db.clock()
        async with self._db.read() as conn:
            row = await conn.fetchone(
                "SELECT min(release) AS oldest FROM worker_releases WHERE expires_at > ?", (now,)
            )
            unknown = await conn.fetchone(_UNKNOWN_HOLDER, (now, now))
        oldest = None if row is None or row["oldest"] is None else int(row["oldest"])
        if unknown is not None:
            return UNREGISTERED if oldest is None else min(oldest, UNREGISTERED)
        return oldest

    async def forget_expired(self, before: float) -> int:
        """Drop the rows that expired before ``before`` (workers long gone); how many."""
        async with self._db.write() as conn:
            return await conn.execute("DELETE FROM worker_releases WHERE expires_at < ?", (before,))
