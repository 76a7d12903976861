"""The storage interface of the game's aggregates: users, chats, tables (with seats, log and
what a save owes) and the ladder. See ``repos`` for the whole ``Storage``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bot.storage.awards import Awarder, Earned, PairLine
from bot.storage.cups import Also
from bot.storage.outbox import Owed
from bot.storage.records import (
    ChatRecord,
    HistoryPage,
    LadderBoard,
    LadderMatch,
    LogEntry,
    LoggedEntry,
    LogKind,
    MatchRecord,
    PlayerCard,
    PlayerResult,
    Rater,
    SeasonRecord,
    Standing,
    TableRecord,
    UserRecord,
)
from bot.storage.timers import Timer


class UserRepo(Protocol):
    async def get(self, user_id: int) -> UserRecord | None: ...

    async def upsert(self, user: UserRecord) -> None:
        """Insert the user, or update first_name/username/language_code/can_message and
        private_chat_id. ``language`` (the /language override) and ``private_chat_id`` are only
        overwritten by a non-None value."""
        ...

    async def set_language(self, user_id: int, language: str | None) -> None:
        """Set or clear (None) the user's language override. No-op for an unknown user."""
        ...

    async def set_can_message(self, user_id: int, can: bool) -> None:
        """No-op for an unknown user."""
        ...

    async def find_by_username(self, username: str) -> UserRecord | None:
        """The user with this @username (case-insensitive, with or without the @), if seen."""
        ...


class ChatRepo(Protocol):
    async def get(self, chat_id: int) -> ChatRecord | None: ...

    async def upsert(self, chat: ChatRecord) -> None:
        """Insert the chat or overwrite all its fields with the record's."""
        ...

    async def migrate(self, old_chat_id: int, new_chat_id: int) -> None:
        """Move the chat row, its tables, its match records and what the outbox owes it to
        ``new_chat_id``, atomically (owed deletions are dropped: they name old messages).

        Raises ``ActiveTableExistsError`` (and moves nothing) if both chats have an active table
        in the same topic (a basic group has no topics: its tables have none).
        The chat's ladder is rebuilt from its matches at the next ``ladder.update``.
        """
        ...


class TableRepo(Protocol):
    async def create(
        self,
        table: TableRecord,
        *,
        owe: Sequence[Owed] = (),
        timers: Sequence[Timer] = (),
        also: Also | None = None,
    ) -> TableRecord:
        """Insert a new table with its seats, and ``owe`` (their ``table_id`` set to the new
        id), in one transaction. Sets ``id``, ``version`` (1), ``created_at`` and
        ``updated_at`` on the given record and returns it.

        Raises ``ActiveTableExistsError`` if the table is active and its chat already has an
        active table in the same topic (``thread_id``; None, no topic, counts as one too).
        ``also``: more writes in that transaction, given the new id (a cup's round).
        """
        ...

    async def get(self, table_id: int) -> TableRecord | None: ...

    async def active_for_chat(
        self, chat_id: int, thread_id: int | None = None
    ) -> TableRecord | None:
        """The lobby/playing table of a chat's topic (``thread_id`` None: the chat's table
        outside topics, or in a forum's General topic)."""
        ...

    async def newest_id(self, chat_id: int, thread_id: int | None = None) -> int | None:
        """The id of the chat's (topic's) latest table in any state; None if it had none."""
        ...

    async def active_in_chat(self, chat_id: int) -> list[TableRecord]:
        """Every lobby/playing table of the chat, in all its topics, oldest first."""
        ...

    async def active_for_user(self, user_id: int) -> TableRecord | None:
        """The lobby/playing table where the user holds a seat, or a computer plays the seat
        they were removed from (``SeatRecord.person_id``)."""
        ...

    async def active(self) -> list[TableRecord]:
        """All lobby/playing tables, oldest first."""
        ...

    async def select(
        self,
        table_id: int,
        seat: int,
        selection: Sequence[str],
        *,
        active_at: float | None,
        expected_version: int,
        owe: Sequence[Owed] = (),
    ) -> int:
        """Write one seat's chosen cards and ``active_at`` and add ``owe``, in one small
        transaction, if the stored version is ``expected_version`` (else
        ``StaleVersionError``, writing nothing); returns the next version. The table's other
        fields and its match stay as they are; the version moves on, so that another
        worker's save from an older read cannot write the seat back without the choice."""
        ...

    async def save(
        self,
        table: TableRecord,
        *,
        expected_version: int,
        log: Sequence[LogEntry] = (),
        match: MatchRecord | None = None,
        rate: Rater | None = None,
        award: Awarder | None = None,
        owe: Sequence[Owed] = (),
        timers: Sequence[Timer] | None = None,
    ) -> TableRecord:
        """Write the table and all its seats, append ``log``, (optionally) record ``match``
        (and with ``rate``, rate it into the ladder as ``ladder.record`` does; with ``award``,
        award its achievements, whose ``Awarding.owe`` then takes the place of ``owe``), add ``owe``
        to the outbox and (unless None) make ``timers`` the table's timers, in one
        transaction, if the stored version is ``expected_version``.

        The version goes up by one. The given record's ``version``, ``updated_at`` and ``chat_id``
        (which only ``chats.migrate`` changes) are updated, and the record is returned.
        Raises ``StaleVersionError`` (writing nothing) on a version mismatch,
        ``TableNotFoundError`` for an unknown table id and ``SeatedElsewhereError`` when a
        person of an active table holds a seat at another active table (``create`` too).
        """
        ...

    async def log(self, table_id: int, kind: LogKind | None = None) -> list[LoggedEntry]:
        """The table's log entries in the order they were written, optionally of one kind."""
        ...

    async def prune(self, *, finished_before: float, limit: int) -> int:
        """Delete up to ``limit`` finished or cancelled tables that ended before
        ``finished_before`` (epoch seconds), with their seats, log, timers and whatever the
        outbox still owes for them, in one transaction; returns how many went. The ladder (its
        matches, players and ratings) is kept. Only the ``PRUNE_WINDOW`` oldest tables are
        looked at: they are the ones that go first, so the look stays small however many
        tables are kept."""
        ...


