"""The outbox: what the bot owes Telegram, written with the change that owes it.

A *mark* (table, hand, lobby) says "show this message again, from the committed state": there
is at most one row per message, and a new mark merges into it (the higher priority, the earlier
time, a new version). A *post* (a deal's result) and a *deletion* are delivered once each, in
order per chat. A row is finished with ``done(item)``: a mark that was marked again while it was
being delivered stays, for the newer state.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum

from bot.storage.conn import Conn, Database, Row
from bot.storage.rows import opt_int, opt_str
from bot.storage.unknown import skipped, sql_list


class OutboxKind(StrEnum):
    TABLE = "table"  # the group's table message
    HAND = "hand"  # a player's private hand message
    LOBBY = "lobby"  # the group's lobby message
    POST = "post"  # a new message (a deal's result), sent once
    DELETE = "delete"  # a message to delete


class Priority(IntEnum):
    """Who feels a late message most: lower goes first when the budget is tight, and when
    demand exceeds it the lowest are shed first (they wait, and their marks merge)."""

    TURN = 0  # never shed: the player whose turn it is, a trick's end in the group, results
    PRESSER = 1  # the player whose press found their hand out of date; the lobby (its people
    # pressed Join and wait to see their seat: on a busy evening a new table still starts)
    GROUP = 2  # the group's table between trick ends
    WAITING = 3  # players who only wait (their own cards changed, or they just played)
    ECHO = 4  # a hand showing the presser's own selection (their press's answer said it)
    CLEANUP = 5  # deletions of old messages


# Rows of a kind or a priority this release does not know (a newer release wrote them) are
# neither sent nor dropped here: they wait for a worker that knows them (``unknown``).
_KNOWN = (
    f"kind IN ({sql_list(tuple(k.value for k in OutboxKind))}) "
    f"AND priority IN ({sql_list(tuple(int(p) for p in Priority))})"
)
UNKNOWN_LOOK = 30.0  # seconds between looks for rows this release does not know


@dataclass
class Owed:
    """One outbox row. ``seat`` is -1 where no seat is meant."""

    kind: OutboxKind
    chat_id: int
    priority: Priority
    table_id: int | None = None
    seat: int = -1
    renew: bool = False  # a mark: send a new message instead of editing the old one
    text: str | None = None  # a post's text (HTML)
    notify: bool = False  # a post: with a notification
    message_id: int | None = None  # a deletion: the message
    not_before: float = 0.0  # epoch seconds; later marks may bring it closer
    id: int = 0  # set by the store
    version: int = 0
    attempts: int = 0
    created_at: float = 0.0  # when it was first owed (a mark: since when it waits)
    buttons: str | None = None  # a post's buttons (JSON, read by the service that wrote it)


_COLUMNS = (
    "id, kind, chat_id, table_id, seat, priority, renew, text, message_id, notify, "
    "not_before, attempts, version, created_at, buttons"
)

# Marks of one message merge: the earliest time wins, except over a selection's echo, which a
# later change (a play) takes the place of: that change says when (it may wait longer).
_INSERT = """
INSERT INTO outbox (kind, chat_id, table_id, seat, priority, renew, text, message_id, notify,
                    not_before, created_at, buttons)
VALUES (?, ?, ?, ?, ?, CASE WHEN ? THEN 1 ELSE 0 END, ?, ?, ?, ?, ?, ?)
ON CONFLICT (kind, table_id, seat) WHERE kind IN ('table', 'hand', 'lobby') DO UPDATE SET
    chat_id = excluded.chat_id,
    priority = CASE WHEN excluded.priority < outbox.priority THEN excluded.priority
                    ELSE outbox.priority END,
    renew = CASE WHEN excluded.renew > 0 THEN outbox.version + 1 ELSE outbox.renew END,
    not_before = CASE WHEN outbox.attempts > 0 THEN outbox.not_before
                      WHEN excluded.not_before < outbox.not_before THEN excluded.not_before
                      WHEN outbox.priority = {echo} AND excluded.priority < {echo}
                           THEN excluded.not_before
                      ELSE outbox.not_before END,
    version = outbox.version + 1
""".format(echo=int(Priority.ECHO))


async def owe(conn: Conn, items: Iterable[Owed], now: float) -> None:
    """Write ``items`` inside the caller's transaction."""
    rows = [
        (
            item.kind,
            item.chat_id,
            item.table_id,
            item.seat,
            int(item.priority),
            item.renew,
            item.text,
            item.message_id,
            int(item.notify),
            item.not_before,
            now,
            item.buttons,
        )
        for item in items
    ]
    if rows:
        await conn.executemany(_INSERT, rows)


def _item(row: Row) -> Owed:
    return Owed(
        kind=OutboxKind(row["kind"]),
        chat_id=int(row["chat_id"]),
        priority=Priority(int(row["priority"])),
        table_id=opt_int(row["table_id"]),
        seat=int(row["seat"]),
        renew=int(row["renew"]) > 0,  # the version that asked for it; 0: none
        text=opt_str(row["text"]),
        notify=bool(row["notify"]),
        message_id=opt_int(row["message_id"]),
        not_before=float(row["not_before"]),
        id=int(row["id"]),
        version=int(row["version"]),
        attempts=int(row["attempts"]),
        created_at=float(row["created_at"]),
        buttons=opt_str(row["buttons"]),
    )


