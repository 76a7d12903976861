"""Persistence for the bot: the ``Storage`` interface, its records, and the SQLite backend.

Only this package talks to the database (and imports aiosqlite). Open a store with
``await open_storage(path)`` (e.g. in the application's ``post_init``) and ``await
storage.close()`` it on shutdown; importing this package does no I/O. The store's parts are
``storage.users``, ``storage.chats``, ``storage.tables`` and ``storage.ladder`` (see ``repos``).
"""

from bot.storage.errors import (
    ActiveTableExistsError,
    ConstraintError,
    SchemaError,
    StaleVersionError,
    StorageError,
    TableNotFoundError,
)
from bot.storage.outbox import OutboxKind, Owed, Priority
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
    Storage,
    TableRepo,
    UserRepo,
)
from bot.storage.sqlite import SqliteStorage


async def open_storage(path: str) -> Storage:
    """Open the SQLite store at ``path`` (created, WAL mode, migrated)."""
    return await SqliteStorage.open(path)


__all__ = [
    "ACTIVE_STATUSES",
    "ALL_VARIANTS",
    "TABLE_STATUSES",
    "ActiveTableExistsError",
    "Actor",
    "ChatRecord",
    "ChatRepo",
    "ConstraintError",
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
    "PlayerCard",
    "PlayerResult",
    "Priority",
    "Rater",
    "Rating",
    "RatingChange",
    "SchemaError",
    "SeasonRecord",
    "SeatRecord",
    "SqliteStorage",
    "StaleVersionError",
    "Standing",
    "Storage",
    "StorageError",
    "TableNotFoundError",
    "TableRecord",
    "TableRepo",
    "TableStatus",
    "Tally",
    "UserRecord",
    "UserRepo",
    "open_storage",
    "player_key",
]
