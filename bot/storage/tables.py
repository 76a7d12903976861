"""``TableRepo``, on either backend: tables with their seats, and their logs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.storage import outbox, table_events
from bot.storage import timers as table_timers
from bot.storage.awards import Awarder
from bot.storage.conn import Conn, Database
from bot.storage.cups import Also
from bot.storage.errors import StaleVersionError, TableNotFoundError
from bot.storage.ladder import Ladder
from bot.storage.outbox import Owed
from bot.storage.records import (
    ACTIVE_STATUSES,
    Actor,
    LogEntry,
    LoggedEntry,
    LogKind,
    MatchRecord,
    Rater,
    SeatRecord,
    TableRecord,
    TableStatus,
)
from bot.storage.rows import (
    LOG_COLUMNS,
    SEAT_COLUMNS,
    TABLE_COLUMNS,
    TABLE_FIELDS,
    dump,
    insert_sql,
    log_rows,
    logged_from_row,
    seat_from_row,
    seat_rows,
    table_from_row,
    table_values,
)
from bot.storage.timers import Timer
from bot.storage.unknown import skipped

_ACTIVE_SQL = "(" + ", ".join(f"'{status}'" for status in ACTIVE_STATUSES) + ")"

_INSERT_TABLE = (
    insert_sql(
        "game_tables",
        "chat_id, thread_id, version, created_at, updated_at, " + ", ".join(TABLE_FIELDS),
    )
    + " RETURNING id"
)
_UPDATE_TABLE = (
    "UPDATE game_tables SET "
    + ", ".join(f"{name} = ?" for name in TABLE_FIELDS)
    + ", updated_at = ?, version = version + 1 "
    "WHERE id = ? AND version = ? RETURNING version, chat_id"
)
PRUNE_WINDOW = 1000  # the oldest tables one prune looks at (by id: an index, no scan)
_ENDED_SQL = f"('{TableStatus.FINISHED}', '{TableStatus.CANCELLED}')"
_INSERT_SEATS = insert_sql("seats", SEAT_COLUMNS)
_INSERT_LOG = insert_sql("table_log", LOG_COLUMNS)
_LOG_KINDS = frozenset(kind.value for kind in LogKind)  # others: a newer release's lines
_ACTORS = frozenset(actor.value for actor in Actor)


class Tables:
    def __init__(self, db: Database, ladder: Ladder) -> None:
        self._db = db
        self._ladder = ladder  # a finished table's match is recorded in the save's transaction

    async def create(
        self,
        table: TableRecord,
        *,
        owe: Sequence[Owed] = (),
        timers: Sequence[Timer] = (),
        also: Also | None = None,
    ) -> TableRecord:
        if table.id != 0:
            raise ValueError(f"tables.create needs a new table (id 0), got id {table.id}")
        now = self._db.clock()
        version = 1
        async with self._db.write() as conn:
            row = await conn.fetchone(
                _INSERT_TABLE,
                (table.chat_id, table.thread_id, version, now, now, *table_values(table)),
            )
            assert row is not None
            table_id = int(row["id"])
            await conn.executemany(
                _INSERT_SEATS, seat_rows(table_id, table.seats, active=table.is_active)
            )
            await outbox.owe(conn, [_of_table(item, table_id) for item in owe], now)
            await table_timers.replace(conn, table_id, timers, now)
            if also is not None:
                await also(conn, table_id)
        table.id = table_id
        table.version = version
        table.created_at = now
        table.updated_at = now
        table_events.opened(table)
        return table

    async def get(self, table_id: int) -> TableRecord | None:
        async with self._db.read() as conn:
            tables = await _load(conn, "id = ?", (table_id,))
        return tables[0] if tables else None

    async def active_for_chat(
        self, chat_id: int, thread_id: int | None = None
    ) -> TableRecord | None:
        async with self._db.read() as conn:
            tables = await _load(
                conn,
                # The unique index's own expression: no topic is thread 0.
                f"chat_id = ? AND coalesce(thread_id, 0) = ? AND status IN {_ACTIVE_SQL}",
                (chat_id, thread_id or 0),
            )
        return tables[-1] if tables else None

    async def newest_id(self, chat_id: int, thread_id: int | None = None) -> int | None:
        """The id of the chat's (topic's) latest table, in any state (None: it had none)."""
        async with self._db.read() as conn:
            row = await conn.fetchone(
                "SELECT max(id) AS id FROM game_tables "
                "WHERE chat_id = ? AND coalesce(thread_id, 0) = ?",
                (chat_id, thread_id or 0),
            )
        return None if row is None or row["id"] is None else int(row["id"])

    async def active_in_chat(self, chat_id: int) -> list[TableRecord]:
        async with self._db.read() as conn:
            return await _load(conn, f"chat_id = ? AND status IN {_ACTIVE_SQL}", (chat_id,))

    async def active_for_user(self, user_id: int) -> TableRecord | None:
        async with self._db.read() as conn:
            tables = await _load(
                conn,
                f"""id = (SELECT t.id FROM game_tables AS t JOIN seats AS s ON s.table_id = t.id
                          WHERE coalesce(s.user_id, s.left_user_id) = ?
                            AND t.status IN {_ACTIVE_SQL}
                          ORDER BY t.id DESC LIMIT 1)""",
                (user_id,),
            )
        return tables[0] if tables else None

    async def select(
        self,
        table_id: int,
        seat: int,
        selection: Sequence[str],
        *,
        active_at: float | None,
        expected_version: int,
        owe: Sequence[Owed] = (),
    ) -> int:
        """Write one seat's chosen cards (and when it pressed) with what that owes, if the
        table is still at ``expected_version`` (else ``StaleVersionError``, nothing written),
        and return the table's next version. Neither the table nor its match is rewritten;
        the version moves on so that a full save from an older read (another worker's) fails
        instead of writing the seats back without this choice."""
        now = self._db.clock()
        async with self._db.write() as conn:
            if conn.dialect.lazy_commit:  # a selection lost in a crash is chosen again
                await conn.execute(conn.dialect.lazy_commit)
            bumped = await conn.fetchone(
                "UPDATE game_tables SET version = version + 1 WHERE id = ? AND version = ? "
                "RETURNING version",
                (table_id, expected_version),
            )
            if bumped is None:
                row = await conn.fetchone(
                    "SELECT version FROM game_tables WHERE id = ?", (table_id,)
                )
                if row is None:
                    raise TableNotFoundError(f"no table {table_id}")
                raise StaleVersionError(table_id, expected_version, int(row["version"]))
            await conn.execute(
                "UPDATE seats SET selection = ?, active_at = ? WHERE table_id = ? AND seat = ?",
                (dump(list(selection)), active_at, table_id, seat),
            )
            await outbox.owe(conn, owe, now)
            await _notify(conn, table_id)
        return int(bumped["version"])

    async def active(self) -> list[TableRecord]:
        async with self._db.read() as conn:
            return await _load(conn, f"status IN {_ACTIVE_SQL}", ())

    async def save(
        self,
        table: TableRecord,
        *,
        expected_version: int,
        log: Sequence[LogEntry] = (),
        match: MatchRecord | None = None,
        rate: Rater | None = None,
        award: Awarder | None = None,
        owe: Sequence[Owed] = (),
        timers: Sequence[Timer] | None = None,
    ) -> TableRecord:
        now = self._db.clock()
        async with self._db.write() as conn:
            row = await conn.fetchone(
                _UPDATE_TABLE, (*table_values(table), now, table.id, expected_version)
            )
            if row is None:
                stored = await conn.fetchone(
                    "SELECT version FROM game_tables WHERE id = ?", (table.id,)
                )
                if stored is None:
                    raise TableNotFoundError(f"no table with id {table.id}")
                raise StaleVersionError(table.id, expected_version, int(stored["version"]))
            version = int(row["version"])
            chat_id = int(row["chat_id"])
            await conn.execute("DELETE FROM seats WHERE table_id = ?", (table.id,))
            await conn.executemany(
                _INSERT_SEATS, seat_rows(table.id, table.seats, active=table.is_active)
            )
            await conn.executemany(_INSERT_LOG, log_rows(table.id, now, log))
            if match is not None:
                _match_id, owed = await self._ladder.record_in(conn, match, rate, award)
                owe = owe if owed is None else owed
            await outbox.owe(conn, owe, now)
            if timers is not None:
                await table_timers.replace(conn, table.id, timers, now)
            await _notify(conn, table.id)
        table.version = version
        table.updated_at = now
        table.chat_id = chat_id
        table_events.saved(table, log)
        return table

    async def prune(self, *, finished_before: float, limit: int) -> int:
        async with self._db.write() as conn:
            rows = await conn.fetchall(
                "SELECT id FROM game_tables "
                "WHERE id IN (SELECT id FROM game_tables ORDER BY id LIMIT ?) "
                f"AND status IN {_ENDED_SQL} AND finished_at < ? ORDER BY id LIMIT ?",
                (PRUNE_WINDOW, finished_before, limit),
            )
            ids = [int(row["id"]) for row in rows]
            if not ids:
                return 0
            marks = ", ".join("?" for _ in ids)
            # Seats, log lines and timers go with their table (ON DELETE CASCADE); the outbox
            # names tables without a foreign key.
            await conn.execute(f"DELETE FROM outbox WHERE table_id IN ({marks})", tuple(ids))
            await conn.execute(f"DELETE FROM game_tables WHERE id IN ({marks})", tuple(ids))
        return len(ids)

    async def log(self, table_id: int, kind: LogKind | None = None) -> list[LoggedEntry]:
        sql = f"SELECT id, {LOG_COLUMNS} FROM table_log WHERE table_id = ?"
        params: tuple[Any, ...] = (table_id,)
        if kind is not None:
            sql += " AND kind = ?"
            params += (kind,)
        async with self._db.read() as conn:
            rows = await conn.fetchall(sql + " ORDER BY id", params)
        entries = []
        for row in rows:
            if row["kind"] in _LOG_KINDS and row["by"] in _ACTORS:
                entries.append(logged_from_row(row))
            else:  # a newer release's line: not this one's to read
                skipped("table log line (kind, by)", (str(row["kind"]), str(row["by"])))
        return entries


def _of_table(item: Owed, table_id: int) -> Owed:
    """An owed row about the new table; a cup's post (a negative id) stays the cup's."""
    if item.table_id is not None and item.table_id < 0:
        return item
    return replace(item, table_id=table_id)


async def _notify(conn: Conn, table_id: int) -> None:
    """Other workers hear of the change (their senders and Mini App pages), on commit."""
    if conn.dialect.notify_table:
        await conn.execute(conn.dialect.notify_table, (str(table_id),))


async def _load(conn: Conn, where: str, params: tuple[Any, ...]) -> list[TableRecord]:
    """Tables matching ``where`` (an SQL condition on ``game_tables``; constants and ``?`` only)
    with their seats, ordered by id."""
    table_rows = await conn.fetchall(
        f"SELECT {TABLE_COLUMNS} FROM game_tables WHERE {where} ORDER BY id", params
    )
    if not table_rows:
        return []
    found = await conn.fetchall(
        f"SELECT {SEAT_COLUMNS} FROM seats "
        f"WHERE table_id IN (SELECT id FROM game_tables WHERE {where}) "
        "ORDER BY table_id, seat",
        params,
    )
    seats: dict[int, list[SeatRecord]] = {}
    for row in found:
        seats.setdefault(int(row["table_id"]), []).append(seat_from_row(row))
    return [table_from_row(row, seats.get(int(row["id"]), [])) for row in table_rows]