class Outbox:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._unknown_looked = float("-inf")

    async def add(self, items: Sequence[Owed]) -> None:
        async with self._db.write() as conn:
            await owe(conn, items, self._db.clock())

    async def due(self, now: float, limit: int = 500) -> list[Owed]:
        """Rows that may go now, by priority, oldest first."""
        async with self._db.read() as conn:
            return await _due(conn, now, limit)

    async def look(
        self, now: float, limit: int = 500
    ) -> tuple[list[Owed], dict[tuple[int, int | None], int], float | None]:
        """``due``, ``held`` and ``next_time`` in one read (the sender's every step)."""
        async with self._db.read() as conn:
            due = await _due(conn, now, limit)
            held, at = await _later(conn, now)
            if now - self._unknown_looked >= UNKNOWN_LOOK:
                self._unknown_looked = now
                await _say_unknown(conn)
        return due, held, at

    async def held(self, now: float) -> dict[tuple[int, int | None], int]:
        """The (chat, table)s with a post that waits for a retry, and the oldest such post's
        id: that table's posts after it and its new messages wait too."""
        async with self._db.read() as conn:
            return (await _later(conn, now))[0]

    async def next_time(self, now: float) -> float | None:
        """When the next row that is not due at ``now`` becomes due (None: no such row)."""
        async with self._db.read() as conn:
            return (await _later(conn, now))[1]

    async def done(self, item: Owed, *, extra: Sequence[Owed] = ()) -> bool:
        """Finish ``item`` (and write what its delivery owes in turn, such as deleting the
        message it replaced). False when it was marked again meanwhile: it stays, without the
        ``renew`` that was just served."""
        async with self._db.write() as conn:
            await owe(conn, extra, self._db.clock())
            deleted = await conn.execute(
                "DELETE FROM outbox WHERE id = ? AND version = ?", (item.id, item.version)
            )
            if deleted:
                return True
            await conn.execute(
                "UPDATE outbox SET attempts = 0, "
                "renew = CASE WHEN renew <= ? THEN 0 ELSE renew END WHERE id = ?",
                (item.version, item.id),
            )
            return False

    async def retry(self, item: Owed, not_before: float, *, attempt: bool = True) -> None:
        """Try ``item`` again later (``attempt``: the try failed; counts for the backoff)."""
        async with self._db.write() as conn:
            await conn.execute(
                "UPDATE outbox SET not_before = ?, attempts = attempts + ? WHERE id = ?",
                (not_before, int(attempt), item.id),
            )

    async def retry_now(self, now: float) -> int:
        """Rows waiting after failed tries may go at once (what failed them is over); returns
        how many. Waits Telegram asked for (429) stay: they count no failed try."""
        async with self._db.write() as conn:
            return await conn.execute(
                "UPDATE outbox SET not_before = ? WHERE attempts > 0 AND not_before > ?",
                (now, now),
            )

    async def drop(self, item: Owed) -> None:
        """Give up on ``item`` (its chat is gone): it is not retried."""
        async with self._db.write() as conn:
            await conn.execute("DELETE FROM outbox WHERE id = ?", (item.id,))

    async def pending(self, table_id: int | None = None) -> int:
        """How many rows wait (for one table, or in all)."""
        sql, params = "SELECT count(*) AS n FROM outbox", tuple[int, ...]()
        if table_id is not None:
            sql, params = sql + " WHERE table_id = ?", (table_id,)
        async with self._db.read() as conn:
            row = await conn.fetchone(sql, params)
        assert row is not None
        return int(row["n"])


async def _due(conn: Conn, now: float, limit: int) -> list[Owed]:
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM outbox WHERE not_before <= ? AND {_KNOWN} "
        "ORDER BY priority, id LIMIT ?",
        (now, limit),
    )
    return [_item(row) for row in rows]


async def _later(conn: Conn, now: float) -> tuple[dict[tuple[int, int | None], int], float | None]:
    """What waits past ``now``: the held (chat, table)s (``Outbox.held``), and when the first
    of it becomes due (``Outbox.next_time``)."""
    rows = await conn.fetchall(
        "SELECT chat_id, table_id, kind, min(id) AS first, min(not_before) AS at "
        f"FROM outbox WHERE not_before > ? AND {_KNOWN} GROUP BY chat_id, table_id, kind",
        (now,),
    )
    held = {
        (int(row["chat_id"]), opt_int(row["table_id"])): int(row["first"])
        for row in rows
        if row["kind"] == "post"
    }
    return held, min((float(row["at"]) for row in rows), default=None)


async def _say_unknown(conn: Conn) -> None:
    rows = await conn.fetchall(
        f"SELECT DISTINCT kind, priority FROM outbox WHERE NOT ({_KNOWN}) LIMIT 20"
    )
    for row in rows:
        skipped("outbox row (kind, priority)", (str(row["kind"]), int(row["priority"])))
