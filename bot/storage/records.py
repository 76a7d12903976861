"""Plain records the storage layer reads and writes.

These are backend-neutral value holders: no database types appear here, so the service layer can
build and inspect them without knowing how they are stored.

JSON-valued fields (``ChatRecord.settings``, ``TableRecord.match_state``, ``SeatRecord.selection``,
``LogEntry.data``, ``MatchRecord.result``) must hold plain JSON values: dicts with string keys,
lists, strings, numbers (no NaN/infinity), booleans and None. Tuples come back as lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Protocol

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


# ------------------------------------------------------------------ the ladder (schema version 2)

ALL_VARIANTS = "*"
"""The ladder scope that counts every variant: a player's overall line and rating in a chat."""


def player_key(user_id: int | None, ai_level: str | None) -> str:
    """A ladder identity: ``"u<user id>"`` for a person, ``"ai:<level>"`` for each computer level
    (all computer players of one level share one line and one rating)."""
    if user_id is not None:
        return f"u{user_id}"
    return f"ai:{ai_level or 'unknown'}"


@dataclass(frozen=True)
class Rating:
    """A skill estimate: mean and uncertainty, and the conservative value the ladder shows and
    sorts by (computed by the service, which owns the rating model)."""

    mu: float
    sigma: float
    value: float


@dataclass(frozen=True)
class RatingChange:
    """One seat's rating in one match and one scope."""

    rank: int
    """The seat's side's finishing place: 1 for the winners, then by reverse elimination order."""
    before: Rating
    after: Rating


class Rater(Protocol):
    """The rating model, handed to the storage so a match is rated inside the transaction that
    records it. ``before[i]`` is the rating of ``match.players_list[i]``'s player in the scope
    being rated (None: first match in that scope); the answer has one change per seat, in order.
    It must be pure and deterministic (matches can be rated again, e.g. after a chat migration).
    """

    def __call__(
        self, match: MatchRecord, before: Sequence[Rating | None]
    ) -> Sequence[RatingChange]: ...


@dataclass(frozen=True)
class Tally:
    """Counts of a ladder line (or a sum of lines)."""

    matches: int = 0
    wins: int = 0
    goats: int = 0
    deals_won: int = 0
    deals_lost: int = 0
    defeat_points_taken: int = 0
    defeat_points_given: int = 0
    """Defeat points the other sides took in the player's matches."""
    eggs: int = 0
    queens_caught: int = 0
    tricks: int = 0
    card_points: int = 0

    @classmethod
    def of(cls, player: MatchPlayerRecord, *, given: int) -> Tally:
        """One match of one seat; ``given`` is the defeat points the other sides took."""
        return cls(
            matches=1,
            wins=int(player.won),
            goats=int(player.goat),
            deals_won=player.deals_won,
            deals_lost=player.deals_lost,
            defeat_points_taken=player.defeat_points,
            defeat_points_given=given,
            eggs=player.eggs,
            queens_caught=player.queens_caught,
            tricks=player.tricks,
            card_points=player.card_points,
        )

    @property
    def losses(self) -> int:
        """Matches not won: the goats, and with three players also the first one out."""
        return self.matches - self.wins

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(Tally)))


@dataclass(frozen=True)
class Standing:
    """A player's line in a chat's ladder for one season and one scope (a variant or
    ``ALL_VARIANTS``). A computer level's line has ``user_id`` None and ``ai_level`` set."""

    chat_id: int
    season: int
    variant: str
    player: str
    user_id: int | None
    ai_level: str | None
    name: str
    """The name the player had in their latest match."""
    tally: Tally
    rating: Rating
    last_match_id: int
    last_played_at: float


@dataclass(frozen=True)
class SeasonRecord:
    """A chat's ladder season. Season 1 exists implicitly (``started_at`` None) until a reset."""

    chat_id: int
    season: int
    started_at: float | None = None
    started_by: int | None = None


@dataclass(frozen=True)
class LadderMatch:
    """A stored match with its ladder data, for histories."""

    id: int
    season: int
    record: MatchRecord
    changes: dict[int, RatingChange]
    """Seat -> the overall (``ALL_VARIANTS``) rating change; empty until the match is rated."""


@dataclass(frozen=True)
class PlayerResult:
    """One of a player's rated matches, newest first in queries."""

    match_id: int
    variant: str
    finished_at: float
    won: bool
    goat: bool
    change: RatingChange
    options: dict[str, Any] = field(default_factory=dict)
    """The match's house rules (``{}``: none)."""


@dataclass(frozen=True)
class LadderBoard:
    """What /top shows, read in one transaction."""

    current: SeasonRecord
    """The chat's current season."""
    season: SeasonRecord
    """The season asked for (its lines are empty if it does not exist yet)."""
    lines: list[Standing]
    """The best lines, best first."""
    caller: tuple[int, Standing] | None
    """The asking player's rank and line, when they have one but it is not among ``lines``."""
    size: int
    """How many lines the season has in this scope."""
    pending: bool
    """Matches of the chat wait to be rated: update the ladder and read again."""


@dataclass(frozen=True)
class PlayerCard:
    """What /stats shows for one player in one chat, read in one transaction."""

    current: SeasonRecord
    lines: list[Standing]
    """Every season and scope of the player in this chat."""
    rank: int | None
    """The player's place in the current season's overall ladder (None: not in it)."""
    size: int
    """Lines in the current season's overall ladder."""
    results: list[PlayerResult]
    """The newest rated matches of the current season."""
    pending: bool


@dataclass(frozen=True)
class HistoryPage:
    """What /history shows in a chat, read in one transaction."""

    current: SeasonRecord
    season: int
    matches: list[LadderMatch]
    pending: bool
