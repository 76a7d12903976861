"""``TimerRepo``: what each table waits for, as rows any worker may claim and run.

A table's timers are written with the change that sets them (``tables.save(timers=...)``
replaces them all), so a committed move always has its next wait. A worker claims due rows
until ``claimed_until``; finishing one deletes it unless the table set it anew meanwhile. A
claim whose worker died runs out and the row is claimed again: running a timer is safe to
repeat, since it checks that the table is still where it was when the timer was set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.storage.conn import Conn, Database, Row
from bot.storage.rows import opt_int
from bot.storage.unknown import skipped


class TimerSlot(StrEnum):
    """A table's timer slots (one timer each at a time; stored as these strings)."""

    AI = "ai"  # a computer's move, or its special lead out of turn
    TIMEOUT = "timeout"  # a person's turn runs out
    HURRY = "hurry"  # a person's turn is nearly out: the hand shows the time left
    EXPIRE = "expire"  # the table closes, unchanged for too long


@dataclass(frozen=True)
class Timer:
    """One thing a table waits for: ``kind`` at ``ply`` (for ``seat``), due at ``due_at``."""

    slot: str  # a ``TimerSlot`` (a newer release's may be another string)
    kind: str
    ply: int
    due_at: float  # epoch seconds
    seat: int | None = None
    table_id: int = 0  # set by the store


_COLUMNS = "table_id, slot, kind, ply, seat, due_at"


KINDS = ("ai", "special", "timeout", "hurry", "expire")
"""The timer kinds this release sets and runs (the service's ``DueKind``; a test keeps the two
equal). A timer of another kind is a newer release's: left alone (``unknown``)."""
_OURS = f"kind IN ({', '.join(repr(kind) for kind in KINDS)})"


async def replace(conn: Conn, table_id: int, timers: Sequence[Timer], now: float) -> None:
    """Make ``timers`` the table's only ones (of the kinds this release knows; a newer
    release's stay, to be dropped by it when their ply is past), in the caller's transaction."""
    slots = tuple(timer.slot for timer in timers)
    taken = f" OR slot IN ({', '.join('?' for _ in slots)})" if slots else ""
    await conn.execute(
        f"DELETE FROM timers WHERE table_id = ? AND ({_OURS}{taken})", (table_id, *slots)
    )
    await _insert(conn, table_id, timers, now)


async def _insert(conn: Conn, table_id: int, timers: Sequence[Timer], now: float) -> None:
    await conn.executemany(
        f"INSERT INTO timers ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
        [(table_id, t.slot, t.kind, t.ply, t.seat, t.due_at) for t in timers],
    )
    if timers:
        # A kind that is paused now is paused from the start: it keeps all its time.
        await conn.execute(
            f"UPDATE timers SET paused_left = {_LEFT} WHERE table_id = ? AND paused_left IS NULL "
            "AND kind IN (SELECT name FROM pauses)",
            (now, now, table_id),
        )


_LEFT = "CASE WHEN due_at > ? THEN due_at - ? ELSE 0 END"  # seconds left at a time


def _timer(row: Row) -> Timer:
    return Timer(
        slot=str(row["slot"]),
        kind=str(row["kind"]),
        ply=int(row["ply"]),
        due_at=float(row["due_at"]),
        seat=opt_int(row["seat"]),
        table_id=int(row["table_id"]),
    )


UNKNOWN_LOOK = 30.0  # seconds between looks for timers of a kind this release cannot run


def _kinds(kinds: Sequence[str] | None) -> tuple[str, tuple[str, ...]]:
    """The ``AND kind IN (...)`` that keeps to ``kinds`` (none: any kind), and its values."""
    if kinds is None:
        return "", ()
    return f" AND {_kind_in(kinds)}", tuple(kinds)


def _kind_in(kinds: Sequence[str]) -> str:
    return f"kind IN ({', '.join('?' for _ in kinds)})"


