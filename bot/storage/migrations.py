"""Schema versions, applied in order: SQLite's tracked with ``PRAGMA user_version``.

Each ``Migration`` takes the database from ``version - 1`` to ``version``: an SQL script, a
coroutine (for data migrations that need Python), or both (script first). Each one runs in its
own ``BEGIN IMMEDIATE`` transaction together with the ``user_version`` bump, so a migration is
applied completely or not at all, and re-reading ``user_version`` inside that transaction makes
applying idempotent even when two processes open the same file at once.

To change the schema, append a ``Migration`` with the next version number; never edit one that
has shipped, and keep to CONTRIBUTING.md (expand first: the release before runs on the new
schema during an upgrade). From version 11 on, ``schema_readers`` records with each version
the oldest release that may run on it: a worker of the release before, restarted in the middle
of an upgrade, starts on the newer schema instead of refusing it. Each one carries its
PostgreSQL twin too (``postgres``, the same change in PostgreSQL's types, kept in
``pg_schema``; ``pg_migrate`` applies those), so both backends run the same versions.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass

import aiosqlite

from bot.release import RELEASE
from bot.storage import pg_schema
from bot.storage.conn import Conn
from bot.storage.errors import SchemaError
from bot.storage.sqlite_conn import SqliteConn
from bot.storage.sqlite_schema import (
    SCHEMA_V1,
    SCHEMA_V2,
    SCHEMA_V3,
    SCHEMA_V4,
    SCHEMA_V5,
    SCHEMA_V6,
    SCHEMA_V7,
    SCHEMA_V8,
    SCHEMA_V9,
    SCHEMA_V10,
)
from bot.storage.sqlite_schema_v31 import (
    SCHEMA_V11,
    SCHEMA_V12,
    SCHEMA_V13,
    SCHEMA_V14,
    SCHEMA_V15,
)

log = logging.getLogger("bot.storage")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str = ""
    run: Callable[[Conn], Awaitable[None]] | None = None
    """Python for a data migration, after the script, on either backend."""
    postgres: str = ""
    """The same change for PostgreSQL (a script run as one, with ``$$``-quoted bodies as
    needed). Required wherever ``sql`` is set."""
    contracts: bool = False
    """It drops or changes what the release before this one reads (allowed a release after
    the change that made it unused): that release may no longer run on the schema after it."""


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "users, chats, tables with seats and log, matches for the ladder",
        SCHEMA_V1,
        postgres=pg_schema.V1,
    ),
    Migration(
        2,
        "per-chat ladders: seasons, standings, rating history",
        SCHEMA_V2,
        postgres=pg_schema.V2,
    ),
    Migration(
        3,
        "the outbox: what the bot owes Telegram; table notes; when a seat last acted",
        SCHEMA_V3,
        postgres=pg_schema.V3,
    ),
    Migration(
        4,
        "forum topics: a table's topic, one active table per topic",
        SCHEMA_V4,
        postgres=pg_schema.V4,
    ),
    Migration(
        5,
        "one active seat per person, by the database; removed players' seats",
        SCHEMA_V5,
        postgres=pg_schema.V5,
    ),
    Migration(6, "leases: one running bot per database", SCHEMA_V6, postgres=pg_schema.V6),
    Migration(
        7,
        "a removed player's seat says a computer finished it",
        SCHEMA_V7,
        postgres=pg_schema.V7,
    ),
    Migration(
        8,
        "timers: what each table waits for, claimed by one worker at a time",
        SCHEMA_V8,
        postgres=pg_schema.V8,
    ),
    Migration(
        9,
        "seats lose the turn notice's message (the hand carries the turn)",
        SCHEMA_V9,
        postgres=pg_schema.V9,
    ),
    Migration(
        10,
        "turn timers paused while Telegram is away; the updates taken lately",
        SCHEMA_V10,
        postgres=pg_schema.V10,
    ),
    Migration(
        11,
        "house rules: a table's and a stored match's options",
        SCHEMA_V11,
        postgres=pg_schema.V11,
    ),
    Migration(
        12,
        "a post's buttons; who asked to hear of a chat's next table",
        SCHEMA_V12,
        postgres=pg_schema.V12,
    ),
    Migration(
        13,
        "each worker says its release (a release waits for the previous one's last worker)",
        SCHEMA_V13,
        postgres=pg_schema.V13,
    ),
    Migration(
        14,
        "achievements: earned per chat and person, with the match that earned them; "
        "each seat's timeouts and deals played by a stand-in; partnerships' totals",
        SCHEMA_V14,
        postgres=pg_schema.V14,
    ),
    Migration(
        15,
        "a cup for four: cups, their players, the tables of their three matches",
        SCHEMA_V15,
        postgres=pg_schema.V15,
    ),
)


def latest_version(migrations: Sequence[Migration] = MIGRATIONS) -> int:
    return migrations[-1].version if migrations else 0


def split_sql(script: str) -> Iterator[str]:
    """Split an SQL script into complete statements (``;`` inside strings or trigger bodies does
    not end a statement). Comment-only or empty pieces are dropped."""
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if _has_code(pending):
                yield pending.strip()
            pending = ""
    if _has_code(pending.removesuffix(";")):
        raise SchemaError(f"incomplete SQL statement at the end of a migration: {pending!r}")


def _has_code(sql: str) -> bool:
    for line in sql.splitlines():
        code = line.split("--", 1)[0].strip()
        if code and code != ";":
            return True
    return False


async def user_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row is not None else 0


def check_sequence(migrations: Sequence[Migration]) -> None:
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise SchemaError(
                f"migration versions must run 1, 2, 3, ...: found {migration.version} "
                f"at position {expected}"
            )


def check_not_newer(current: int, migrations: Sequence[Migration]) -> None:
    newest = latest_version(migrations)
    if current > newest:
        raise SchemaError(
            f"database schema version {current} is newer than this code ({newest}); "
            "refusing to touch it"
        )


async def record_readers(conn: Conn, migration: Migration, release: int = RELEASE) -> None:
    """Inside the migration's transaction: the oldest release that may run on the schema
    after it. The release before this one (``release``) may, unless the migration
    ``contracts``; never one that could not run on the version before."""
    if not await _has_readers(conn):  # a version before the table (11) has no row
        return
    oldest = release if migration.contracts else release - 1
    row = await conn.fetchone(
        "SELECT oldest_release FROM schema_readers WHERE version = ?", (migration.version - 1,)
    )
    if row is not None:
        oldest = max(oldest, int(row[0]))
    await conn.execute(
        "INSERT INTO schema_readers (version, oldest_release) VALUES (?, ?)",
        (migration.version, oldest),
    )


async def _has_readers(conn: Conn) -> bool:
    """Whether ``schema_readers`` exists (a version set by hand, or a broken file, has none)."""
    if conn.dialect.name == "postgresql":
        row = await conn.fetchone("SELECT to_regclass('schema_readers') IS NOT NULL", ())
    else:
        row = await conn.fetchone(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_readers'"
        )
    return row is not None and bool(row[0])


async def may_run_on(
    conn: Conn, current: int, migrations: Sequence[Migration], release: int = RELEASE
) -> bool:
    """Whether this code may run on schema version ``current``: not newer than its own, or
    newer but readable by ``release`` (``schema_readers``). Raises ``SchemaError`` if not."""
    newest = latest_version(migrations)
    if current <= newest:
        return True
    row = None
    if await _has_readers(conn):
        row = await conn.fetchone(
            "SELECT oldest_release FROM schema_readers WHERE version = ?", (current,)
        )
    if row is None or release < int(row[0]):
        check_not_newer(current, migrations)  # raises
    log.warning(
        "database schema version %d is newer than this code (%d), and release %d may run on "
        "it: running without migrating (an upgrade under way: finish it)",
        current,
        newest,
        release,
    )
    return True


async def apply_migrations(
    conn: aiosqlite.Connection,
    migrations: Sequence[Migration] = MIGRATIONS,
    release: int = RELEASE,
) -> list[int]:
    """Bring the database up to the last migration; returns the versions applied (often none).
    A newer schema is left as it is if ``release`` may run on it (``may_run_on``).

    ``conn`` must be in autocommit mode (``isolation_level=None``): each migration manages its
    own transaction.
    """
    check_sequence(migrations)
    current = await user_version(conn)
    if current > latest_version(migrations):
        await may_run_on(SqliteConn(conn), current, migrations, release)
        return []
    applied: list[int] = []
    for migration in migrations:
        if migration.version <= current:
            continue
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated between our read and our lock.
            current = await user_version(conn)
            if migration.version <= current:
                await conn.rollback()
                continue
            if migration.version != current + 1:
                raise SchemaError(
                    f"cannot apply migration {migration.version} to schema version {current}"
                )
            for statement in split_sql(migration.sql):
                await conn.execute(statement)
            if migration.run is not None:
                await migration.run(SqliteConn(conn))
            await record_readers(SqliteConn(conn), migration, release)
            # PRAGMA does not take parameters; the value is an int from our own table.
            await conn.execute(f"PRAGMA user_version = {int(migration.version)}")
            await conn.commit()
        except BaseException:
            await conn.rollback()
            raise
        current = migration.version
        applied.append(migration.version)
    return applied
