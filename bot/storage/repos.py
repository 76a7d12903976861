"""The storage interface the service layer codes against: one small protocol per aggregate.

Nothing here knows about a particular database: ``SqliteStorage`` implements these today, and a
server-database backend can implement them later without touching callers. Every method is a
coroutine; every write is one transaction and is durable when it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from bot.storage.cups import Also, Cups
from bot.storage.facts import Facts
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
from bot.storage.releases import LiveWorker
from bot.storage.timers import Timer
from bot.storage.updates import Taken


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
        ``also``: more writes in that
        transaction, given the new id (a cup's round)."""
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
    ) -> None:
        """Write one seat's chosen cards and ``active_at`` and add ``owe``, in one small
        transaction, if the stored version is ``expected_version`` (else
        ``StaleVersionError``, writing nothing): the table's other fields, its match and its
        version stay as they are."""
        ...

    async def save(
        self,
        table: TableRecord,
        *,
        expected_version: int,
        log: Sequence[LogEntry] = (),
        match: MatchRecord | None = None,
        rate: Rater | None = None,
        owe: Sequence[Owed] = (),
        timers: Sequence[Timer] | None = None,
    ) -> TableRecord:
        """Write the table and all its seats, append ``log``, (optionally) record ``match``
        (and with ``rate``, rate it into the ladder as ``ladder.record`` does), add ``owe``
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
    async def record(self, match: MatchRecord, *, rate: Rater | None = None) -> int:
        """Store a finished match and its players; returns the match id.

        A table has at most one match record: recording the same ``table_id`` again stores
        nothing and returns the existing id (so a retry after a crash cannot count twice).
        The match joins the chat's current ladder season. With ``rate``, every match of the
        chat not yet in the ladder (this one included) is rated in the same transaction.
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

    async def resume(self, kind: str) -> float | None:
        """Run them again; since when they were paused (None: they were not)."""
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

    async def take(self, update_id: int, holder: str, *, stale_after: float) -> Taken: ...

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


class Storage(Protocol):
    """Persistence for users, chats, tables (with seats and log) and finished matches."""

    @property
    def users(self) -> UserRepo: ...

    @property
    def chats(self) -> ChatRepo: ...

    @property
    def tables(self) -> TableRepo: ...

    @property
    def ladder(self) -> LadderRepo: ...

    @property
    def outbox(self) -> OutboxRepo: ...

    async def ping(self) -> bool:
        """True when the database answers a trivial query (for health checks); never raises."""
        ...

    @property
    def leases(self) -> LeaseRepo: ...

    @property
    def timers(self) -> TimerRepo: ...

    @property
    def updates(self) -> UpdateRepo: ...

    @property
    def signups(self) -> SignupRepo: ...

    @property
    def releases(self) -> ReleaseRepo: ...

    @property
    def cups(self) -> Cups: ...

    async def oldest_live_release(self) -> int | None:
        """The oldest release a live worker of this database runs (None: no worker is alive);
        a live holder that never said its release counts as v0.30 (``releases``)."""
        ...

    async def migrate(self) -> list[int]:
        """Bring the schema up to date (after ``open_storage(..., migrate=False)``); the
        versions applied."""
        ...

    @property
    def facts(self) -> Facts:
        """The bot as a whole, for ``/metrics`` and ``/status`` (small indexed queries)."""
        ...

    def process_lock(self) -> ProcessLock:
        """The lock that makes a process the database's one polling bot."""
        ...

    async def listen(self, on_change: Callable[[int | None], None]) -> None:
        """Run until cancelled: call ``on_change(table_id)`` whenever any process saves a table
        (where the database can tell: PostgreSQL's notifications), and ``on_change(None)``
        after a gap in which some may have been missed (the connection was lost and is
        back). On SQLite there is nobody to hear: it only waits."""
        ...

    @property
    def listening(self) -> bool:
        """Whether ``listen`` hears the database now (always, where there is nothing to hear)."""
        ...

    async def close(self) -> None: ...