class LadderRepo(Protocol):
    async def record(
        self, match: MatchRecord, *, rate: Rater | None = None, award: Awarder | None = None
    ) -> int:
        """Store a finished match and its players; returns the match id.

        A table has at most one match record: recording the same ``table_id`` again stores
        nothing and returns the existing id (so a retry after a crash cannot count twice).
        The match joins the chat's current ladder season. With ``rate``, every match of the
        chat not yet in the ladder (this one included) is rated in the same transaction; with
        ``award``, a new match's achievements are awarded in it too (and what the awarder
        answers it owes, owed).
        """
        ...

    async def update(self, rate: Rater, chat_id: int | None = None) -> int:
        """Rate the matches not yet in the ladder (of one chat, or of every chat), oldest first,
        into the standings and the rating history; returns how many. Cheap when there are none.

        A match is rated once per scope: its variant and ``ALL_VARIANTS``. Each rated match
        adds to its players' lines (one per chat, season, scope and player; the seats of one
        computer level add up in one line) and stores every seat's rating before and after.
        """
        ...

    async def season(self, chat_id: int, season: int | None = None) -> SeasonRecord:
        """The chat's current ladder season (or the given one). Season 1 needs no reset."""
        ...

    async def start_season(
        self, chat_id: int, *, after: int, by: int | None = None
    ) -> SeasonRecord | None:
        """Start season ``after + 1`` if the current season is ``after``, else do nothing and
        return None (a stale confirmation). Older seasons keep their lines and matches."""
        ...

    async def top(self, chat_id: int, season: int, variant: str, limit: int = 10) -> list[Standing]:
        """The best lines of a chat's season in one scope (a variant or ``ALL_VARIANTS``):
        by rating, then matches, then player key."""
        ...

    async def standing(
        self, chat_id: int, season: int, variant: str, player: str
    ) -> tuple[int, Standing] | None:
        """A player's line and its rank (1-based, in ``top``'s order), or None."""
        ...

    async def size(self, chat_id: int, season: int, variant: str) -> int:
        """How many lines a chat's season has in one scope."""
        ...

    async def player_standings(self, player: str, chat_id: int | None = None) -> list[Standing]:
        """A player's lines in one chat (every season and scope), or with ``chat_id`` None
        their ``ALL_VARIANTS`` lines in every chat and season."""
        ...

    async def player_results(
        self, chat_id: int, season: int, player: str, limit: int = 10
    ) -> list[PlayerResult]:
        """A player's newest rated matches in a chat's season (one entry per seat held)."""
        ...

    async def history(
        self,
        *,
        chat_id: int | None = None,
        season: int | None = None,
        variant: str | None = None,
        user_id: int | None = None,
        limit: int = 10,
    ) -> list[LadderMatch]:
        """The newest matches, newest first: a chat's season (``chat_id`` and ``season``,
        optionally one ``variant``), or a user's matches in every chat (``user_id``)."""
        ...

    # One read transaction per ladder command (each also says whether matches wait to be
    # rated: the caller then runs ``update`` and reads again).

    async def board(
        self,
        chat_id: int,
        *,
        season: int | None,
        variant: str,
        player: str,
        limit: int = 10,
    ) -> LadderBoard:
        """/top: the current and the asked season (None: the current one), its best ``limit``
        lines in one scope, the ``player``'s rank and line if not among them, the size."""
        ...

    async def card(self, chat_id: int, player: str, *, results: int = 10) -> PlayerCard:
        """/stats: the player's lines in the chat, their place in the current season's overall
        ladder, and their newest results of the current season."""
        ...

    async def history_page(
        self, chat_id: int, *, season: int | None, variant: str | None, limit: int = 10
    ) -> HistoryPage:
        """/history: the newest matches of a season (None: the current one) of the chat."""
        ...


class AwardRepo(Protocol):
    async def earned(self, chat_id: int, user_id: int | None = None) -> list[Earned]:
        """The chat's achievements (or one person's), oldest first."""
        ...

    async def waits(self, chat_id: int, user_id: int) -> tuple[int, int]:
        """(turns timed out, deals played by a stand-in) of the person's matches in the chat."""
        ...

    async def of_table(self, table_id: int) -> list[tuple[int, str]]:
        """(user id, achievement) earned by the table's match (none before it is recorded)."""
        ...

    async def count(self, user_id: int) -> int:
        """The person's achievements, every chat together."""
        ...

    async def pairs(
        self, chat_id: int, *, user_id: int | None = None, least: int = 1
    ) -> list[PairLine]:
        """The partnerships of the chat's four-player matches with at least ``least`` matches
        together (or one person's), unsorted."""
        ...
