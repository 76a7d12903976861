"""The storage interface the service layer codes against: one small protocol per aggregate.

Nothing here knows about a particular database: ``SqliteStorage`` implements these today, and a
server-database backend can implement them later without touching callers. Every method is a
coroutine; every write is one transaction and is durable when it returns.

The protocols live by concern in ``game_repos`` and ``runtime_repos``; they are all re-exported
here (and from ``bot.storage``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from bot.storage.cups import Cups
from bot.storage.facts import Facts
from bot.storage.game_repos import (
    AwardRepo,
    ChatRepo,
    LadderRepo,
    TableRepo,
    UserRepo,
)
from bot.storage.runtime_repos import (
    LeaseRepo,
    OutboxRepo,
    ProcessLock,
    ReleaseRepo,
    SignupRepo,
    TimerRepo,
    UpdateRepo,
)

__all__ = [
    "AwardRepo",
    "ChatRepo",
    "LadderRepo",
    "LeaseRepo",
    "OutboxRepo",
    "ProcessLock",
    "ReleaseRepo",
    "SignupRepo",
    "Storage",
    "TableRepo",
    "TimerRepo",
    "UpdateRepo",
    "UserRepo",
]


class Storage(Protocol):
    """Persistence for users, chats, tables (with seats and log) and finished matches."""

    @property
    def users(self) -> UserRepo: ...

    @property
    def chats(self) -> ChatRepo: ...

    @property
    def tables(self) -> TableRepo: ...

    @property
    def ladder(self) -> LadderRepo: ...

    @property
    def outbox(self) -> OutboxRepo: ...

    @property
    def awards(self) -> AwardRepo: ...

    async def ping(self) -> bool:
        """True when the database answers a trivial query (for health checks); never raises."""
        ...

    @property
    def leases(self) -> LeaseRepo: ...

    @property
    def timers(self) -> TimerRepo: ...

    @property
    def updates(self) -> UpdateRepo: ...

    @property
    def signups(self) -> SignupRepo: ...

    @property
    def releases(self) -> ReleaseRepo: ...

    @property
    def cups(self) -> Cups: ...

    async def oldest_live_release(self) -> int | None:
        """The oldest release a live worker of this database runs (None: no worker is alive);
        a live holder that never said its release counts as v0.30 (``releases``)."""
        ...

    async def migrate(self) -> list[int]:
        """Bring the schema up to date (after ``open_storage(..., migrate=False)``); the
        versions applied."""
        ...

    @property
    def facts(self) -> Facts:
        """The bot as a whole, for ``/metrics`` and ``/status`` (small indexed queries)."""
        ...

    def process_lock(self) -> ProcessLock:
        """The lock that makes a process the database's one polling bot."""
        ...

    async def listen(self, on_change: Callable[[int | None], None]) -> None:
        """Run until cancelled: call ``on_change(table_id)`` whenever any process saves a table
        (where the database can tell: PostgreSQL's notifications), and ``on_change(None)``
        after a gap in which some may have been missed (the connection was lost and is
        back). On SQLite there is nobody to hear: it only waits."""
        ...

    @property
    def listening(self) -> bool:
        """Whether ``listen`` hears the database now (always, where there is nothing to hear)."""
        ...

    async def close(self) -> None: ...
