"""What only the PostgreSQL backend has: its migration runner (versions in ``schema_version``,
an advisory lock for processes starting at once), its twin of every migration, and its
selection from the configuration. The shared behaviour is tested on both in test_storage.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest
from pgcluster import PgCluster

from bot.config import Config, ConfigError
from bot.storage import (
    PostgresStorage,
    SchemaError,
    SqliteStorage,
    TableRecord,
    TableStatus,
    UserRecord,
    open_storage,
)
from bot.storage.migrations import MIGRATIONS, Migration, latest_version
from bot.storage.pg_conn import numbered
from bot.storage.pg_migrate import apply_pg_migrations, schema_version


@pytest.fixture
async def empty_url(pg_cluster: PgCluster) -> AsyncIterator[str]:
    url = await pg_cluster.create_database(empty=True)
    yield url
    await pg_cluster.drop_database(url)


async def fetch(url: str, sql: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(url)
    try:
        return list(await conn.fetch(sql))
    finally:
        await conn.close()


def test_every_migration_has_a_postgresql_twin() -> None:
    for migration in MIGRATIONS:
        assert migration.postgres.strip(), f"migration {migration.version} has no twin"


def test_marks_become_numbered_outside_quotes() -> None:
    assert numbered("a = ? AND b IN (?, ?) AND c = '?' AND \"d?\" = ?") == (
        "a = $1 AND b IN ($2, $3) AND c = '?' AND \"d?\" = $4"
    )


async def test_two_processes_starting_at_once_migrate_once(empty_url: str) -> None:
    stores = await asyncio.gather(*(PostgresStorage.open(empty_url) for _ in range(4)))
    for store in stores:
        await store.close()
    rows = await fetch(empty_url, "SELECT version, name FROM schema_version ORDER BY version")
    assert [(r["version"], r["name"]) for r in rows] == [(m.version, m.name) for m in MIGRATIONS]
    tables = {r[0] for r in await fetch(empty_url, "SELECT tablename FROM pg_tables")}
    assert {"users", "chats", "game_tables", "seats", "outbox", "ladder_standings"} <= tables


async def test_reopening_applies_nothing(empty_url: str) -> None:
    conn = await asyncpg.connect(empty_url)
    try:
        assert await apply_pg_migrations(conn) == [m.version for m in MIGRATIONS]
        assert await apply_pg_migrations(conn) == []
        assert await schema_version(conn) == latest_version()
    finally:
        await conn.close()


async def test_a_failing_migration_leaves_no_trace(empty_url: str) -> None:
    bad = (
        *MIGRATIONS,
        Migration(len(MIGRATIONS) + 1, "broken", "-", postgres="CREATE TABLE t (x INT); oops"),
    )
    conn = await asyncpg.connect(empty_url)
    try:
        with pytest.raises(asyncpg.PostgresSyntaxError):
            await apply_pg_migrations(conn, bad)
        assert await schema_version(conn) == latest_version()
        assert await conn.fetchval("SELECT to_regclass('t')") is None
    finally:
        await conn.close()


async def test_a_migration_without_a_twin_is_refused(empty_url: str) -> None:
    lonely = (*MIGRATIONS, Migration(len(MIGRATIONS) + 1, "sqlite only", "CREATE TABLE t (x);"))
    conn = await asyncpg.connect(empty_url)
    try:
        with pytest.raises(SchemaError, match="no PostgreSQL script"):
            await apply_pg_migrations(conn, lonely)
        assert await schema_version(conn) == 0  # refused before touching anything
    finally:
        await conn.close()


async def test_version_9_drops_the_turn_notice_column_and_keeps_the_seats(
    empty_url: str,
) -> None:
    conn = await asyncpg.connect(empty_url)
    try:
        await apply_pg_migrations(conn, MIGRATIONS[:8])  # before the column went (9)
        await conn.execute(
            "INSERT INTO game_tables (id, chat_id, status, variant, creator_id, seed, version, "
            "created_at, updated_at) VALUES (1, -1, 'playing', 'street', 9, 1, 1, 0, 0)"
        )
        await conn.execute(
            "INSERT INTO seats (table_id, seat, user_id, name, hand_message_id, "
            "notice_message_id, active) VALUES (1, 0, 9, 'Nine', 55, 77, 1)"
        )
    finally:
        await conn.close()
    store = await PostgresStorage.open(empty_url)
    try:
        table = await store.tables.get(1)
        assert table is not None and table.seats[0].hand_message_id == 55
        assert table.seats[0].user_id == 9 and table.seats[0].name == "Nine"
    finally:
        await store.close()
    rows = await fetch(
        empty_url, "SELECT column_name FROM information_schema.columns WHERE table_name = 'seats'"
    )
    columns = {row["column_name"] for row in rows}
    assert "notice_message_id" not in columns and "hand_message_id" in columns


async def test_a_database_newer_than_the_code_is_refused(pg_url: str) -> None:
    conn = await asyncpg.connect(pg_url)
    try:
        await conn.execute(
            "INSERT INTO schema_version (version, name) VALUES ($1, 'from the future')",
            latest_version() + 1,
        )
    finally:
        await conn.close()
    with pytest.raises(SchemaError, match="newer"):
        await PostgresStorage.open(pg_url)


async def test_the_url_selects_postgresql_and_a_path_sqlite(pg_url: str, tmp_path: str) -> None:
    env = {"KOZEL_BOT_TOKEN": "1:x", "KOZEL_DB": f"{tmp_path}/k.sqlite3"}
    assert Config.from_env(env).storage == f"{tmp_path}/k.sqlite3"
    config = Config.from_env({**env, "KOZEL_DATABASE_URL": pg_url})
    assert config.storage == pg_url
    with pytest.raises(ConfigError, match="postgresql://"):
        Config.from_env({**env, "KOZEL_DATABASE_URL": "mysql://x@y/z"})

    store = await open_storage(config.storage)
    try:
        assert isinstance(store, PostgresStorage)
        await store.users.upsert(UserRecord(1, "Ann"))
    finally:
        await store.close()
    assert [r["first_name"] for r in await fetch(pg_url, "SELECT first_name FROM users")] == ["Ann"]
    sqlite = await open_storage(Config.from_env(env).storage)
    assert isinstance(sqlite, SqliteStorage)
    await sqlite.close()


async def test_parallel_writers_rate_a_match_once(pg_url: str) -> None:
    """PostgreSQL runs writers side by side: two catch-ups of one chat's ladder must not
    count a match twice (the matches they rate are locked)."""
    from ladder_fixtures import teams

    from bot.service.rating import rate

    stores = [await PostgresStorage.open(pg_url) for _ in range(3)]
    try:
        for n in range(1, 13):
            await stores[0].ladder.record(teams(n, -100, [1, 2], [3, 4]))
        done = await asyncio.gather(*(s.ladder.update(rate, -100) for s in stores))
        assert sum(done) == 12
        line = await stores[0].ladder.standing(-100, 1, "*", "u1")
        assert line is not None and line[1].tally.matches == 12
        # and a table can be opened once per chat, whoever races
        tables = [TableRecord(0, -100, TableStatus.LOBBY, "street", 1, 1, seats=[]) for _ in stores]
        made = await asyncio.gather(
            *(s.tables.create(t) for s, t in zip(stores, tables, strict=True)),
            return_exceptions=True,
        )
        assert sum(isinstance(m, TableRecord) for m in made) == 1
    finally:
        for store in stores:
            await store.close()
