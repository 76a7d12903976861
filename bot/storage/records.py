"""Plain records the storage layer reads and writes.

These are backend-neutral value holders: no database types appear here, so the service layer can
build and inspect them without knowing how they are stored.

JSON-valued fields (``ChatRecord.settings``, ``TableRecord.match_state``, ``SeatRecord.selection``,
``LogEntry.data``, ``MatchRecord.result``) must hold plain JSON values: dicts with string keys,
lists, strings, numbers (no NaN/infinity), booleans and None. Tuples come back as lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ACTIVE_STATUSES: tuple[str, ...] = ("lobby", "playing")
"""Table statuses that count as "active" (reloaded on start, one per chat)."""

TABLE_STATUSES: tuple[str, ...] = ("lobby", "playing", "finished", "cancelled")


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
    """``"random"``/``"basic"``/``"strong"`` for computer players, else None."""
    hand_message_id: int | None = None
    notice_message_id: int | None = None
    timeouts: int = 0
    """Timeouts in a row."""
    away: bool = False
    """A computer plays for this human until they press "I'm back"."""
    deadline: float | None = None
    """Epoch seconds when this seat's turn times out (None: no timer running)."""
    selection: list[str] = field(default_factory=list)
    """Cards toggled in the hand message, e.g. ``["K♠", "9♠"]``."""


@dataclass
class TableRecord:
    """A table (one match) in a group chat, with its seats and the engine's match state."""

    id: int
    """0 until ``Storage.create_table`` assigns one."""
    chat_id: int
    status: str
    """One of ``TABLE_STATUSES``."""
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

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES


@dataclass
class LogEntry:
    """One line of a table's log, written together with a table save."""

    kind: str
    """``"action"``, ``"deal"``, ``"match"``, ``"lobby"``, ``"timeout"``, ..."""
    ply: int | None
    seat: int | None
    text: str
    """E.g. ``"1 lead K♠ 9♠"``."""
    data: dict[str, Any] | None = None
    """Structured detail (e.g. a deal result), JSON."""
    by: str = "system"
    """``"human"``, ``"timeout"``, ``"computer"`` or ``"system"``."""


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
