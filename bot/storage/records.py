"""Plain records the storage layer reads and writes.

These are backend-neutral value holders: no database types appear here, so the service layer can
build and inspect them without knowing how they are stored.

JSON-valued fields (``ChatRecord.settings``, ``TableRecord.match_state``, ``SeatRecord.selection``,
``LogEntry.data``, ``MatchRecord.result``) must hold plain JSON values: dicts with string keys,
lists, strings, numbers (no NaN/infinity), booleans and None. Tuples come back as lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .ladder_records import (
    ALL_VARIANTS,
    HistoryPage,
    LadderBoard,
    LadderMatch,
    PlayerCard,
    PlayerResult,
    Rater,
    Rating,
    RatingChange,
    SeasonRecord,
    Standing,
    Tally,
    player_key,
)

# The ladder's records live in ladder_records; importers keep reading them from here.
__all__ = [
    "ACTIVE_STATUSES",
    "ALL_VARIANTS",
    "TABLE_STATUSES",
    "Actor",
    "ChatRecord",
    "HistoryPage",
    "LadderBoard",
    "LadderMatch",
    "LogEntry",
    "LogKind",
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
    "Standing",
    "TableRecord",
    "TableStatus",
    "Tally",
    "UserRecord",
    "player_key",
]

# The enums' values are the strings stored in the database: never change one that has shipped.


class TableStatus(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    CANCELLED = "cancelled"


ACTIVE_STATUSES: tuple[TableStatus, ...] = (TableStatus.LOBBY, TableStatus.PLAYING)
"""Table statuses that count as "active" (reloaded on start, one per chat or forum topic)."""

TABLE_STATUSES: tuple[TableStatus, ...] = tuple(TableStatus)


class LogKind(StrEnum):
    """What a table's log line records."""

    ACTION = "action"
    DEAL = "deal"
    MATCH = "match"
    LOBBY = "lobby"
    START = "start"
    BACK = "back"
    UNREACHABLE = "unreachable"
    CANCEL = "cancel"
    KICK = "kick"
    COACH = "coach"  # the coach answered a player about a deal (data: user, deal)


class Actor(StrEnum):
    """Who made a logged change."""

    PERSON = "human"
    COMPUTER = "computer"
    TIMER = "timeout"
    """The turn timer, playing for a person who let it run out."""
    SYSTEM = "system"


@dataclass
class UserRecord:
    """A Telegram user the bot has seen."""

    user_id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None
    """The language Telegram reports for the user."""
    language: str | None = None
    """The user's own override, set with /language (None: follow ``language_code``)."""
    can_message: bool = False
    """True once the user has started the bot in private, so the bot can message them."""
    private_chat_id: int | None = None


@dataclass
class ChatRecord:
    """A group chat (a table's home) and its settings."""

    chat_id: int
    title: str = ""
    language: str | None = None
    """Chat language chosen by its admins (None: not chosen yet)."""
    turn_timeout: int = 60
    """Seconds a player has for a move; 0 turns the timer off."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Other per-chat settings (JSON)."""


@dataclass
class SeatRecord:
    """One seat at a table: a human (``user_id`` set) or a computer player."""

    seat: int
    user_id: int | None
    name: str
    ai_level: str | None = None
    """A computer player's level (one of ``kozel_rules.ai.LEVELS``), else None."""
    hand_message_id: int | None = None
    timeouts: int = 0
    """Timeouts in a row."""
    away: bool = False
    """A computer plays for this human until they press "I'm back"."""
    deadline: float | None = None
    """Epoch seconds when this seat's turn times out (None: no timer running)."""
    selection: list[str] = field(default_factory=list)
    """Cards toggled in the hand message, e.g. ``["K♠", "9♠"]``."""
    active_at: float | None = None
    """When the person last pressed a button at this table (epoch seconds)."""
    left_user_id: int | None = None
    """The person a computer plays for since they were removed from the running match: the
    seat's result still counts for them, and they hold no other seat until the match ends."""

    replaced: bool = False
    """The person named was removed mid-match; a computer player finishes for them."""

    @property
    def person_id(self) -> int | None:
        """The person whose seat this is (sitting, or removed while the match runs)."""
        return self.user_id if self.user_id is not None else self.left_user_id


@dataclass
class TableRecord:
    """A table (one match) in a group chat, with its seats and the engine's match state."""

    id: int
    """0 until ``tables.create`` assigns one."""
    chat_id: int
    status: TableStatus
    variant: str
    creator_id: int
    seed: int
    version: int = 0
    """Bumped by every save; buttons carry it so stale presses can be refused."""
    seats: list[SeatRecord] = field(default_factory=list)
    match_state: dict[str, Any] | None = None
    """The engine's ``Match.to_json()``."""
    table_message_id: int | None = None
    lobby_message_id: int | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    finished_at: float | None = None
    note: str | None = None
    """A line the table message shows ("Bob is back") until the next one."""
    thread_id: int | None = None
    """The forum topic the table lives in (its messages go there); None: no topic."""
    options: dict[str, Any] = field(default_factory=dict)
    """The house rules, as ``kozel_rules.options.Options.to_json()``: only those not at their
    default (``{}``: the rules without options)."""

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES


@dataclass
class LogEntry:
    """One line of a table's log, written together with a table save."""

    kind: LogKind
    ply: int | None
    seat: int | None
    text: str
    """E.g. ``"1 lead K♠ 9♠"``."""
    data: dict[str, Any] | None = None
    """Structured detail (e.g. a deal result), JSON."""
    by: Actor = Actor.SYSTEM


@dataclass
class LoggedEntry(LogEntry):
    """A ``LogEntry`` as stored: with its id (insertion order), table and timestamp."""

    id: int = field(kw_only=True)
    table_id: int = field(kw_only=True)
    at: float = field(kw_only=True)


@dataclass
class MatchPlayerRecord:
    """One seat's line in a finished match, for the ladder."""

    seat: int
    side: int
    user_id: int | None
    name: str
    ai_level: str | None
    won: bool
    goat: bool
    defeat_points: int
    deals_won: int
    deals_lost: int
    eggs: int
    queens_caught: int
    tricks: int
    card_points: int
    timeouts: int = 0
    """Turns the timer played for the person (stored since schema 11; 0 before)."""
    stand_in_deals: int = 0
    """Deals in which a computer played for the person (away or removed), since schema 11."""


@dataclass
class MatchRecord:
    """A finished match, for the ladder."""

    table_id: int
    chat_id: int
    variant: str
    players: int
    started_at: float
    finished_at: float
    deals: int
    goat_with_eggs: bool
    result: dict[str, Any]
    players_list: list[MatchPlayerRecord]
    options: dict[str, Any] = field(default_factory=dict)
    """The house rules the match was played with (as ``TableRecord.options``)."""

    def tallies(self) -> list[Tally]:
        """What the match adds to each seat's ladder line, in ``players_list`` order."""
        by_side = {p.side: p.defeat_points for p in self.players_list}
        total = sum(by_side.values())
        return [Tally.of(p, given=total - by_side[p.side]) for p in self.players_list]
