"""The storage interface of running the bot: the outbox, leases, timers, sign-ups, the
updates taken, the releases alive and the process lock. See ``repos`` for the whole
``Storage``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from bot.storage.outbox import Owed
from bot.storage.releases import LiveWorker
from bot.storage.timers import Timer
from bot.storage.updates import Taken


class OutboxRepo(Protocol):
    """What the bot owes Telegram (see ``bot.storage.outbox``)."""

    async def add(self, items: Sequence[Owed]) -> None: ...

    async def due(self, now: float, limit: int = 500) -> list[Owed]:
        """Rows that may go now, by priority, oldest first."""
        ...

    async def look(
        self, now: float, limit: int = 500
    ) -> tuple[list[Owed], dict[tuple[int, int | None], int], float | None]:
        """``due``, ``held`` and ``next_time`` read together."""
        ...

    async def held(self, now: float) -> dict[tuple[int, int | None], int]:
        """The (chat, table)s whose posts wait for a retry, with the oldest one's id (that
        table's posts after it and its new messages wait too)."""
        ...

    async def next_time(self, now: float) -> float | None:
        """When the next row not due at ``now`` becomes due (None: there is none)."""
        ...

    async def done(self, item: Owed, *, extra: Sequence[Owed] = ()) -> bool:
        """Finish ``item`` and add ``extra`` in one transaction; False if it was marked again
        meanwhile (it stays, for the newer state)."""
        ...

    async def retry(self, item: Owed, not_before: float, *, attempt: bool = True) -> None: ...

    async def retry_now(self, now: float) -> int:
        """Rows that wait after failed tries may go at once; returns how many."""
        ...

    async def drop(self, item: Owed) -> None: ...

    async def pending(self, table_id: int | None = None) -> int: ...


class LeaseRepo(Protocol):
    """Named leases with a holder and an expiry: who may run on this database."""

    async def take(self, name: str, holder: str, seconds: float) -> bool:
        """Take or renew the lease for ``seconds`` from now if it is free, ours or expired, in
        one transaction; True if ``holder`` holds it now."""
        ...

    async def holder(self, name: str) -> tuple[str, float] | None:
        """Who holds the lease and until when (epoch seconds), if anybody ever took it."""
        ...

    async def release(self, name: str, holder: str) -> None:
        """Give the lease up (a no-op unless ``holder`` holds it)."""
        ...

    async def take_many(self, names: Sequence[str], holder: str, seconds: float) -> set[str]:
        """``take`` for each name, in one transaction; the names ``holder`` holds now."""
        ...

    async def live(self, prefix: str) -> int:
        """How many leases named ``prefix...`` have not expired."""
        ...

    async def release_all(self, holder: str) -> None:
        """Give up every lease of ``holder`` (a clean stop)."""
        ...

    async def forget_expired(self, before: float) -> None:
        """Drop the leases (of anybody) that expired before ``before``: workers and chats
        nobody holds any more."""
        ...


class TimerRepo(Protocol):
    """What each table waits for, claimed by one worker at a time (see ``timers``)."""

    async def put(self, table_id: int, timers: Sequence[Timer]) -> None: ...

    async def claim(
        self, holder: str, seconds: float, limit: int = 16, *, kinds: Sequence[str] | None = None
    ) -> list[Timer]: ...

    async def done(self, timer: Timer, holder: str) -> None: ...

    async def release(self, holder: str | None) -> None: ...

    async def next_time(self, *, kinds: Sequence[str] | None = None) -> float | None: ...

    async def pause(self, kind: str, since: float) -> bool:
        """Stop the timers of ``kind`` as of ``since``, each keeping the time it had left."""
        ...

    async def resume(self, kind: str, *, deadlines: bool = True) -> float | None:
        """Run them again (``deadlines``: the seats' deadlines follow, their tables' versions
        move on); since when they were paused (None: they were not)."""
        ...

    async def paused(self, kind: str) -> float | None: ...

    async def of_table(self, table_id: int) -> list[Timer]: ...

    async def tables(self) -> set[int]: ...


class SignupRepo(Protocol):
    """Who asked to hear of a chat's (topic's) next table (see ``signups``)."""

    async def toggle(self, chat_id: int, thread_id: int | None, user_id: int) -> bool: ...

    async def of(self, chat_id: int, thread_id: int | None) -> list[int]: ...

    async def take(
        self, chat_id: int, thread_id: int | None, owed: Mapping[int, Sequence[Owed]]
    ) -> list[int]: ...


class UpdateRepo(Protocol):
    """The Telegram updates taken lately (see ``updates``)."""

    async def take(
        self, update_id: int, holder: str, *, stale_after: float, alive_prefix: str | None = None
    ) -> Taken: ...

    async def finish(self, update_id: int) -> None: ...

    async def give_back(self, update_id: int, holder: str) -> None: ...

    async def forget(self, before: float) -> int: ...


class ReleaseRepo(Protocol):
    """Which release each live worker runs (see ``releases``)."""

    async def announce(self, holder: str, release: int, version: str, seconds: float) -> None: ...

    async def retire(self, holder: str) -> None: ...

    async def live(self) -> list[LiveWorker]: ...

    async def oldest_live(self) -> int | None: ...

    async def forget_expired(self, before: float) -> int: ...


class ProcessLock(Protocol):
    """A lock on the database that lives as long as its holder's process: the system frees it
    the moment the process dies (a PostgreSQL session's advisory lock, a file lock beside the
    SQLite file), so that a standby takes over at once."""

    async def take(self, holder: str) -> bool:
        """Take it if it is free (``holder`` is what others are told); True if ours now."""
        ...

    async def held(self) -> bool:
        """Whether it is still ours (False after the database cut the session that held it);
        raises ``StorageUnavailable`` while that cannot be told."""
        ...

    async def holder(self) -> str | None:
        """Who holds it, as they said when they took it (None: nobody, or unknown)."""
        ...

    async def release(self) -> None:
        """Give it up (a clean stop). Never raises."""
        ...
