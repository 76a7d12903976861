"""The storage layer against real stores: each shared test runs on a SQLite file in ``tmp_path``
and on a PostgreSQL database (``target``); the SQLite-only ones (WAL, pragmas, its migration
runner) take ``db_path``."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiosqlite
import pytest
from storage_targets import Target

from bot.storage import (
    ActiveTableExistsError,
    Actor,
    ChatRecord,
    ConstraintError,
    LogEntry,
    LogKind,
    MatchPlayerRecord,
    MatchRecord,
    SchemaError,
    SeatRecord,
    SqliteStorage,
    StaleVersionError,
    Storage,
    StorageError,
    TableNotFoundError,
    TableRecord,
    TableStatus,
    UserRecord,
    open_storage,
)
from bot.storage.db import SqliteDatabase
from bot.storage.migrations import (
    MIGRATIONS,
    Migration,
    apply_migrations,
    latest_version,
    split_sql,
)


class Clock:
    """A clock the tests move by hand: every reading is one second after the last."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "kozel.sqlite3")


@pytest.fixture
async def storage(target: Target) -> AsyncIterator[Storage]:
    store = await target.open(clock=Clock())
    yield store
    await store.close()


def raw(db_path: str) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    try:
        yield conn
    finally:
        conn.close()


def query(db_path: str, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
    """Read the file directly with the stdlib driver (what another process would see)."""
    for conn in raw(db_path):
        return list(conn.execute(sql, params))
    raise AssertionError("unreachable")


def new_table(
    chat_id: int = -100, *, status: TableStatus = TableStatus.LOBBY, users: tuple[int, ...] = (1,)
) -> TableRecord:
    seats = [SeatRecord(seat=i, user_id=u, name=f"player{u}") for i, u in enumerate(users)]
    return TableRecord(
        id=0,
        chat_id=chat_id,
        status=status,
        variant="street",
        creator_id=users[0] if users else 1,
        seed=12345,
        seats=seats,
    )


def full_table(chat_id: int = -100) -> TableRecord:
    return TableRecord(
        id=0,
        chat_id=chat_id,
        status=TableStatus.PLAYING,
        variant="moscow",
        creator_id=11,
        seed=2**31 - 1,
        seats=[
            SeatRecord(
                seat=0,
                user_id=11,
                name="Аня",
                hand_message_id=501,
                timeouts=1,
                deadline=1_700_000_123.25,
                selection=["K♠", "9♠"],
            ),
            SeatRecord(seat=1, user_id=None, name="Computer 1", ai_level="strong"),
            SeatRecord(seat=2, user_id=22, name="Bob 🐐", away=True, timeouts=3),
            SeatRecord(seat=3, user_id=None, name="Computer 2", ai_level="random"),
        ],
        match_state={
            "variant": "moscow",
            "dealer": 3,
            "hands": [["10♥", "A♦"], [], ["Q♣"], ["6♦", "7♣", "8♠"]],
            "defeat_points": [0, 4],
            "nested": {"trump": "♥", "over": False, "none": None, "ratio": 0.5},
        },
        table_message_id=900,
        lobby_message_id=901,
        finished_at=None,
    )


def match_record(table_id: int, chat_id: int = -100) -> MatchRecord:
    def player(seat: int, user_id: int | None, won: bool) -> MatchPlayerRecord:
        return MatchPlayerRecord(
            seat=seat,
            side=seat % 2,
            user_id=user_id,
            name=f"p{seat}",
            ai_level=None if user_id else "basic",
            won=won,
            goat=not won,
            defeat_points=0 if won else 12,
            deals_won=3 if won else 1,
            deals_lost=1 if won else 3,
            eggs=1,
            queens_caught=0,
            tricks=20 + seat,
            card_points=300 + seat,
        )

    return MatchRecord(
        table_id=table_id,
        chat_id=chat_id,
        variant="street",
        players=4,
        started_at=1_700_000_000.0,
        finished_at=1_700_000_900.5,
        deals=4,
        goat_with_eggs=False,
        result={"defeat_points": [0, 12], "out": [1]},
        players_list=[
            player(0, 11, True),
            player(1, None, False),
            player(2, 22, True),
            player(3, 33, False),
        ],
    )


# -------------------------------------------------------------------------------- opening


async def test_open_storage_returns_a_working_sqlite_store_in_wal_mode(db_path: str) -> None:
    store: Storage = await open_storage(db_path)
    try:
        assert isinstance(store, SqliteStorage)
        await store.users.upsert(UserRecord(user_id=1, first_name="A"))
        assert query(db_path, "PRAGMA journal_mode")[0][0] == "wal"
    finally:
        await store.close()
    await store.close()  # closing twice is harmless


async def test_open_creates_missing_directories(tmp_path: Path) -> None:
    path = tmp_path / "data" / "nested" / "kozel.sqlite3"
    store = await SqliteStorage.open(str(path))
    await store.close()
    assert path.exists()


async def test_a_closed_store_refuses_work(storage: Storage) -> None:
    await storage.close()
    assert storage.is_closed
    with pytest.raises(StorageError):
        await storage.users.get(1)


async def test_synchronous_mode_is_checked(db_path: str) -> None:
    with pytest.raises(ValueError):
        await SqliteStorage.open(db_path, synchronous="OFF")


# ------------------------------------------------------------------------------ migrations


async def test_migrations_set_user_version_and_reopening_applies_nothing(db_path: str) -> None:
    store = await SqliteStorage.open(db_path)
    await store.close()
    assert query(db_path, "PRAGMA user_version")[0][0] == latest_version() == len(MIGRATIONS)
    tables = {row[0] for row in query(db_path, "SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "users",
        "chats",
        "game_tables",
        "seats",
        "table_log",
        "matches",
        "match_players",
    } <= tables

    async with aiosqlite.connect(db_path, isolation_level=None) as conn:
        assert await apply_migrations(conn) == []
    # and opening again through the store is fine too
    store = await SqliteStorage.open(db_path)
    await store.close()
    assert query(db_path, "PRAGMA user_version")[0][0] == latest_version()


async def test_apply_migrations_applies_each_version_once(db_path: str) -> None:
    calls: list[int] = []

    async def fill(conn: aiosqlite.Connection) -> None:
        calls.append(1)
        await conn.execute("INSERT INTO t (x) VALUES ('a;b')")

    migrations = [
        Migration(1, "t", "CREATE TABLE t (x TEXT); -- a comment; with a semicolon\n"),
        Migration(2, "fill", run=fill),
    ]
    async with aiosqlite.connect(db_path, isolation_level=None) as conn:
        assert await apply_migrations(conn, migrations) == [1, 2]
        assert await apply_migrations(conn, migrations) == []
        async with conn.execute("SELECT x FROM t") as cursor:
            assert [tuple(r) for r in await cursor.fetchall()] == [("a;b",)]
    assert calls == [1]
    assert query(db_path, "PRAGMA user_version")[0][0] == 2


async def test_a_failing_migration_leaves_no_trace(db_path: str) -> None:
    migrations = [
        Migration(1, "ok", "CREATE TABLE a (x INTEGER);"),
        Migration(2, "broken", "CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);"),
    ]
    async with aiosqlite.connect(db_path, isolation_level=None) as conn:
        with pytest.raises(sqlite3.OperationalError):
            await apply_migrations(conn, migrations)
    assert query(db_path, "PRAGMA user_version")[0][0] == 1
    names = {row[0] for row in query(db_path, "SELECT name FROM sqlite_master")}
    assert "a" in names and "b" not in names


async def test_a_database_newer_than_the_code_is_refused(db_path: str) -> None:
    for conn in raw(db_path):
        conn.execute(f"PRAGMA user_version = {latest_version() + 1}")
    with pytest.raises(SchemaError):
        await SqliteStorage.open(db_path)


async def test_migration_versions_must_be_consecutive(db_path: str) -> None:
    async with aiosqlite.connect(db_path, isolation_level=None) as conn:
        with pytest.raises(SchemaError):
            await apply_migrations(conn, [Migration(2, "skips one", "SELECT 1;")])


def test_split_sql_respects_strings_and_trigger_bodies() -> None:
    script = """
    -- leading comment
    CREATE TABLE t (x TEXT DEFAULT ';');
    CREATE TRIGGER tr AFTER INSERT ON t BEGIN
        UPDATE t SET x = 'y;z';
        DELETE FROM t WHERE x = ';';
    END;
    INSERT INTO t VALUES ('1;2');
    """
    statements = list(split_sql(script))
    assert len(statements) == 3
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")
    with pytest.raises(SchemaError):
        list(split_sql("CREATE TABLE t (x TEXT); SELECT 'unterminated"))


# ----------------------------------------------------------------------------------- users


async def test_user_upsert_keeps_the_language_override(storage: Storage) -> None:
    assert await storage.users.get(7) is None
    await storage.users.upsert(UserRecord(user_id=7, first_name="Ann", language_code="en"))
    await storage.users.set_language(7, "ru")
    await storage.users.upsert(
        UserRecord(
            user_id=7,
            first_name="Anna",
            username="anna",
            language_code="de",
            can_message=True,
            private_chat_id=7,
        )
    )
    assert await storage.users.get(7) == UserRecord(
        user_id=7,
        first_name="Anna",
        username="anna",
        language_code="de",
        language="ru",
        can_message=True,
        private_chat_id=7,
    )
    # a later update without a private chat id does not forget it; can_message is written
    await storage.users.upsert(UserRecord(user_id=7, first_name="Anna", can_message=False))
    user = await storage.users.get(7)
    assert user is not None
    assert (user.language, user.private_chat_id, user.can_message, user.username) == (
        "ru",
        7,
        False,
        None,
    )
    # an explicit language in the record does replace the override
    await storage.users.upsert(UserRecord(user_id=7, first_name="Anna", language="uk"))
    user = await storage.users.get(7)
    assert user is not None and user.language == "uk"


async def test_set_user_language_and_can_message(storage: Storage) -> None:
    await storage.users.upsert(UserRecord(user_id=8, first_name="Bo"))
    await storage.users.set_language(8, "de")
    await storage.users.set_can_message(8, True)
    assert await storage.users.get(8) == UserRecord(8, "Bo", language="de", can_message=True)
    await storage.users.set_language(8, None)
    await storage.users.set_can_message(8, False)
    assert await storage.users.get(8) == UserRecord(8, "Bo")
    await storage.users.set_can_message(9, True)  # unknown user: nothing happens
    assert await storage.users.get(9) is None


# ----------------------------------------------------------------------------------- chats


async def test_chat_settings_round_trip(storage: Storage) -> None:
    assert await storage.chats.get(-100) is None
    chat = ChatRecord(chat_id=-100, title="Козёл по пятницам")
    await storage.chats.upsert(chat)
    assert await storage.chats.get(-100) == chat

    chat.language = "ru"
    chat.turn_timeout = 0
    chat.settings = {
        "variant": "moscow",
        "ai": {"level": "strong", "fill": True},
        "banned": [1, 2],
        "note": "♠♥",
    }
    await storage.chats.upsert(chat)
    assert await storage.chats.get(-100) == chat


# ---------------------------------------------------------------------------------- tables


async def test_create_table_assigns_id_version_and_times(storage: Storage) -> None:
    table = new_table(users=(1, 2))
    created = await storage.tables.create(table)
    assert created is table
    assert table.id > 0 and table.version == 1
    assert table.created_at == table.updated_at > 0
    second = await storage.tables.create(new_table(chat_id=-200, users=(3,)))
    assert second.id != table.id
    with pytest.raises(ValueError):
        await storage.tables.create(table)  # already has an id


async def test_table_with_seats_and_match_state_round_trips_exactly(
    storage: Storage,
) -> None:
    table = await storage.tables.create(full_table())
    loaded = await storage.tables.get(table.id)
    assert loaded == table
    assert loaded is not table

    assert loaded is not None
    assert type(loaded.status) is TableStatus
    loaded.status = TableStatus.FINISHED
    loaded.finished_at = 1_700_000_999.75
    loaded.match_state = {"over": True, "defeat_points": [12, 4]}
    loaded.seats[0].selection = []
    loaded.seats[0].deadline = None
    loaded.seats[1].ai_level = "basic"
    loaded.seats.pop()  # seats are replaced as a whole
    loaded.table_message_id = None
    before = loaded.updated_at
    saved = await storage.tables.save(loaded, expected_version=1)
    assert saved is loaded and saved.version == 2 and saved.updated_at > before
    assert await storage.tables.get(table.id) == saved
    assert await storage.tables.get(table.id + 1000) is None


async def test_save_table_with_a_stale_version_raises_and_changes_nothing(
    storage: Storage,
) -> None:
    table = await storage.tables.create(full_table())
    await storage.tables.save(table, expected_version=1)  # now version 2
    stored = await storage.tables.get(table.id)

    edited = copy.deepcopy(table)
    edited.status = TableStatus.CANCELLED
    edited.seats = []
    with pytest.raises(StaleVersionError) as info:
        await storage.tables.save(
            edited, expected_version=1, log=[LogEntry(LogKind.ACTION, 3, 0, "0 lead K♠")]
        )
    assert (info.value.table_id, info.value.expected, info.value.actual) == (table.id, 1, 2)
    assert edited.version == 2 and edited.status == "cancelled"  # the caller's object untouched
    assert await storage.tables.get(table.id) == stored
    assert await storage.tables.log(table.id) == []


async def test_save_table_of_an_unknown_table(storage: Storage) -> None:
    ghost = new_table()
    ghost.id = 404
    with pytest.raises(TableNotFoundError):
        await storage.tables.save(ghost, expected_version=0)


async def test_concurrent_saves_with_the_same_version_exactly_one_wins(
    storage: Storage,
) -> None:
    table = await storage.tables.create(new_table(users=(1, 2)))
    copies = []
    for n in range(8):
        attempt = copy.deepcopy(table)
        attempt.seats[1].name = f"attempt {n}"
        copies.append(attempt)

    results = await asyncio.gather(
        *(
            storage.tables.save(
                c, expected_version=1, log=[LogEntry(LogKind.LOBBY, None, 1, f"rename {i}")]
            )
            for i, c in enumerate(copies)
        ),
        return_exceptions=True,
    )
    winners = [r for r in results if isinstance(r, TableRecord)]
    losers = [r for r in results if isinstance(r, StaleVersionError)]
    assert len(winners) == 1 and len(losers) == 7
    stored = await storage.tables.get(table.id)
    assert stored == winners[0] and stored.version == 2
    log = await storage.tables.log(table.id)
    assert [e.text for e in log] == [f"rename {copies.index(winners[0])}"]


async def test_active_table_queries(storage: Storage) -> None:
    lobby = await storage.tables.create(new_table(-1, users=(1, 2)))
    playing = await storage.tables.create(new_table(-2, status=TableStatus.PLAYING, users=(3,)))
    done = await storage.tables.create(new_table(-3, status=TableStatus.FINISHED, users=(4, 5)))
    gone = await storage.tables.create(new_table(-1, status=TableStatus.CANCELLED, users=(6,)))

    assert await storage.tables.active_for_chat(-1) == lobby
    assert await storage.tables.active_for_chat(-2) == playing
    assert await storage.tables.active_for_chat(-3) is None
    assert await storage.tables.active_for_chat(-4) is None

    assert await storage.tables.active_for_user(2) == lobby
    assert await storage.tables.active_for_user(3) == playing
    assert await storage.tables.active_for_user(4) is None  # only at a finished table
    assert await storage.tables.active_for_user(6) is None
    assert await storage.tables.active_for_user(99) is None

    assert await storage.tables.active() == [lobby, playing]

    playing.status = TableStatus.FINISHED
    await storage.tables.save(playing, expected_version=playing.version)
    assert await storage.tables.active() == [lobby]
    assert await storage.tables.active_for_user(3) is None
    assert (done.id, gone.id) != (0, 0)


async def test_a_chat_has_at_most_one_active_table(storage: Storage) -> None:
    first = await storage.tables.create(new_table(-1))
    with pytest.raises(ActiveTableExistsError):
        await storage.tables.create(new_table(-1, status=TableStatus.PLAYING))
    finished = await storage.tables.create(
        new_table(-1, status=TableStatus.FINISHED)
    )  # not active: fine
    finished.status = TableStatus.LOBBY
    with pytest.raises(ActiveTableExistsError):
        await storage.tables.save(finished, expected_version=1)
    assert finished.version == 1
    first.status = TableStatus.CANCELLED
    await storage.tables.save(first, expected_version=1)
    assert (await storage.tables.create(new_table(-1))).id > finished.id


async def test_each_forum_topic_of_a_chat_has_its_own_active_table(storage: Storage) -> None:
    general = await storage.tables.create(new_table(-1))
    topic = new_table(-1, users=(2,))
    topic.thread_id = 7
    in_topic = await storage.tables.create(topic)
    other = new_table(-1, status=TableStatus.PLAYING, users=(3,))
    other.thread_id = 9
    in_other = await storage.tables.create(other)
    assert (await storage.tables.get(in_topic.id)) == in_topic and in_topic.thread_id == 7

    assert await storage.tables.active_for_chat(-1) == general
    assert await storage.tables.active_for_chat(-1, 7) == in_topic
    assert await storage.tables.active_for_chat(-1, 9) == in_other
    assert await storage.tables.active_for_chat(-1, 8) is None
    assert await storage.tables.active_for_chat(-2, 7) is None
    assert await storage.tables.active_in_chat(-1) == [general, in_topic, in_other]
    assert await storage.tables.active_in_chat(-2) == []

    again = new_table(-1, users=(4,))
    again.thread_id = 7
    with pytest.raises(ActiveTableExistsError):
        await storage.tables.create(again)
    with pytest.raises(ActiveTableExistsError):
        await storage.tables.create(new_table(-1, users=(5,)))  # no topic: one table too
    in_topic.status = TableStatus.FINISHED
    await storage.tables.save(in_topic, expected_version=in_topic.version)
    assert (await storage.tables.create(again)).thread_id == 7
    # A save keeps the topic the table was opened in.
    assert (await storage.tables.get(in_topic.id)) == in_topic


async def test_schema_4_keeps_tables_and_their_uniqueness(db_path: str) -> None:
    """A database from before topics: its tables stay where they are, outside any topic."""
    async with aiosqlite.connect(db_path, isolation_level=None) as conn:
        assert await apply_migrations(conn, MIGRATIONS[:3]) == [1, 2, 3]
        await conn.execute(
            "INSERT INTO game_tables (chat_id, status, variant, creator_id, seed, version, "
            "created_at, updated_at) VALUES (-1, 'playing', 'street', 1, 1, 3, 0, 0)"
        )
        assert (await apply_migrations(conn))[0] == 4  # and any later ones
    store = await SqliteStorage.open(db_path)
    try:
        old = await store.tables.active_for_chat(-1)
        assert old is not None and old.thread_id is None and old.version == 3
        with pytest.raises(ActiveTableExistsError):
            await store.tables.create(new_table(-1))
        topic = new_table(-1)
        topic.thread_id = 5
        assert (await store.tables.create(topic)).id > old.id
    finally:
        await store.close()
    names = {row[0] for row in query(db_path, "SELECT name FROM sqlite_master")}
    assert "game_tables_one_active_per_chat" not in names


async def test_a_failed_save_writes_no_log_and_no_seats(storage: Storage) -> None:
    table = await storage.tables.create(new_table(users=(1, 2)))
    before = await storage.tables.get(table.id)
    table.seats.append(SeatRecord(seat=2, user_id=1, name="the same user again"))
    with pytest.raises(ConstraintError):
        await storage.tables.save(
            table,
            expected_version=1,
            log=[LogEntry(LogKind.LOBBY, None, 2, "join", by=Actor.PERSON)],
        )
    assert table.version == 1
    assert await storage.tables.get(table.id) == before
    assert await storage.tables.log(table.id) == []

    table.seats.pop()
    table.match_state = {"bad": {1, 2}}  # a set is not JSON
    with pytest.raises(StorageError):
        await storage.tables.save(
            table, expected_version=1, log=[LogEntry(LogKind.ACTION, None, None, "y")]
        )
    assert await storage.tables.get(table.id) == before
    assert await storage.tables.log(table.id) == []


async def test_log_is_written_with_the_table_and_read_back_in_order(
    storage: Storage, target: Target
) -> None:
    table = await storage.tables.create(new_table(users=(1, 2)))
    table.status = TableStatus.PLAYING
    await storage.tables.save(
        table,
        expected_version=1,
        log=[
            LogEntry(LogKind.LOBBY, None, None, "start", by=Actor.PERSON),
            LogEntry(LogKind.DEAL, 0, None, "deal 1", data={"dealer": 0, "trump": "♥"}),
        ],
    )
    await storage.tables.save(
        table,
        expected_version=2,
        log=[
            LogEntry(LogKind.ACTION, 1, 1, "1 lead K♠ 9♠", by=Actor.PERSON),
            LogEntry(LogKind.ACTION, 2, 0, "0 beat 10♠ A♠", by=Actor.TIMER),
            LogEntry(LogKind.UNREACHABLE, 2, 0, "seat 0 unreachable", by=Actor.SYSTEM),
        ],
    )
    other = await storage.tables.create(new_table(-9, users=(5,)))
    await storage.tables.save(
        other, expected_version=1, log=[LogEntry(LogKind.LOBBY, None, 0, "x")]
    )

    log = await storage.tables.log(table.id)
    assert [(e.kind, e.ply, e.seat, e.text, e.by) for e in log] == [
        ("lobby", None, None, "start", "human"),
        ("deal", 0, None, "deal 1", "system"),
        ("action", 1, 1, "1 lead K♠ 9♠", "human"),
        ("action", 2, 0, "0 beat 10♠ A♠", "timeout"),
        ("unreachable", 2, 0, "seat 0 unreachable", "system"),
    ]
    # read back as the enums, stored as their plain strings
    assert all(isinstance(e.kind, LogKind) and isinstance(e.by, Actor) for e in log)
    assert [tuple(r) for r in await target.query("SELECT kind, by FROM table_log ORDER BY id")][
        :3
    ] == [
        ("lobby", "human"),
        ("deal", "system"),
        ("action", "human"),
    ]
    assert log[1].data == {"dealer": 0, "trump": "♥"} and log[0].data is None
    assert all(e.table_id == table.id for e in log)
    assert [e.id for e in log] == sorted(e.id for e in log)
    assert log[0].at < log[2].at  # entries carry their save's timestamp
    assert [e.text for e in await storage.tables.log(table.id, kind=LogKind.ACTION)] == [
        "1 lead K♠ 9♠",
        "0 beat 10♠ A♠",
    ]
    assert await storage.tables.log(table.id, kind=LogKind.KICK) == []


# ----------------------------------------------------------------------------- migrate chat


async def test_migrate_chat_moves_the_chat_its_tables_and_matches(
    storage: Storage, target: Target
) -> None:
    await storage.chats.upsert(ChatRecord(-1, "group", language="ru", settings={"v": 1}))
    await storage.chats.upsert(ChatRecord(-100777, "supergroup"))  # raced in with defaults
    old = await storage.tables.create(new_table(-1, status=TableStatus.FINISHED))
    live = await storage.tables.create(new_table(-1, users=(1, 2)))
    await storage.ladder.record(match_record(old.id, chat_id=-1))
    elsewhere = await storage.tables.create(new_table(-2, users=(3,)))

    await storage.chats.migrate(-1, -100777)

    assert await storage.chats.get(-1) is None
    assert await storage.chats.get(-100777) == ChatRecord(-100777, "group", "ru", 60, {"v": 1})
    assert await storage.tables.active_for_chat(-1) is None
    moved = await storage.tables.active_for_chat(-100777)
    assert moved is not None and moved.id == live.id and moved.version == live.version
    old_now = await storage.tables.get(old.id)
    assert old_now is not None and old_now.chat_id == -100777
    assert [r["chat_id"] for r in await target.query("SELECT chat_id FROM matches")] == [-100777]
    assert (await storage.tables.get(elsewhere.id)) == elsewhere

    # a save from a copy loaded before the migration does not move the table back
    live.seats.pop()
    await storage.tables.save(live, expected_version=live.version)
    assert live.chat_id == -100777
    assert (await storage.tables.get(live.id)) == live


async def test_migrate_chat_without_a_chat_row_still_moves_tables(storage: Storage) -> None:
    table = await storage.tables.create(new_table(-5))
    await storage.chats.migrate(-5, -1005)
    moved = await storage.tables.get(table.id)
    assert moved is not None and moved.chat_id == -1005
    assert await storage.chats.get(-1005) is None
    await storage.chats.migrate(-1005, -1005)  # same id: nothing to do


async def test_migrate_chat_refuses_to_merge_two_active_tables(storage: Storage) -> None:
    a = await storage.tables.create(new_table(-1))
    b = await storage.tables.create(new_table(-100999, users=(2,)))
    await storage.chats.upsert(ChatRecord(-1, "g"))
    with pytest.raises(ActiveTableExistsError):
        await storage.chats.migrate(-1, -100999)
    assert await storage.tables.get(a.id) == a and await storage.tables.get(b.id) == b
    assert await storage.chats.get(-1) == ChatRecord(-1, "g")


async def test_migrate_chat_moves_tables_of_both_kinds_when_topics_differ(
    storage: SqliteStorage,
) -> None:
    """The supergroup became a forum meanwhile: a table in a topic there does not collide with
    the group's table (which had no topic)."""
    from_group = await storage.tables.create(new_table(-1))
    topic = new_table(-100555, users=(2,))
    topic.thread_id = 3
    in_topic = await storage.tables.create(topic)
    await storage.chats.migrate(-1, -100555)
    assert [t.id for t in await storage.tables.active_in_chat(-100555)] == [
        from_group.id,
        in_topic.id,
    ]
    moved = await storage.tables.active_for_chat(-100555)
    assert moved is not None and moved.id == from_group.id


# ---------------------------------------------------------------------------------- ladder


async def test_record_match_stores_the_match_and_its_players(
    storage: Storage, target: Target
) -> None:
    record = match_record(table_id=42)
    match_id = await storage.ladder.record(record)
    assert match_id > 0

    (row,) = await target.query("SELECT * FROM matches")
    assert (
        row["id"],
        row["table_id"],
        row["chat_id"],
        row["variant"],
        row["players"],
        row["deals"],
        row["goat_with_eggs"],
    ) == (match_id, 42, -100, "street", 4, 4, 0)
    assert row["finished_at"] == 1_700_000_900.5
    players = await target.query(
        "SELECT * FROM match_players WHERE match_id = ? ORDER BY seat", (match_id,)
    )
    assert [
        MatchPlayerRecord(
            seat=p["seat"],
            side=p["side"],
            user_id=p["user_id"],
            name=p["name"],
            ai_level=p["ai_level"],
            won=bool(p["won"]),
            goat=bool(p["goat"]),
            defeat_points=p["defeat_points"],
            deals_won=p["deals_won"],
            deals_lost=p["deals_lost"],
            eggs=p["eggs"],
            queens_caught=p["queens_caught"],
            tricks=p["tricks"],
            card_points=p["card_points"],
        )
        for p in players
    ] == record.players_list

    # the same table again (a retry after a crash) counts once
    assert await storage.ladder.record(match_record(table_id=42)) == match_id
    assert (await target.query("SELECT count(*) FROM match_players"))[0][0] == 4
    assert await storage.ladder.record(match_record(table_id=43)) != match_id

    # the ladder's indexes exist
    if target.is_postgres:
        sql = "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'"
    else:
        sql = "SELECT name FROM sqlite_master WHERE type='index'"
    indexes = {r[0] for r in await target.query(sql)}
    assert {"matches_chat_finished", "match_players_user"} <= indexes


async def test_finishing_a_table_and_recording_its_match_is_one_transaction(
    storage: Storage, target: Target
) -> None:
    table = await storage.tables.create(new_table(users=(11, 22)))
    stale = copy.deepcopy(table)
    table.status = TableStatus.FINISHED
    await storage.tables.save(
        table,
        expected_version=1,
        log=[LogEntry(LogKind.MATCH, None, None, "over")],
        match=match_record(table.id),
    )
    with pytest.raises(StaleVersionError):
        await storage.tables.save(stale, expected_version=1, match=match_record(table.id + 1))
    assert [r["table_id"] for r in await target.query("SELECT table_id FROM matches")] == [table.id]


# ------------------------------------------------------------------------------ durability


async def test_everything_survives_closing_and_reopening(target: Target) -> None:
    store = await target.open()
    await store.users.upsert(UserRecord(1, "Ann", "ann", "en", "ru", True, 1))
    await store.chats.upsert(ChatRecord(-100, "group", "de", 90, {"variant": "ziege"}))
    table = await store.tables.create(full_table())
    await store.tables.save(
        table, expected_version=1, log=[LogEntry(LogKind.ACTION, 1, 0, "0 lead 9♠")]
    )
    await store.ladder.record(match_record(table.id))
    await store.close()

    # committed data is in the file, readable by another connection, before and after reopening
    assert (await target.query("SELECT version FROM game_tables"))[0][0] == 2

    store = await target.open()
    try:
        assert await store.users.get(1) == UserRecord(1, "Ann", "ann", "en", "ru", True, 1)
        assert await store.chats.get(-100) == ChatRecord(
            -100, "group", "de", 90, {"variant": "ziege"}
        )
        assert await store.tables.get(table.id) == table
        assert await store.tables.active() == [table]
        assert [e.text for e in await store.tables.log(table.id)] == ["0 lead 9♠"]
    finally:
        await store.close()


async def test_a_commit_is_visible_to_another_connection_while_the_store_is_open(
    storage: Storage, target: Target
) -> None:
    table = await storage.tables.create(new_table())
    await storage.tables.save(table, expected_version=1)
    assert (await target.query("SELECT version FROM game_tables WHERE id = ?", (table.id,)))[0][
        0
    ] == 2


async def test_reads_never_see_a_half_done_write(storage: Storage) -> None:
    table = await storage.tables.create(new_table(users=(1, 2, 3, 4)))
    edited = copy.deepcopy(table)
    edited.seats = [
        SeatRecord(seat=i, user_id=None, name=f"c{i}", ai_level="basic") for i in range(4)
    ]
    # Read over and over while saves run: every read sees the table before or after a save,
    # never between deleting the old seats and inserting the new ones.
    reads = 0
    for _ in range(5):
        save = asyncio.create_task(storage.tables.save(edited, expected_version=edited.version))
        while not save.done():
            seen = await storage.tables.get(table.id)
            reads += 1
            assert seen is not None
            assert seen.seats in (table.seats, edited.seats)
        await save
    assert reads >= 5


async def test_a_cancelled_save_leaves_a_consistent_usable_store(storage: Storage) -> None:
    table = await storage.tables.create(new_table(users=(1, 2)))
    for steps in range(0, 40, 3):
        current = await storage.tables.get(table.id)
        assert current is not None
        attempt = copy.deepcopy(current)
        attempt.seats = [SeatRecord(seat=0, user_id=None, name=f"step {steps}", ai_level="basic")]
        save = asyncio.create_task(
            storage.tables.save(
                attempt,
                expected_version=current.version,
                log=[LogEntry(LogKind.ACTION, steps, 0, f"step {steps}")],
            )
        )
        for _ in range(steps):
            await asyncio.sleep(0)
        save.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await save
        stored = await storage.tables.get(table.id)
        assert stored is not None
        log = [e.text for e in await storage.tables.log(table.id)]
        if stored.version == current.version:  # rolled back: nothing of it is visible
            assert stored.seats == current.seats and f"step {steps}" not in log
        else:  # committed before the cancel landed: all of it is visible
            assert stored.version == current.version + 1
            assert stored.seats == attempt.seats and log[-1] == f"step {steps}"
    # the connection is not stuck inside a transaction
    await storage.users.upsert(UserRecord(1, "still works"))
    assert await storage.users.get(1) == UserRecord(1, "still works")


async def test_the_health_ping_answers_while_the_store_is_open(storage: Storage) -> None:
    assert await storage.ping() is True
    await storage.close()
    assert await storage.ping() is False  # /healthz then answers 503


async def test_users_and_chats_read_again_after_every_write_and_reads_are_copies(
    storage: Storage,
) -> None:
    await storage.users.upsert(UserRecord(user_id=7, first_name="Ann", language_code="en"))
    first = await storage.users.get(7)
    assert first is not None
    first.first_name = "changed by the caller"  # a caller's copy: the store keeps its own
    assert (await storage.users.get(7)) == UserRecord(
        user_id=7, first_name="Ann", language_code="en"
    )
    await storage.users.set_language(7, "de")
    await storage.users.set_can_message(7, True)
    user = await storage.users.get(7)
    assert user is not None and user.language == "de" and user.can_message
    await storage.chats.upsert(ChatRecord(chat_id=-5, title="Club", settings={"a": 1}))
    chat = await storage.chats.get(-5)
    assert chat is not None
    chat.settings["a"] = 2
    await storage.chats.upsert(ChatRecord(chat_id=-5, title="Club 2", settings={"a": 1}))
    again = await storage.chats.get(-5)
    assert again is not None and again.title == "Club 2" and again.settings == {"a": 1}
    await storage.chats.migrate(-5, -6)
    assert await storage.chats.get(-5) is None
    moved = await storage.chats.get(-6)
    assert moved is not None and moved.title == "Club 2"


async def test_a_read_does_not_wait_for_a_write_under_way(db_path: str) -> None:
    # A press's read (its table, its user) must not queue behind another press's commit:
    # reads see the last committed state, at once, while a write is open.
    db = await SqliteDatabase.open(db_path)
    store = SqliteStorage(db)
    try:
        await store.users.upsert(UserRecord(user_id=1, first_name="Ann"))

        async def name() -> str:
            async with db.read() as conn:
                row = await conn.fetchone("SELECT first_name FROM users WHERE user_id = 1")
            assert row is not None
            return str(row["first_name"])

        async with db.write() as conn:
            await conn.execute("UPDATE users SET first_name = 'Bea' WHERE user_id = 1")
            assert await asyncio.wait_for(name(), timeout=2.0) == "Ann"
        assert await name() == "Bea"
        with pytest.raises(sqlite3.OperationalError):  # the reading connection writes nothing
            async with db.read() as conn:
                await conn.execute("UPDATE users SET first_name = 'Cy' WHERE user_id = 1")
    finally:
        await store.close()
    assert query(db_path, "SELECT first_name FROM users")[0][0] == "Bea"


async def test_a_read_that_began_before_a_write_is_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite keeps a user read for minutes: one whose snapshot was taken before a concurrent
    write (a /language choice) finishes after it, and must not be what the cache keeps."""
    storage = await SqliteStorage.open(str(tmp_path / "kozel.sqlite3"))
    try:
        users = storage.users
        await users.upsert(UserRecord(user_id=7, first_name="Anna", language="en"))
        db = users._db  # what the repository reads through
        plain_read = db.read

        @contextlib.asynccontextmanager
        async def read_then_a_write_lands() -> AsyncIterator[object]:
            async with plain_read() as conn:
                yield conn
                # The snapshot is read; before the reader caches it, the write commits.
                monkeypatch.setattr(db, "read", plain_read)
                await users.set_language(7, "de")

        monkeypatch.setattr(db, "read", read_then_a_write_lands)
        stale = await users.get(7)
        assert stale is not None and stale.language == "en"  # read before the write
        fresh = await users.get(7)
        assert fresh is not None and fresh.language == "de"  # not the stale one, for minutes
    finally:
        await storage.close()
