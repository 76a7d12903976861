"""Persistence for the bot: the ``Storage`` interface, its records, and two backends.

Only this package talks to the database (and imports aiosqlite and asyncpg). Open a store with
``await open_storage(target)`` (e.g. in the bot's ``lifespan``) and ``await
storage.close()`` it on shutdown; importing this package does no I/O. A ``postgresql://`` URL
selects PostgreSQL, anything else is an SQLite file. The store's parts are ``storage.users``,
``storage.chats``, ``storage.tables``, ``storage.ladder`` and ``storage.outbox`` (see ``repos``).
"""

import os

from bot.storage.awards import Awarder, Awarding, Earned, PairLine, PlayerPast
from bot.storage.errors import (
    ActiveTableExistsError,
    ConstraintError,
    SchemaError,
    SeatedElsewhereError,
    StaleVersionError,
    StorageError,
    StorageUnavailable,
    TableNotFoundError,
)
from bot.storage.outbox import OutboxKind, Owed, Priority
from bot.storage.postgres import PostgresStorage
from bot.storage.records import (
    ACTIVE_STATUSES,
    ALL_VARIANTS,
    TABLE_STATUSES,
    Actor,
    ChatRecord,
    HistoryPage,
    LadderBoard,
    LadderMatch,
    LogEntry,
    LoggedEntry,
    LogKind,
    MatchPlayerRecord,
    MatchRecord,
    PlayerCard,
    PlayerResult,
    Rater,
    Rating,
    RatingChange,
    SeasonRecord,
    SeatRecord,
    Standing,
    TableRecord,
    TableStatus,
    Tally,
    UserRecord,
    player_key,
)
from bot.storage.repos import (
    ChatRepo,
    LadderRepo,
    LeaseRepo,
    OutboxRepo,
    ProcessLock,
    ReleaseRepo,
    SignupRepo,
    Storage,
    TableRepo,
    TimerRepo,
    UpdateRepo,
    UserRepo,
)
from bot.storage.sqlite import SqliteStorage
from bot.storage.timers import Timer, TimerSlot
from bot.storage.updates import Taken

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: str | os.PathLike[str]) -> bool:
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


async def open_storage(target: str | os.PathLike[str], *, migrate: bool = True) -> Storage:
    """Open the store ``target`` names, bringing its schema up to date: a PostgreSQL database
    for a ``postgresql://`` URL, else the SQLite file at that path (created, WAL mode). Not
    ``migrate``: the schema is left as it is until ``storage.migrate()`` (the polling bot
    migrates only once it holds the process lock, not under a bot that still runs)."""
    if is_postgres_url(target):
        return await PostgresStorage.open(str(target), migrate=migrate)
    return await SqliteStorage.open(os.fspath(target), migrate=migrate)


__all__ = [
    "ACTIVE_STATUSES",
    "ALL_VARIANTS",
    "TABLE_STATUSES",
    "ActiveTableExistsError",
    "Actor",
    "Awarder",
    "Awarding",
    "ChatRecord",
    "ChatRepo",
    "ConstraintError",
    "Earned",
    "HistoryPage",
    "LadderBoard",
    "LadderMatch",
    "LadderRepo",
    "LeaseRepo",
    "LogEntry",
    "LogKind",
    "LoggedEntry",
    "MatchPlayerRecord",
    "MatchRecord",
    "OutboxKind",
    "OutboxRepo",
    "Owed",
    "PairLine",
    "PlayerCard",
    "PlayerPast",
    "PlayerResult",
    "PostgresStorage",
    "Priority",
    "ProcessLock",
    "Rater",
    "Rating",
    "RatingChange",
    "ReleaseRepo",
    "SchemaError",
    "SeasonRecord",
    "SeatRecord",
    "SeatedElsewhereError",
    "SignupRepo",
    "SqliteStorage",
    "StaleVersionError",
    "Standing",
    "Storage",
    "StorageError",
    "StorageUnavailable",
    "TableNotFoundError",
    "TableRecord",
    "TableRepo",
    "TableStatus",
    "Taken",
    "Tally",
    "Timer",
    "TimerRepo",
    "TimerSlot",
    "UpdateRepo",
    "UserRecord",
    "UserRepo",
    "is_postgres_url",
    "open_storage",
    "player_key",
]
