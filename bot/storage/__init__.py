"""Persistence for the bot: the ``Storage`` interface, its records, and the SQLite backend.

Only this package talks to the database (and imports aiosqlite). Open a store with
``await open_storage(path)`` (e.g. in the application's ``post_init``) and ``await
storage.close()`` it on shutdown; importing this package does no I/O.
"""

from bot.storage.base import (
    ActiveTableExistsError,
    ConstraintError,
    StaleVersionError,
    Storage,
    StorageError,
    TableNotFoundError,
)
from bot.storage.records import (
    ACTIVE_STATUSES,
    ALL_VARIANTS,
    TABLE_STATUSES,
    ChatRecord,
    HistoryPage,
    LadderBoard,
    LadderMatch,
    LogEntry,
    LoggedEntry,
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
    Tally,
    UserRecord,
    player_key,
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
    "ChatRecord",
    "ConstraintError",
    "HistoryPage",
    "LadderBoard",
    "LadderMatch",
    "LogEntry",
    "LoggedEntry",
    "MatchPlayerRecord",
    "MatchRecord",
    "PlayerCard",
    "PlayerResult",
    "Rater",
    "Rating",
    "RatingChange",
    "SeasonRecord",
    "SeatRecord",
    "SqliteStorage",
    "StaleVersionError",
    "Standing",
    "Storage",
    "StorageError",
    "TableNotFoundError",
    "TableRecord",
    "Tally",
    "UserRecord",
    "open_storage",
    "player_key",
]
