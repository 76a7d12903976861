"""Applying the schema versions of ``migrations`` to PostgreSQL (their ``postgres`` twins).

The applied versions are rows of ``schema_version``. Each migration runs in its own transaction
with the row that records it, after taking a transaction-scoped advisory lock: two processes
starting at once take turns, and the second finds the work done. PostgreSQL's DDL is
transactional, so a failing migration leaves no trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.release import RELEASE
from bot.storage.errors import SchemaError
from bot.storage.migrations import (
    MIGRATIONS,
    Migration,
    check_sequence,
    latest_version,
    may_run_on,
    record_readers,
)
from bot.storage.pg_conn import PgConn

if TYPE_CHECKING:
    from bot.storage.pg_conn import Connection

LOCK_KEY = 0x6B6F7A656C  # "kozel": one advisory lock key for the schema, in any database
_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)
"""


async def schema_version(conn: Connection) -> int:
    """The newest version applied (0: none, or no version table yet)."""
    exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not exists:
        return 0
    value = await conn.fetchval("SELECT max(version) FROM schema_version")
    return 0 if value is None else int(value)


async def apply_pg_migrations(
    conn: Connection, migrations: Sequence[Migration] = MIGRATIONS, release: int = RELEASE
) -> list[int]:
    """Bring the database up to the last migration; returns the versions applied (often none).
    A newer schema is left as it is if ``release`` may run on it (``may_run_on``)."""
    check_sequence(migrations)
    for migration in migrations:
        if migration.sql and not migration.postgres:
            raise SchemaError(f"migration {migration.version} has no PostgreSQL script")
    current = await schema_version(conn)
    if current > latest_version(migrations):
        await may_run_on(PgConn(conn), current, migrations, release)
        return []
    applied: list[int] = []
    for migration in migrations:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", LOCK_KEY)
            await conn.execute(_VERSION_TABLE)
            current = await schema_version(conn)
            if current > latest_version(migrations):  # a newer release migrated meanwhile
                await may_run_on(PgConn(conn), current, migrations, release)
                break
            if migration.version <= current:
                continue
            if migration.version != current + 1:
                raise SchemaError(
                    f"cannot apply migration {migration.version} to schema version {current}"
                )
            if migration.postgres:
                await conn.execute(migration.postgres)  # no arguments: the whole script at once
            if migration.run is not None:
                await migration.run(PgConn(conn))
            await record_readers(PgConn(conn), migration, release)
            await conn.execute(
                "INSERT INTO schema_version (version, name) VALUES ($1, $2)",
                migration.version,
                migration.name,
            )
        applied.append(migration.version)
    return applied
