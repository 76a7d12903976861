"""The service's wiring: storage, messenger, scheduler and settings, and the per-process
mechanisms every use case shares (each in a module of its own)."""

from __future__ import annotations

import asyncio

from ..storage import Storage
from .analyses import Analyses
from .budget import Budget, Budgeted
from .gate import AdminCache
from .keyed_locks import KeyedLocks
from .live import Live
from .match_cache import MatchCache
from .ports import Messenger, Scheduler
from .presses import Presses
from .running_settings import Settings
from .shown import Shown


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
        self.table_locks = KeyedLocks()  # a table's changes in this process, one at a time
        self.chat_locks = KeyedLocks()  # a chat's new tables and cups, one at a time
        self.matches = MatchCache()  # the tables' loaded matches
        self.shown = Shown()  # what the messages show, to skip edits that change nothing
        self.presses = Presses()  # recent hand presses, to spare sounds and writes

    def wake_sender(self) -> None:
        self.outbox_ready.set()

    def table_changed(self, table_id: int) -> None:
        """A change of the table is committed: the sender and the table's open pages hear."""
        self.outbox_ready.set()
        self.live.changed(table_id)

    def in_memory(self) -> dict[str, int]:
        """How many per-table things the process holds (they must not grow with history)."""
        return {
            "locks": len(self.table_locks) + len(self.chat_locks),
            "matches": len(self.matches),
            "budget": self.budget.tracked(),
            "watchers": self.live.tracked(),
            "admins": self.admins.tracked(),
        }
