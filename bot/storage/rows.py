"""Rows to records and records to rows, written once: users, chats, tables, seats and logs
here, matches and the ladder in ``ladder_rows``.

Each table's column list stands next to the functions that read a row of those columns into a
record and turn a record into the values of those columns, so a column's position is stated in
one place. Booleans are stored as 0/1, JSON-valued fields as compact JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from bot.storage.conn import Row
from bot.storage.errors import StorageError
from bot.storage.records import (
    Actor,
    ChatRecord,
    LogEntry,
    LoggedEntry,
    LogKind,
    SeatRecord,
    TableRecord,
    TableStatus,
    UserRecord,
)


def marks(count: int) -> str:
    """``count`` SQL parameter marks: ``"?, ?, ?"``."""
    return ", ".join("?" * count)


def marks_for(columns: str) -> str:
    """A parameter mark per column of ``columns`` (``"a, b, c"``)."""
    return marks(columns.count(",") + 1)


def insert_sql(table: str, columns: str) -> str:
    """``INSERT INTO table (columns) VALUES (?, ...)``, a mark per column."""
    return f"INSERT INTO {table} ({columns}) VALUES ({marks_for(columns)})"


# ------------------------------------------------------------------ values

# JSON


def dump(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise StorageError(f"value is not storable as JSON: {exc}") from exc


def dump_opt(value: Any) -> str | None:
    return None if value is None else dump(value)


def load_dict(text: Any) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise StorageError(f"expected a JSON object, found {type(value).__name__}")
    return value


def load_dict_opt(text: Any) -> dict[str, Any] | None:
    return None if text is None else load_dict(text)


# nullable columns


def opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


# ------------------------------------------------------------------ users and chats

USER_COLUMNS = (
    "user_id, first_name, username, language_code, language, can_message, private_chat_id"
)


def user_from_row(row: Row) -> UserRecord:
    return UserRecord(
        user_id=int(row["user_id"]),
        first_name=str(row["first_name"]),
        username=opt_str(row["username"]),
        language_code=opt_str(row["language_code"]),
        language=opt_str(row["language"]),
        can_message=bool(row["can_message"]),
        private_chat_id=opt_int(row["private_chat_id"]),
    )


def user_values(user: UserRecord) -> tuple[Any, ...]:
    """The values of ``USER_COLUMNS``."""
    return (
        user.user_id,
        user.first_name,
        user.username,
        user.language_code,
        user.language,
        int(user.can_message),
        user.private_chat_id,
    )


CHAT_COLUMNS = "chat_id, title, language, turn_timeout, settings"


def chat_from_row(row: Row) -> ChatRecord:
    return ChatRecord(
        chat_id=int(row["chat_id"]),
        title=str(row["title"]),
        language=opt_str(row["language"]),
        turn_timeout=int(row["turn_timeout"]),
        settings=load_dict(row["settings"]),
    )


def chat_values(chat: ChatRecord) -> tuple[Any, ...]:
    """The values of ``CHAT_COLUMNS``."""
    return (chat.chat_id, chat.title, chat.language, chat.turn_timeout, dump(chat.settings))


# ------------------------------------------------------------------ tables, seats, log

TABLE_COLUMNS = (
    "id, chat_id, status, variant, creator_id, seed, version, match_state, "
    "table_message_id, lobby_message_id, created_at, updated_at, finished_at, note, thread_id, "
    "options"
)
TABLE_FIELDS = (
    "status",
    "variant",
    "creator_id",
    "seed",
    "match_state",
    "table_message_id",
    "lobby_message_id",
    "finished_at",
    "note",
    "options",
)
"""The columns a save writes from the record (the id, chat, version and times are the store's)."""


def table_from_row(row: Row, seats: list[SeatRecord]) -> TableRecord:
    return TableRecord(
        id=int(row["id"]),
        chat_id=int(row["chat_id"]),
        status=TableStatus(row["status"]),
        variant=str(row["variant"]),
        creator_id=int(row["creator_id"]),
        seed=int(row["seed"]),
        version=int(row["version"]),
        seats=seats,
        match_state=load_dict_opt(row["match_state"]),
        table_message_id=opt_int(row["table_message_id"]),
        lobby_message_id=opt_int(row["lobby_message_id"]),
        created_at=float(row["created_at"]),
        updated_at=float(row["updated_at"]),
        finished_at=opt_float(row["finished_at"]),
        note=opt_str(row["note"]),
        thread_id=opt_int(row["thread_id"]),
        options=load_dict(row["options"]),
    )


def table_values(table: TableRecord) -> tuple[Any, ...]:
    """The values of ``TABLE_FIELDS``."""
    return (
        table.status,
        table.variant,
        table.creator_id,
        table.seed,
        dump_opt(table.match_state),
        table.table_message_id,
        table.lobby_message_id,
        table.finished_at,
        table.note,
        dump(table.options),
    )


SEAT_COLUMNS = (
    "table_id, seat, user_id, name, ai_level, hand_message_id, timeouts, away, "
    "deadline, selection, active_at, left_user_id, active, replaced"
)
"""``active`` copies whether the table is active: a unique index keeps a person's active seats
to one (``SCHEMA_V4``)."""


def seat_from_row(row: Row) -> SeatRecord:
    selection = json.loads(row["selection"])
    if not isinstance(selection, list):
        raise StorageError(f"seat selection is not a JSON list: {row['selection']!r}")
    return SeatRecord(
        seat=int(row["seat"]),
        user_id=opt_int(row["user_id"]),
        name=str(row["name"]),
        ai_level=opt_str(row["ai_level"]),
        hand_message_id=opt_int(row["hand_message_id"]),
        timeouts=int(row["timeouts"]),
        away=bool(row["away"]),
        deadline=opt_float(row["deadline"]),
        selection=[str(card) for card in selection],
        active_at=opt_float(row["active_at"]),
        left_user_id=opt_int(row["left_user_id"]),
        replaced=bool(row["replaced"]),
    )


def seat_rows(table_id: int, seats: Iterable[SeatRecord], *, active: bool) -> list[tuple[Any, ...]]:
    """The values of ``SEAT_COLUMNS``, a tuple per seat of a table that is ``active`` or not."""
    return [
        (
            table_id,
            seat.seat,
            seat.user_id,
            seat.name,
            seat.ai_level,
            seat.hand_message_id,
            seat.timeouts,
            int(seat.away),
            seat.deadline,
            dump(list(seat.selection)),
            seat.active_at,
            seat.left_user_id,
            int(active),
            int(seat.replaced),
        )
        for seat in seats
    ]


LOG_COLUMNS = "table_id, at, kind, ply, seat, text, data, by"


def logged_from_row(row: Row) -> LoggedEntry:
    """A row of ``id, `` + ``LOG_COLUMNS``."""
    return LoggedEntry(
        kind=LogKind(row["kind"]),
        ply=opt_int(row["ply"]),
        seat=opt_int(row["seat"]),
        text=str(row["text"]),
        data=load_dict_opt(row["data"]),
        by=Actor(row["by"]),
        id=int(row["id"]),
        table_id=int(row["table_id"]),
        at=float(row["at"]),
    )


def log_rows(table_id: int, at: float, log: Iterable[LogEntry]) -> list[tuple[Any, ...]]:
    """The values of ``LOG_COLUMNS``, a tuple per entry."""
    return [
        (
            table_id,
            at,
            entry.kind,
            entry.ply,
            entry.seat,
            entry.text,
            dump_opt(entry.data),
            entry.by,
        )
        for entry in log
    ]
