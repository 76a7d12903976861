"""The repositories of one store, on whichever ``Database`` a backend opened."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import TracebackType
from typing import Self

from bot.storage.awards import Awards
from bot.storage.chats import Chats
from bot.storage.conn import Database
from bot.storage.cups import Cups
from bot.storage.facts import Facts
from bot.storage.ladder import Ladder
from bot.storage.leases import Leases
from bot.storage.outbox import Outbox
from bot.storage.releases import Releases
from bot.storage.signups import Signups
from bot.storage.tables import Tables
from bot.storage.timers import Timers
from bot.storage.transaction_metrics import TimedDatabase
from bot.storage.updates import Updates
from bot.storage.users import Users


class Repositories:
    """``Storage``: the repositories sharing one database (see ``repos``)."""

    def __init__(self, db: Database, *, user_cache: float = 0.0) -> None:
        """``user_cache``: seconds a user's or a chat's read stays good in this process."""
        self._db = db
        db = TimedDatabase(db)  # every repository's transactions, timed for /metrics
        self.users = Users(db, cache_seconds=user_cache)
        self.chats = Chats(db, cache_seconds=user_cache)
        self.ladder = Ladder(db)
        self.awards = Awards(db)
        self.tables = Tables(db, self.ladder)
        self.outbox = Outbox(db)
        self.leases = Leases(db)
        self.timers = Timers(db)
        self.updates = Updates(db)
        self.signups = Signups(db)
        self.facts = Facts(db)
        self.releases = Releases(db)
        self.cups = Cups(db)

    async def oldest_live_release(self) -> int | None:
        """The oldest release a live worker runs (None: none is alive); see ``releases``."""
        return await self.releases.oldest_live()

    @property
    def is_closed(self) -> bool:
        return self._db.is_closed

    async def ping(self) -> bool:
        """True when the database answers ``SELECT 1`` (the health check); False when it is
        closed or fails in any way."""
        if self._db.is_closed:
            return False
        try:
            async with self._db.read() as conn:
                await conn.fetchone("SELECT 1")
        except Exception:  # whatever the driver raises, the answer is "not healthy"
            return False
        return True

    async def listen(self, on_change: Callable[[int | None], None]) -> None:
        """Run until cancelled, calling ``on_change(table_id)`` whenever another process saves
        a table (only where the database can tell: PostgreSQL; one SQLite process tells
        itself, so here there is nothing to hear)."""
        await asyncio.Event().wait()

    @property
    def listening(self) -> bool:
        return True

    async def close(self) -> None:
        """Close the database (waiting for running operations first). Safe to call twice."""
        await self._db.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
