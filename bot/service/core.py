"""The service's wiring: storage, messenger, scheduler, settings, locks and caches."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, fields
from typing import Any

from kozel_rules.ai import STAND_IN_LEVEL
from kozel_rules.match import Match
from kozel_rules.variant import STREET, Variant

from ..config import Config
from ..lru import LRU
from ..storage import Storage, TableRecord
from .analyses import Analyses
from .budget import Budget, Budgeted
from .gate import AdminCache
from .live import Live
from .ports import Messenger, Scheduler

MATCHES_KEPT = 256  # loaded matches kept in memory (a cache: any one can be loaded again)
SHOWN_KEPT = 4096  # what the newest messages show, to skip edits that would change nothing


@dataclass(frozen=True, repr=False)  # Config's repr, which hides the secrets
class Settings(Config):
    """The configuration as the use cases see it: every setting of ``Config`` (its defaults
    are written there, once), and what the bot learns at start or keeps fixed."""

    bot_username: str = "kozel_bot"
    active_for: float = 30.0  # a player who pressed this recently needs no sound on their turn
    default_ai_level: str = STAND_IN_LEVEL  # stands in at timeouts, for the away, on /add
    default_variant: Variant = STREET

    @classmethod
    def of(cls, config: Config, *, bot_username: str) -> Settings:
        """The running bot's settings: ``config`` as read at start, and its username."""
        read = {f.name: getattr(config, f.name) for f in fields(Config)}
        return cls(**read, bot_username=bot_username)


class Core:
    """Everything a use case needs. One instance per running bot."""

    def __init__(
        self,
        storage: Storage,
        messenger: Messenger,
        scheduler: Scheduler,
        settings: Settings,
        budget: Budget | None = None,
    ) -> None:
        self.storage = storage
        self.scheduler = scheduler
        self.settings = settings
        self.budget = budget or Budget()
        self.messenger: Messenger = Budgeted(messenger, self.budget)
        self.admins = AdminCache()  # a flood of admin-only presses costs one getChatMember
        self.outbox_ready = asyncio.Event()  # set by every change that owes Telegram something
        self.live = Live()  # the Mini App pages watching tables
        self.analyses = Analyses()  # the coach's reviews, in a worker process
        # A lock lives while someone holds or waits for it; then it is forgotten.
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._chat_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self.shown: LRU[tuple[int, int], int] = LRU(SHOWN_KEPT)  # message -> text hash
        # Messages whose last edit failed on the way (a timeout): Telegram may still carry it
        # out late, over a later edit of the same message (message -> when it failed).
        self.unsure: LRU[tuple[int, int], float] = LRU(SHOWN_KEPT)
        # When each person last pressed a hand, also presses answered without a write (a
        # tap while another plays): a player fidgeting meanwhile needs no sound on their turn.
        self.pressed: LRU[int, float] = LRU(SHOWN_KEPT)
        # Hands owed again because a tap found them showing a turn already played, by (table,
        # seat) -> the ply they show: further taps on the same hand need no further write.
        self.reshown: LRU[tuple[int, int], int] = LRU(SHOWN_KEPT)
        # Loading a match replays its record; the newest ones are kept, keyed by state.
        self._matches: LRU[int, tuple[dict[str, Any], Match]] = LRU(MATCHES_KEPT)

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
        if not table.is_active:
            self._matches.pop(table.id)  # finished: nobody asks for it again
            return
        self._matches.put(table.id, (table.match_state, match.copy()))

    def is_shown(self, chat_id: int, message_id: int, look: int) -> bool:
        """Whether the message shows ``look`` already (as far as this process knows)."""
        return self.shown.peek((chat_id, message_id)) == look

    def remember_shown(self, chat_id: int, message_id: int, look: int) -> None:
        self.shown.put((chat_id, message_id), look)

    def forget_shown(self, chat_id: int) -> None:
        for key in self.shown.oldest_first():
            if key[0] == chat_id:
                self.shown.pop(key)

    def wake_sender(self) -> None:
        self.outbox_ready.set()

    def table_changed(self, table_id: int) -> None:
        """A change of the table is committed: the sender and the table's open pages hear."""
        self.outbox_ready.set()
        self.live.changed(table_id)

    @asynccontextmanager
    async def table_lock(self, table_id: int) -> AsyncIterator[None]:
        async with _lock(self._locks, table_id):
            yield

    @asynccontextmanager
    async def chat_lock(self, chat_id: int) -> AsyncIterator[None]:
        async with _lock(self._chat_locks, chat_id):
            yield

    def in_memory(self) -> dict[str, int]:
        """How many per-table things the process holds (they must not grow with history)."""
        return {
            "locks": len(self._locks) + len(self._chat_locks),
            "matches": len(self._matches),
            "budget": self.budget.tracked(),
            "watchers": self.live.tracked(),
            "admins": self.admins.tracked(),
        }


@asynccontextmanager
async def _lock(
    locks: weakref.WeakValueDictionary[int, asyncio.Lock], key: int
) -> AsyncIterator[None]:
    lock = locks.get(key)
    if lock is None:
        lock = locks[key] = asyncio.Lock()
    async with lock:
        yield