class Timers:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._unknown_looked = float("-inf")

    async def put(self, table_id: int, timers: Sequence[Timer]) -> None:
        """Set these slots of the table (others stay)."""
        now = self._db.clock()
        async with self._db.write() as conn:
            for timer in timers:
                await conn.execute(
                    "DELETE FROM timers WHERE table_id = ? AND slot = ?", (table_id, timer.slot)
                )
            await _insert(conn, table_id, timers, now)

    async def claim(
        self, holder: str, seconds: float, limit: int = 16, *, kinds: Sequence[str] | None = None
    ) -> list[Timer]:
        """Claim up to ``limit`` due timers nobody holds (or whose claim ran out), soonest
        first, for ``seconds``. Workers claiming at once get different rows. ``kinds``: only
        these (the ones this release can run; others wait for a release that knows them)."""
        now = self._db.clock()
        known, params = _kinds(kinds)
        async with self._db.write() as conn:
            rows = await conn.fetchall(
                f"""
                UPDATE timers SET claimed_by = ?, claimed_until = ?
                 WHERE (table_id, slot) IN (
                       SELECT table_id, slot FROM timers
                        WHERE due_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
                          AND paused_left IS NULL{known}
                        ORDER BY due_at LIMIT ?{conn.dialect.skip_locked})
                RETURNING {_COLUMNS}
                """,
                (holder, now + seconds, now, now, *params, limit),
            )
        return sorted((_timer(row) for row in rows), key=lambda t: t.due_at)

    async def done(self, timer: Timer, holder: str) -> None:
        """Finish a claimed timer: gone, unless its table set that slot anew meanwhile."""
        async with self._db.write() as conn:
            await conn.execute(
                "DELETE FROM timers WHERE table_id = ? AND slot = ? AND claimed_by = ? "
                "AND due_at = ?",
                (timer.table_id, timer.slot, holder, timer.due_at),
            )

    async def release(self, holder: str | None) -> None:
        """Give back every claim of ``holder`` (a clean stop), or (None) every claim of anybody
        (a worker starting alone: whoever held them is gone)."""
        async with self._db.write() as conn:
            await conn.execute(
                "UPDATE timers SET claimed_by = NULL, claimed_until = NULL "
                "WHERE claimed_by = ? OR (? AND claimed_by IS NOT NULL)",
                (holder or "", holder is None),
            )

    async def next_time(self, *, kinds: Sequence[str] | None = None) -> float | None:
        """When the next timer may be claimed: the soonest due one nobody holds, or the soonest
        claim to run out (None: no timers). ``kinds``: only these, as in ``claim``; a timer of
        another kind is said once (``unknown``) and left alone."""
        known, params = _kinds(kinds)
        now = self._db.clock()
        async with self._db.read() as conn:
            row = await conn.fetchone(
                "SELECT (SELECT min(due_at) FROM timers "
                f"        WHERE claimed_until IS NULL AND paused_left IS NULL{known}) AS free, "
                "(SELECT min(claimed_until) FROM timers "
                f" WHERE claimed_until IS NOT NULL AND paused_left IS NULL{known}) AS held",
                (*params, *params),
            )
            if kinds is not None and now - self._unknown_looked >= UNKNOWN_LOOK:
                self._unknown_looked = now
                others = await conn.fetchall(
                    f"SELECT DISTINCT kind FROM timers WHERE NOT ({_kind_in(kinds)}) LIMIT 20",
                    params,
                )
                for other in others:
                    skipped("timer kind", str(other["kind"]))
        if row is None:
            return None
        times = [float(v) for v in (row["free"], row["held"]) if v is not None]
        return min(times) if times else None

    async def pause(self, kind: str, since: float) -> bool:
        """Stop the timers of ``kind`` as of ``since`` (epoch seconds): each keeps the seconds
        it had left then, and one set meanwhile is stopped too, until ``resume``. False if
        that kind was paused already (since earlier)."""
        async with self._db.write() as conn:
            added = await conn.execute(
                "INSERT INTO pauses (name, since) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                (kind, since),
            )
            if not added:
                return False
            await conn.execute(
                f"UPDATE timers SET paused_left = {_LEFT} WHERE kind = ? AND paused_left IS NULL",
                (since, since, kind),
            )
        return True

    async def resume(self, kind: str, *, deadlines: bool = True) -> float | None:
        """Run the timers of ``kind`` again, each with the time it had left (and, with
        ``deadlines``, a seat's deadline with its timer, its table's version moved on so that
        whoever holds the table reads it again); returns since when they were paused (None:
        they were not)."""
        now = self._db.clock()
        async with self._db.write() as conn:
            row = await conn.fetchone("SELECT since FROM pauses WHERE name = ?", (kind,))
            if row is None:
                return None
            if deadlines:
                await conn.execute(
                    "UPDATE game_tables SET version = version + 1 WHERE id IN ("
                    "SELECT table_id FROM timers WHERE kind = ? AND paused_left IS NOT NULL "
                    "AND seat IS NOT NULL)",
                    (kind,),
                )
            await conn.execute(
                "UPDATE timers SET due_at = ? + paused_left, paused_left = NULL "
                "WHERE kind = ? AND paused_left IS NOT NULL",
                (now, kind),
            )
            if deadlines:
                # The seat's deadline (what the Mini App counts down) follows its timer.
                await conn.execute(
                    """
                    UPDATE seats SET deadline = (
                           SELECT t.due_at FROM timers AS t
                            WHERE t.table_id = seats.table_id AND t.seat = seats.seat
                              AND t.kind = ?)
                     WHERE deadline IS NOT NULL AND EXISTS (
                           SELECT 1 FROM timers AS t
                            WHERE t.table_id = seats.table_id AND t.seat = seats.seat
                              AND t.kind = ?)
                    """,
                    (kind, kind),
                )
            await conn.execute("DELETE FROM pauses WHERE name = ?", (kind,))
        return float(row["since"])

    async def paused(self, kind: str) -> float | None:
        """Since when the timers of ``kind`` are paused (None: they run)."""
        async with self._db.read() as conn:
            row = await conn.fetchone("SELECT since FROM pauses WHERE name = ?", (kind,))
        return None if row is None else float(row["since"])

    async def of_table(self, table_id: int) -> list[Timer]:
        async with self._db.read() as conn:
            rows = await conn.fetchall(
                f"SELECT {_COLUMNS} FROM timers WHERE table_id = ? ORDER BY slot", (table_id,)
            )
        return [_timer(row) for row in rows]

    async def tables(self) -> set[int]:
        """The tables that have a timer."""
        async with self._db.read() as conn:
            rows = await conn.fetchall("SELECT DISTINCT table_id FROM timers")
        return {int(row["table_id"]) for row in rows}
