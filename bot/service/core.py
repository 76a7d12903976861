"""The service's shared context: storage, messenger, scheduler, locks, translators, seats."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from kozel_rules.match import Match

from ..i18n import Translator, get_translator, negotiate
from ..render import SeatInfo
from ..screen import Screen
from ..storage import ChatRecord, Storage, TableRecord, UserRecord
from .live import LiveMessages
from .ports import ChatInfo, Messenger, Person, Scheduler

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Settings:
    bot_username: str = "kozel_bot"
    ai_delay: float = 1.2  # a computer player's pause before it moves, so people can follow
    table_interval: float = 1.0  # at least this long between two edits of a group's table
    hand_interval: float = 0.25  # ... and of one player's hand message
    default_ai_level: str = "strong"
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
        self.live_tables = LiveMessages(settings.table_interval)
        self.live_hands = LiveMessages(settings.hand_interval)
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._chat_locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        # Group posts (deal and match results) waiting for the table's worker, in order.
        self.posts: defaultdict[int, list[Screen]] = defaultdict(list)
        self.repost: set[int] = set()  # tables whose table message moves to the bottom
        self.notes: dict[int, str] = {}  # a short line on the table message ("X timed out")
        self.notify: defaultdict[int, set[int]] = defaultdict(set)  # seats to notify per table
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

    # ------------------------------------------------------------ locking

    @asynccontextmanager
    async def table_lock(self, table_id: int) -> AsyncIterator[None]:
        async with self._locks[table_id]:
            yield

    @asynccontextmanager
    async def chat_lock(self, chat_id: int) -> AsyncIterator[None]:
        async with self._chat_locks[chat_id]:
            yield

    # ------------------------------------------------------------ people and chats

    async def remember(self, person: Person, *, private: bool = False) -> UserRecord:
        """Store what Telegram told us about a user; a private message proves we can reach them."""
        known = await self.storage.get_user(person.user_id)
        record = UserRecord(
            user_id=person.user_id,
            first_name=person.first_name,
            username=person.username,
            language_code=person.language_code,
            language=known.language if known else None,
            can_message=private or (known.can_message if known else False),
            private_chat_id=person.user_id
            if private
            else (known.private_chat_id if known else None),
        )
        if known != record:
            await self.storage.upsert_user(record)
        return record

    async def chat_record(self, chat: ChatInfo, creator: UserRecord | None = None) -> ChatRecord:
        record = await self.storage.get_chat(chat.chat_id)
        if record is None:
            lang = negotiate(creator.language or creator.language_code) if creator else None
            record = ChatRecord(chat_id=chat.chat_id, title=chat.title, language=lang)
            await self.storage.upsert_chat(record)
        elif chat.title and record.title != chat.title:
            record.title = chat.title
            await self.storage.upsert_chat(record)
        return record

    def user_t(self, user: UserRecord | None) -> Translator:
        if user is None:
            return get_translator(None)
        return get_translator(user.language or negotiate(user.language_code))

    async def user_t_by_id(self, user_id: int | None) -> Translator:
        if user_id is None:
            return get_translator(None)
        return self.user_t(await self.storage.get_user(user_id))

    async def chat_t(self, chat_id: int) -> Translator:
        record = await self.storage.get_chat(chat_id)
        return get_translator(record.language if record else None)

    # ------------------------------------------------------------ seats


def seat_infos(table: TableRecord) -> list[SeatInfo]:
    return [SeatInfo(s.name, s.ai_level, s.away) for s in table.seats]


def seat_of_user(table: TableRecord, user_id: int) -> int | None:
    for s in table.seats:
        if s.user_id == user_id:
            return s.seat
    return None
