"""The service's wiring: storage, messenger, scheduler, settings, locks and caches."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from kozel_rules.match import Match

from ..storage import Storage, TableRecord
from .live import LiveMessages
from .owed import Ledger
from .ports import Messenger, Scheduler


@dataclass(frozen=True)
class Settings:
    bot_username: str = "kozel_bot"
    ai_delay: float = 1.2  # a computer player's pause before it moves, so people can follow
    table_interval: float = 1.0  # at least this long between two edits of a group's table
    hand_interval: float = 0.25  # ... and of one player's hand message
    default_ai_level: str = "strong"
    default_variant: str = "street"
    timeout_scale: float = 1.0  # multiplies turn timers (tests run them fast)


class Core:
    """Everything a use case needs. One instance per running bot."""

    def __init__(
        self, storage: Storage, messenger: Messenger, scheduler: Scheduler, settings: Settings
    ) -> None:
        self.storage = storage
        self.messenger = messenger
        self.scheduler = scheduler
        self.settings = settings
        self.ledger = Ledger()
        self.live_tables = LiveMessages(settings.table_interval)
        self.live_hands = LiveMessages(settings.hand_interval)
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._chat_locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        # Loading a match replays its record; the last one per table is kept, keyed by state.
        self._matches: dict[int, tuple[dict[str, Any], Match]] = {}

    def match_of(self, table: TableRecord) -> Match:
        """The table's match (a private copy the caller may change)."""
        assert table.match_state is not None
        cached = self._matches.get(table.id)
        if cached is not None and cached[0] == table.match_state:
            return cached[1].copy()
        match = Match.from_json(table.match_state)
        self.keep_match(table, match)
        return match

    def keep_match(self, table: TableRecord, match: Match) -> None:
        """Remember the match just saved as ``table.match_state``."""
        assert table.match_state is not None
        self._matches[table.id] = (table.match_state, match.copy())

    @asynccontextmanager
    async def table_lock(self, table_id: int) -> AsyncIterator[None]:
        async with self._locks[table_id]:
            yield

    @asynccontextmanager
    async def chat_lock(self, chat_id: int) -> AsyncIterator[None]:
        async with self._chat_locks[chat_id]:
            yield
