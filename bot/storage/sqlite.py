"""``Storage`` on SQLite through one aiosqlite connection.

Durability: WAL journal with ``synchronous=FULL`` by default, so a transaction is on disk (the WAL
is fsynced) when ``commit`` returns and survives a power cut as well as a process crash. With WAL,
``NORMAL`` is also safe against corruption and against process crashes, but the last commits can
be lost on power failure or an OS crash, after the bot may already have told players about them.
Our writes are small and human-paced (one per accepted action), so one fsync per commit is cheap;
pass ``synchronous="NORMAL"`` to ``open`` to trade that guarantee for speed.

Concurrency: every operation, read or write, runs under one ``asyncio.Lock`` inside its own
transaction (``BEGIN IMMEDIATE`` for writes, ``BEGIN`` for reads), so coroutines never see or
interleave each other's half-done transactions, and multi-statement reads (a table and its seats)
come from one snapshot. aiosqlite runs everything on one thread anyway, so the lock costs nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import Any

import aiosqlite

from bot.storage import ladder
from bot.storage.base import (
    ActiveTableExistsError,
    ConstraintError,
    StaleVersionError,
    StorageError,
    TableNotFoundError,
)
from bot.storage.migrations import apply_migrations
from bot.storage.records import (
    ACTIVE_STATUSES,
    ChatRecord,
    HistoryPage,
    LadderBoard,
    LadderMatch,
    LogEntry,
    LoggedEntry,
    MatchRecord,
    PlayerCard,
    PlayerResult,
    Rater,
    SeasonRecord,
    SeatRecord,
    Standing,
    TableRecord,
    UserRecord,
)

SYNCHRONOUS_MODES = ("FULL", "NORMAL", "EXTRA")
BUSY_TIMEOUT_MS = 5000

_ACTIVE_SQL = "(" + ", ".join(f"'{status}'" for status in ACTIVE_STATUSES) + ")"

_TABLE_COLUMNS = (
    "id, chat_id, status, variant, creator_id, seed, version, match_state, "
    "table_message_id, lobby_message_id, created_at, updated_at, finished_at"
)
_SEAT_COLUMNS = (
    "table_id, seat, user_id, name, ai_level, hand_message_id, notice_message_id, "
    "timeouts, away, deadline, selection"
)
_SEAT_INSERT = f"INSERT INTO seats ({_SEAT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_LOG_INSERT = (
    "INSERT INTO table_log (table_id, at, kind, ply, seat, text, data, by) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


class SqliteStorage:
    """``Storage`` backed by one SQLite file. Create it with ``await SqliteStorage.open(path)``."""

    ladder_batch = 200
    """Matches rated per transaction when catching up (``update_ladder``), so a big backlog
    (a database upgraded from version 1) never holds the storage for long; the save that
    records a match catches up at most this many of the chat's older ones first (any rest,
    and then the new match, wait for ``update_ladder``, keeping the order)."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        *,
        path: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._conn: aiosqlite.Connection | None = conn
        self._lock = asyncio.Lock()
        self._clock = clock
        self.path = path

    @classmethod
    async def open(
        cls,
        path: str,
        *,
        synchronous: str = "FULL",
        clock: Callable[[], float] = time.time,
    ) -> SqliteStorage:
        """Open (creating if needed) the database at ``path`` and bring its schema up to date.

        ``":memory:"`` gives a private in-memory database (no WAL), handy in tests.
        """
        synchronous = synchronous.upper()
        if synchronous not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}, not {synchronous!r}")
        in_memory = path == ":memory:"
        if not in_memory:
            directory = os.path.dirname(os.path.abspath(path))
            os.makedirs(directory, exist_ok=True)
        conn = await aiosqlite.connect(path, isolation_level=None)
        try:
            conn.row_factory = aiosqlite.Row
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            mode = await _pragma_value(conn, "PRAGMA journal_mode = WAL")
            if not in_memory and str(mode).lower() != "wal":
                raise StorageError(f"could not switch {path!r} to WAL journal mode (got {mode!r})")
            await conn.execute(f"PRAGMA synchronous = {synchronous}")
            await conn.execute("PRAGMA foreign_keys = ON")
            await apply_migrations(conn)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path=path, clock=clock)

    async def close(self) -> None:
        """Close the connection (waiting for a running operation first). Safe to call twice."""
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is None:
                return
            try:
                await conn.execute("PRAGMA optimize")
            finally:
                await conn.close()

    async def __aenter__(self) -> SqliteStorage:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def is_closed(self) -> bool:
        return self._conn is None

    # transactions

    @asynccontextmanager
    async def _transaction(self, *, write: bool) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            conn = self._conn
            if conn is None:
                raise StorageError("storage is closed")
            try:
                await conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                yield conn
                await conn.commit()
            except BaseException:
                # Queued behind anything still running on the connection's thread, so it runs
                # even if this coroutine was cancelled; a no-op when no transaction is open.
                await conn.rollback()
                raise

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[aiosqlite.Connection]:
        try:
            async with self._transaction(write=True) as conn:
                yield conn
        except sqlite3.IntegrityError as exc:
            raise _constraint_error(exc) from exc

    def _read(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        return self._transaction(write=False)

    # users

    async def get_user(self, user_id: int) -> UserRecord | None:
        async with self._read() as conn:
            return await _get_user(conn, user_id)

    async def upsert_user(self, user: UserRecord) -> None:
        now = self._clock()
        async with self._write() as conn:
            await conn.execute(
                """
                INSERT INTO users (user_id, first_name, username, language_code, language,
                                   can_message, private_chat_id, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET
                    first_name = excluded.first_name,
                    username = excluded.username,
                    language_code = excluded.language_code,
                    language = COALESCE(excluded.language, users.language),
                    can_message = excluded.can_message,
                    private_chat_id = COALESCE(excluded.private_chat_id, users.private_chat_id),
                    updated_at = excluded.updated_at
                """,
                (
                    user.user_id,
                    user.first_name,
                    user.username,
                    user.language_code,
                    user.language,
                    int(user.can_message),
                    user.private_chat_id,
                    now,
                    now,
                ),
            )

    async def set_user_language(self, user_id: int, language: str | None) -> None:
        async with self._write() as conn:
            await conn.execute(
                "UPDATE users SET language = ?, updated_at = ? WHERE user_id = ?",
                (language, self._clock(), user_id),
            )

    async def set_can_message(self, user_id: int, can: bool) -> None:
        async with self._write() as conn:
            await conn.execute(
                "UPDATE users SET can_message = ?, updated_at = ? WHERE user_id = ?",
                (int(can), self._clock(), user_id),
            )

    # chats

    async def get_chat(self, chat_id: int) -> ChatRecord | None:
        async with self._read() as conn:
            row = await _fetchone(
                conn,
                "SELECT chat_id, title, language, turn_timeout, settings FROM chats "
                "WHERE chat_id = ?",
                (chat_id,),
            )
        if row is None:
            return None
        return ChatRecord(
            chat_id=int(row["chat_id"]),
            title=str(row["title"]),
            language=_opt_str(row["language"]),
            turn_timeout=int(row["turn_timeout"]),
            settings=_load_dict(row["settings"]),
        )

    async def upsert_chat(self, chat: ChatRecord) -> None:
        now = self._clock()
        async with self._write() as conn:
            await conn.execute(
                """
                INSERT INTO chats (chat_id, title, language, turn_timeout, settings,
                                   created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (chat_id) DO UPDATE SET
                    title = excluded.title,
                    language = excluded.language,
                    turn_timeout = excluded.turn_timeout,
                    settings = excluded.settings,
                    updated_at = excluded.updated_at
                """,
                (
                    chat.chat_id,
                    chat.title,
                    chat.language,
                    chat.turn_timeout,
                    _dump(chat.settings),
                    now,
                    now,
                ),
            )

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        if old_chat_id == new_chat_id:
            return
        now = self._clock()
        async with self._write() as conn:
            old = await _fetchone(conn, "SELECT 1 FROM chats WHERE chat_id = ?", (old_chat_id,))
            if old is not None:
                # The old row carries what the admins chose; a row already made for the new id
                # (by an update that raced the migration) only holds defaults.
                await conn.execute("DELETE FROM chats WHERE chat_id = ?", (new_chat_id,))
                await conn.execute(
                    "UPDATE chats SET chat_id = ?, updated_at = ? WHERE chat_id = ?",
                    (new_chat_id, now, old_chat_id),
                )
            await conn.execute(
                "UPDATE game_tables SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
            )
            await conn.execute(
                "UPDATE matches SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
            )
            await ladder.move_chat(conn, old_chat_id, new_chat_id)

    # tables

    async def create_table(self, table: TableRecord) -> TableRecord:
        if table.id != 0:
            raise ValueError(f"create_table needs a new table (id 0), got id {table.id}")
        now = self._clock()
        version = 1
        async with self._write() as conn:
            row = await _fetchone(
                conn,
                """
                INSERT INTO game_tables (chat_id, status, variant, creator_id, seed, version,
                                         match_state, table_message_id, lobby_message_id,
                                         created_at, updated_at, finished_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                RETURNING id
                """,
                (
                    table.chat_id,
                    table.status,
                    table.variant,
                    table.creator_id,
                    table.seed,
                    version,
                    _dump_opt(table.match_state),
                    table.table_message_id,
                    table.lobby_message_id,
                    now,
                    now,
                    table.finished_at,
                ),
            )
            assert row is not None
            table_id = int(row["id"])
            await conn.executemany(_SEAT_INSERT, _seat_rows(table_id, table.seats))
        table.id = table_id
        table.version = version
        table.created_at = now
        table.updated_at = now
        return table

    async def get_table(self, table_id: int) -> TableRecord | None:
        async with self._read() as conn:
            tables = await _load_tables(conn, "id = ?", (table_id,))
        return tables[0] if tables else None

    async def active_table_for_chat(self, chat_id: int) -> TableRecord | None:
        async with self._read() as conn:
            tables = await _load_tables(
                conn, f"chat_id = ? AND status IN {_ACTIVE_SQL}", (chat_id,)
            )
        return tables[-1] if tables else None

    async def active_table_for_user(self, user_id: int) -> TableRecord | None:
        async with self._read() as conn:
            tables = await _load_tables(
                conn,
                f"""id = (SELECT t.id FROM game_tables AS t JOIN seats AS s ON s.table_id = t.id
                          WHERE s.user_id = ? AND t.status IN {_ACTIVE_SQL}
                          ORDER BY t.id DESC LIMIT 1)""",
                (user_id,),
            )
        return tables[0] if tables else None

    async def active_tables(self) -> list[TableRecord]:
        async with self._read() as conn:
            return await _load_tables(conn, f"status IN {_ACTIVE_SQL}", ())

    async def save_table(
        self,
        table: TableRecord,
        *,
        expected_version: int,
        log: Sequence[LogEntry] = (),
        match: MatchRecord | None = None,
        rate: Rater | None = None,
    ) -> TableRecord:
        now = self._clock()
        async with self._write() as conn:
            row = await _fetchone(
                conn,
                """
                UPDATE game_tables SET
                    status = ?, variant = ?, creator_id = ?, seed = ?, match_state = ?,
                    table_message_id = ?, lobby_message_id = ?, finished_at = ?,
                    updated_at = ?, version = version + 1
                WHERE id = ? AND version = ?
                RETURNING version, chat_id
                """,
                (
                    table.status,
                    table.variant,
                    table.creator_id,
                    table.seed,
                    _dump_opt(table.match_state),
                    table.table_message_id,
                    table.lobby_message_id,
                    table.finished_at,
                    now,
                    table.id,
                    expected_version,
                ),
            )
            if row is None:
                stored = await _fetchone(
                    conn, "SELECT version FROM game_tables WHERE id = ?", (table.id,)
                )
                if stored is None:
                    raise TableNotFoundError(f"no table with id {table.id}")
                raise StaleVersionError(table.id, expected_version, int(stored["version"]))
            version = int(row["version"])
            chat_id = int(row["chat_id"])
            await conn.execute("DELETE FROM seats WHERE table_id = ?", (table.id,))
            await conn.executemany(_SEAT_INSERT, _seat_rows(table.id, table.seats))
            await conn.executemany(_LOG_INSERT, _log_rows(table.id, now, log))
            if match is not None:
                await _insert_match(conn, match)
                if rate is not None:
                    await ladder.apply_pending(conn, rate, match.chat_id, self.ladder_batch)
        table.version = version
        table.updated_at = now
        table.chat_id = chat_id
        return table

    async def table_log(self, table_id: int, kind: str | None = None) -> list[LoggedEntry]:
        sql = "SELECT id, table_id, at, kind, ply, seat, text, data, by FROM table_log "
        params: tuple[Any, ...]
        if kind is None:
            sql += "WHERE table_id = ? ORDER BY id"
            params = (table_id,)
        else:
            sql += "WHERE table_id = ? AND kind = ? ORDER BY id"
            params = (table_id, kind)
        async with self._read() as conn:
            rows = await conn.execute_fetchall(sql, params)
        return [
            LoggedEntry(
                kind=str(row["kind"]),
                ply=_opt_int(row["ply"]),
                seat=_opt_int(row["seat"]),
                text=str(row["text"]),
                data=None if row["data"] is None else _load_dict(row["data"]),
                by=str(row["by"]),
                id=int(row["id"]),
                table_id=int(row["table_id"]),
                at=float(row["at"]),
            )
            for row in rows
        ]

    # ladder

    async def record_match(self, record: MatchRecord, *, rate: Rater | None = None) -> int:
        async with self._write() as conn:
            match_id = await _insert_match(conn, record)
            if rate is not None:
                await ladder.apply_pending(conn, rate, record.chat_id, self.ladder_batch)
            return match_id

    async def update_ladder(self, rate: Rater, chat_id: int | None = None) -> int:
        async with self._read() as conn:
            if not await ladder.has_pending(conn, chat_id):
                return 0
        total = 0
        while True:  # one transaction per batch: other work runs in between
            async with self._write() as conn:
                done = await ladder.apply_pending(conn, rate, chat_id, self.ladder_batch)
            total += done
            if done < self.ladder_batch:
                return total

    async def ladder_season(self, chat_id: int, season: int | None = None) -> SeasonRecord:
        async with self._read() as conn:
            if season is None:
                return await ladder.current_season(conn, chat_id)
            return await ladder.season_record(conn, chat_id, season)

    async def start_season(
        self, chat_id: int, *, after: int, by: int | None = None
    ) -> SeasonRecord | None:
        async with self._write() as conn:
            return await ladder.start_season(conn, chat_id, after, by, self._clock())

    async def ladder_top(
        self, chat_id: int, season: int, variant: str, limit: int = 10
    ) -> list[Standing]:
        async with self._read() as conn:
            return await ladder.top(conn, chat_id, season, variant, limit)

    async def ladder_standing(
        self, chat_id: int, season: int, variant: str, player: str
    ) -> tuple[int, Standing] | None:
        async with self._read() as conn:
            return await ladder.standing(conn, chat_id, season, variant, player)

    async def ladder_size(self, chat_id: int, season: int, variant: str) -> int:
        async with self._read() as conn:
            return await ladder.count_lines(conn, chat_id, season, variant)

    async def player_standings(self, player: str, chat_id: int | None = None) -> list[Standing]:
        async with self._read() as conn:
            return await ladder.player_lines(conn, player, chat_id)

    async def player_results(
        self, chat_id: int, season: int, player: str, limit: int = 10
    ) -> list[PlayerResult]:
        async with self._read() as conn:
            return await ladder.player_results(conn, chat_id, season, player, limit)

    async def match_history(
        self,
        *,
        chat_id: int | None = None,
        season: int | None = None,
        variant: str | None = None,
        user_id: int | None = None,
        limit: int = 10,
    ) -> list[LadderMatch]:
        async with self._read() as conn:
            return await ladder.history(
                conn, chat_id=chat_id, season=season, variant=variant, user_id=user_id, limit=limit
            )

    async def ladder_board(
        self,
        chat_id: int,
        *,
        season: int | None,
        variant: str,
        player: str,
        limit: int = 10,
    ) -> LadderBoard:
        async with self._read() as conn:
            return await ladder.board(conn, chat_id, season, variant, player, limit)

    async def player_card(self, chat_id: int, player: str, *, results: int = 10) -> PlayerCard:
        async with self._read() as conn:
            return await ladder.card(conn, chat_id, player, results)

    async def history_page(
        self, chat_id: int, *, season: int | None, variant: str | None, limit: int = 10
    ) -> HistoryPage:
        async with self._read() as conn:
            return await ladder.history_page(conn, chat_id, season, variant, limit)

    async def find_user(self, username: str) -> UserRecord | None:
        async with self._read() as conn:
            user_id = await ladder.user_by_username(conn, username.removeprefix("@"))
            if user_id is None:
                return None
            return await _get_user(conn, user_id)


# helpers


async def _pragma_value(conn: aiosqlite.Connection, sql: str) -> Any:
    row = await _fetchone(conn, sql, ())
    return None if row is None else row[0]


async def _fetchone(
    conn: aiosqlite.Connection, sql: str, params: Sequence[Any]
) -> sqlite3.Row | None:
    async with conn.execute(sql, params) as cursor:
        row: sqlite3.Row | None = await cursor.fetchone()
        return row


async def _get_user(conn: aiosqlite.Connection, user_id: int) -> UserRecord | None:
    row = await _fetchone(
        conn,
        "SELECT user_id, first_name, username, language_code, language, can_message, "
        "private_chat_id FROM users WHERE user_id = ?",
        (user_id,),
    )
    if row is None:
        return None
    return UserRecord(
        user_id=int(row["user_id"]),
        first_name=str(row["first_name"]),
        username=_opt_str(row["username"]),
        language_code=_opt_str(row["language_code"]),
        language=_opt_str(row["language"]),
        can_message=bool(row["can_message"]),
        private_chat_id=_opt_int(row["private_chat_id"]),
    )


async def _load_tables(
    conn: aiosqlite.Connection, where: str, params: tuple[Any, ...]
) -> list[TableRecord]:
    """Tables matching ``where`` (an SQL condition on ``game_tables``; constants and ``?`` only)
    with their seats, ordered by id."""
    table_rows = list(
        await conn.execute_fetchall(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE {where} ORDER BY id", params
        )
    )
    if not table_rows:
        return []
    seat_rows = await conn.execute_fetchall(
        f"SELECT {_SEAT_COLUMNS} FROM seats "
        f"WHERE table_id IN (SELECT id FROM game_tables WHERE {where}) "
        "ORDER BY table_id, seat",
        params,
    )
    seats: dict[int, list[SeatRecord]] = {}
    for row in seat_rows:
        seats.setdefault(int(row["table_id"]), []).append(_seat_from_row(row))
    return [_table_from_row(row, seats.get(int(row["id"]), [])) for row in table_rows]


def _table_from_row(row: sqlite3.Row, seats: list[SeatRecord]) -> TableRecord:
    return TableRecord(
        id=int(row["id"]),
        chat_id=int(row["chat_id"]),
        status=str(row["status"]),
        variant=str(row["variant"]),
        creator_id=int(row["creator_id"]),
        seed=int(row["seed"]),
        version=int(row["version"]),
        seats=seats,
        match_state=None if row["match_state"] is None else _load_dict(row["match_state"]),
        table_message_id=_opt_int(row["table_message_id"]),
        lobby_message_id=_opt_int(row["lobby_message_id"]),
        created_at=float(row["created_at"]),
        updated_at=float(row["updated_at"]),
        finished_at=_opt_float(row["finished_at"]),
    )


def _seat_from_row(row: sqlite3.Row) -> SeatRecord:
    selection = json.loads(row["selection"])
    if not isinstance(selection, list):
        raise StorageError(f"seat selection is not a JSON list: {row['selection']!r}")
    return SeatRecord(
        seat=int(row["seat"]),
        user_id=_opt_int(row["user_id"]),
        name=str(row["name"]),
        ai_level=_opt_str(row["ai_level"]),
        hand_message_id=_opt_int(row["hand_message_id"]),
        notice_message_id=_opt_int(row["notice_message_id"]),
        timeouts=int(row["timeouts"]),
        away=bool(row["away"]),
        deadline=_opt_float(row["deadline"]),
        selection=[str(card) for card in selection],
    )


def _seat_rows(table_id: int, seats: Iterable[SeatRecord]) -> list[tuple[Any, ...]]:
    return [
        (
            table_id,
            seat.seat,
            seat.user_id,
            seat.name,
            seat.ai_level,
            seat.hand_message_id,
            seat.notice_message_id,
            seat.timeouts,
            int(seat.away),
            seat.deadline,
            _dump(list(seat.selection)),
        )
        for seat in seats
    ]


def _log_rows(table_id: int, at: float, log: Iterable[LogEntry]) -> list[tuple[Any, ...]]:
    return [
        (
            table_id,
            at,
            entry.kind,
            entry.ply,
            entry.seat,
            entry.text,
            _dump_opt(entry.data),
            entry.by,
        )
        for entry in log
    ]


async def _insert_match(conn: aiosqlite.Connection, record: MatchRecord) -> int:
    row = await _fetchone(
        conn,
        """
        INSERT INTO matches (table_id, chat_id, variant, players, started_at, finished_at,
                             deals, goat_with_eggs, result, season)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,
                (SELECT COALESCE(MAX(season), 1) FROM ladder_seasons WHERE chat_id = ?))
        ON CONFLICT (table_id) DO NOTHING
        RETURNING id
        """,
        (
            record.table_id,
            record.chat_id,
            record.variant,
            record.players,
            record.started_at,
            record.finished_at,
            record.deals,
            int(record.goat_with_eggs),
            _dump(record.result),
            record.chat_id,
        ),
    )
    if row is None:  # already recorded for this table
        existing = await _fetchone(
            conn, "SELECT id FROM matches WHERE table_id = ?", (record.table_id,)
        )
        assert existing is not None
        return int(existing["id"])
    match_id = int(row["id"])
    await conn.executemany(
        """
        INSERT INTO match_players (match_id, seat, side, user_id, name, ai_level, won, goat,
                                   defeat_points, deals_won, deals_lost, eggs, queens_caught,
                                   tricks, card_points)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        [
            (
                match_id,
                player.seat,
                player.side,
                player.user_id,
                player.name,
                player.ai_level,
                int(player.won),
                int(player.goat),
                player.defeat_points,
                player.deals_won,
                player.deals_lost,
                player.eggs,
                player.queens_caught,
                player.tricks,
                player.card_points,
            )
            for player in record.players_list
        ],
    )
    return match_id


def _constraint_error(exc: sqlite3.IntegrityError) -> StorageError:
    message = str(exc)
    if "game_tables.chat_id" in message:
        return ActiveTableExistsError("the chat already has an active table")
    return ConstraintError(message)


def _dump(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise StorageError(f"value is not storable as JSON: {exc}") from exc


def _dump_opt(value: Any) -> str | None:
    return None if value is None else _dump(value)


def _load_dict(text: Any) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise StorageError(f"expected a JSON object, found {type(value).__name__}")
    return value


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)
