"""House rules in storage: a table's and a stored match's options, on both backends, and the
migration that adds them reading older tables and matches as the rules without options."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import asyncpg
import pytest
from pgcluster import PgCluster
from storage_targets import Target
from test_storage import match_record, new_table

from bot.storage import PostgresStorage, SqliteStorage, Storage, TableStatus
from bot.storage.migrations import MIGRATIONS, apply_migrations
from bot.storage.pg_migrate import apply_pg_migrations

BEFORE = 10  # today's schema: the last version without options

_OLD_TABLE = (
    "INSERT INTO game_tables (id, chat_id, status, variant, creator_id, seed, version, "
    "created_at, updated_at) VALUES (1, -7, 'playing', 'moscow', 9, 1, 1, 0, 0)"
)
_OLD_MATCH = (
    "INSERT INTO matches (id, table_id, chat_id, variant, players, started_at, finished_at, "
    "deals, goat_with_eggs, result) VALUES (1, 99, -7, 'street', 2, 0, 1, 3, 0, '{}')"
)


@pytest.fixture
async def storage(target: Target) -> AsyncIterator[Storage]:
    store = await target.open()
    yield store
    await store.close()


async def test_a_table_keeps_its_options_through_create_and_save(storage: Storage) -> None:
    table = new_table(users=(1, 2))
    table.options = {"goat_at": 6, "eggs": "double"}
    created = await storage.tables.create(table)
    loaded = await storage.tables.get(created.id)
    assert loaded is not None and loaded.options == {"goat_at": 6, "eggs": "double"}
    loaded.options = {"goat_at": 8}
    await storage.tables.save(loaded, expected_version=loaded.version)
    again = await storage.tables.get(created.id)
    assert again is not None and again.options == {"goat_at": 8}


async def test_a_table_without_options_reads_as_none_changed(storage: Storage) -> None:
    created = await storage.tables.create(new_table(users=(3,)))
    loaded = await storage.tables.get(created.id)
    assert loaded is not None and loaded.options == {}


async def test_a_stored_match_keeps_its_options(storage: Storage) -> None:
    table = await storage.tables.create(new_table(users=(11, 22), status=TableStatus.PLAYING))
    record = match_record(table.id)
    record.options = {"goat_at": 6}
    await storage.ladder.record(record)
    plain = match_record(table.id + 1000)
    await storage.ladder.record(plain)
    stored = await storage.ladder.history(chat_id=-100, season=1)
    by_table = {m.record.table_id: m.record.options for m in stored}
    assert by_table == {table.id: {"goat_at": 6}, table.id + 1000: {}}


async def _check_old_rows(store: Storage) -> None:
    table = await store.tables.get(1)
    assert table is not None and table.options == {} and table.variant == "moscow"
    (old,) = await store.ladder.history(chat_id=-7, season=1)
    assert old.record.options == {} and old.record.deals == 3
    # The migrated table still saves, now with options.
    table.options = {"eggs": "double"}
    await store.tables.save(table, expected_version=table.version)
    saved = await store.tables.get(1)
    assert saved is not None and saved.options == {"eggs": "double"}


async def test_sqlite_migration_reads_old_tables_and_matches_as_defaults(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert (await apply_migrations(conn, MIGRATIONS[:BEFORE]))[-1] == BEFORE
        await conn.execute(_OLD_TABLE)
        await conn.execute(_OLD_MATCH)
    store = await SqliteStorage.open(path)
    try:
        await _check_old_rows(store)
    finally:
        await store.close()


@pytest.fixture
async def empty_url(pg_cluster: PgCluster) -> AsyncIterator[str]:
    url = await pg_cluster.create_database(empty=True)
    yield url
    await pg_cluster.drop_database(url)


async def test_postgres_migration_reads_old_tables_and_matches_as_defaults(
    empty_url: str,
) -> None:
    conn = await asyncpg.connect(empty_url)
    try:
        await apply_pg_migrations(conn, MIGRATIONS[:BEFORE])
        await conn.execute(_OLD_TABLE)
        await conn.execute(_OLD_MATCH)
    finally:
        await conn.close()
    store = await PostgresStorage.open(empty_url)
    try:
        await _check_old_rows(store)
    finally:
        await store.close()
