"""Schema versions, applied in order: SQLite's tracked with ``PRAGMA user_version``.

Each ``Migration`` takes the database from ``version - 1`` to ``version``: an SQL script, a
coroutine (for data migrations that need Python), or both (script first). Each one runs in its
own ``BEGIN IMMEDIATE`` transaction together with the ``user_version`` bump, so a migration is
applied completely or not at all, and re-reading ``user_version`` inside that transaction makes
applying idempotent even when two processes open the same file at once.

To change the schema, append a ``Migration`` with the next version number; never edit one that
has shipped. Each one carries its PostgreSQL twin too (``postgres``, the same change in
PostgreSQL's types, kept in ``pg_schema``; ``pg_migrate`` applies those), so both backends run
the same versions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass

import aiosqlite

from bot.storage import pg_schema
from bot.storage.conn import Conn
from bot.storage.errors import SchemaError
from bot.storage.sqlite_conn import SqliteConn


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


# Table names: ``game_tables`` rather than ``tables`` (a card table, not an SQL one).
# Booleans are INTEGER 0/1; times are REAL epoch seconds; *_json-like columns hold JSON text.
SCHEMA_V1 = """
CREATE TABLE users (
    user_id         INTEGER PRIMARY KEY,
    first_name      TEXT    NOT NULL,
    username        TEXT,
    language_code   TEXT,
    language        TEXT,
    can_message     INTEGER NOT NULL DEFAULT 0 CHECK (can_message IN (0, 1)),
    private_chat_id INTEGER,
    created_at      REAL    NOT NULL,
    updated_at      REAL    NOT NULL
);

CREATE TABLE chats (
    chat_id      INTEGER PRIMARY KEY,
    title        TEXT    NOT NULL DEFAULT '',
    language     TEXT,
    turn_timeout INTEGER NOT NULL DEFAULT 60 CHECK (turn_timeout >= 0),
    settings     TEXT    NOT NULL DEFAULT '{}',
    created_at   REAL    NOT NULL,
    updated_at   REAL    NOT NULL
);

CREATE TABLE game_tables (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id          INTEGER NOT NULL,
    status           TEXT    NOT NULL
                     CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
    variant          TEXT    NOT NULL,
    creator_id       INTEGER NOT NULL,
    seed             INTEGER NOT NULL,
    version          INTEGER NOT NULL CHECK (version >= 1),
    match_state      TEXT,
    table_message_id INTEGER,
    lobby_message_id INTEGER,
    created_at       REAL    NOT NULL,
    updated_at       REAL    NOT NULL,
    finished_at      REAL
);
-- At most one active table per chat, enforced by the database.
CREATE UNIQUE INDEX game_tables_one_active_per_chat
    ON game_tables (chat_id) WHERE status IN ('lobby', 'playing');
CREATE INDEX game_tables_chat ON game_tables (chat_id, id);
CREATE INDEX game_tables_active ON game_tables (status) WHERE status IN ('lobby', 'playing');

CREATE TABLE seats (
    table_id          INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    seat              INTEGER NOT NULL CHECK (seat >= 0),
    user_id           INTEGER,
    name              TEXT    NOT NULL,
    ai_level          TEXT,
    hand_message_id   INTEGER,
    notice_message_id INTEGER,
    timeouts          INTEGER NOT NULL DEFAULT 0,
    away              INTEGER NOT NULL DEFAULT 0 CHECK (away IN (0, 1)),
    deadline          REAL,
    selection         TEXT    NOT NULL DEFAULT '[]',
    PRIMARY KEY (table_id, seat),
    UNIQUE (table_id, user_id)
) WITHOUT ROWID;
CREATE INDEX seats_user ON seats (user_id) WHERE user_id IS NOT NULL;

CREATE TABLE table_log (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    at       REAL    NOT NULL,
    kind     TEXT    NOT NULL,
    ply      INTEGER,
    seat     INTEGER,
    text     TEXT    NOT NULL,
    data     TEXT,
    by       TEXT    NOT NULL
);
CREATE INDEX table_log_table ON table_log (table_id, id);

-- Finished matches for the ladder. No foreign key to game_tables: ladder history outlives
-- any pruning of old tables. One match per table (a retried record_match cannot count twice).
CREATE TABLE matches (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id       INTEGER NOT NULL UNIQUE,
    chat_id        INTEGER NOT NULL,
    variant        TEXT    NOT NULL,
    players        INTEGER NOT NULL,
    started_at     REAL    NOT NULL,
    finished_at    REAL    NOT NULL,
    deals          INTEGER NOT NULL,
    goat_with_eggs INTEGER NOT NULL CHECK (goat_with_eggs IN (0, 1)),
    result         TEXT    NOT NULL
);
CREATE INDEX matches_chat_finished ON matches (chat_id, finished_at);

CREATE TABLE match_players (
    match_id      INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat          INTEGER NOT NULL,
    side          INTEGER NOT NULL,
    user_id       INTEGER,
    name          TEXT    NOT NULL,
    ai_level      TEXT,
    won           INTEGER NOT NULL CHECK (won IN (0, 1)),
    goat          INTEGER NOT NULL CHECK (goat IN (0, 1)),
    defeat_points INTEGER NOT NULL,
    deals_won     INTEGER NOT NULL,
    deals_lost    INTEGER NOT NULL,
    eggs          INTEGER NOT NULL,
    queens_caught INTEGER NOT NULL,
    tricks        INTEGER NOT NULL,
    card_points   INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;
CREATE INDEX match_players_user ON match_players (user_id);
"""

# Per-chat ladders: seasons, standings (one line per chat, season, scope and player, kept up to
# date as matches are rated, so /top is one indexed range scan) and every rating change.
# A scope (column ``variant``) is a variant name or '*' for all variants together. A player is
# 'u<user id>' for a person or 'ai:<level>' for a computer level (records.player_key).
# Matches recorded before this version land in season 1 with in_ladder = 0: the service rates
# every such match, in id order, the next time it touches the chat's ladder (storage.ladder.update).
SCHEMA_V2 = """
ALTER TABLE matches ADD COLUMN season INTEGER NOT NULL DEFAULT 1 CHECK (season >= 1);
ALTER TABLE matches ADD COLUMN in_ladder INTEGER NOT NULL DEFAULT 0 CHECK (in_ladder IN (0, 1));
CREATE INDEX matches_chat_season ON matches (chat_id, season, id);
CREATE INDEX matches_chat_season_variant ON matches (chat_id, season, variant, id);
CREATE INDEX matches_not_in_ladder ON matches (chat_id, id) WHERE in_ladder = 0;

CREATE INDEX users_username ON users (username COLLATE NOCASE) WHERE username IS NOT NULL;

-- A chat has no row here until its first reset: season 1 is implicit.
CREATE TABLE ladder_seasons (
    chat_id    INTEGER NOT NULL,
    season     INTEGER NOT NULL CHECK (season >= 1),
    started_at REAL    NOT NULL,
    started_by INTEGER,
    PRIMARY KEY (chat_id, season)
) WITHOUT ROWID;

CREATE TABLE ladder_standings (
    chat_id             INTEGER NOT NULL,
    season              INTEGER NOT NULL,
    variant             TEXT    NOT NULL,
    player              TEXT    NOT NULL,
    user_id             INTEGER,
    ai_level            TEXT,
    name                TEXT    NOT NULL,
    matches             INTEGER NOT NULL,
    wins                INTEGER NOT NULL,
    goats               INTEGER NOT NULL,
    deals_won           INTEGER NOT NULL,
    deals_lost          INTEGER NOT NULL,
    defeat_points_taken INTEGER NOT NULL,
    defeat_points_given INTEGER NOT NULL,
    eggs                INTEGER NOT NULL,
    queens_caught       INTEGER NOT NULL,
    tricks              INTEGER NOT NULL,
    card_points         INTEGER NOT NULL,
    mu                  REAL    NOT NULL,
    sigma               REAL    NOT NULL,
    rating              REAL    NOT NULL,
    last_match_id       INTEGER NOT NULL,
    last_played_at      REAL    NOT NULL,
    PRIMARY KEY (chat_id, player, season, variant)
) WITHOUT ROWID;
CREATE INDEX ladder_standings_top
    ON ladder_standings (chat_id, season, variant, rating DESC, matches DESC, player);
CREATE INDEX ladder_standings_player ON ladder_standings (player, variant);

CREATE TABLE rating_changes (
    match_id      INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat          INTEGER NOT NULL,
    variant       TEXT    NOT NULL,
    chat_id       INTEGER NOT NULL,
    season        INTEGER NOT NULL,
    player        TEXT    NOT NULL,
    rank          INTEGER NOT NULL CHECK (rank >= 1),
    mu_before     REAL    NOT NULL,
    sigma_before  REAL    NOT NULL,
    rating_before REAL    NOT NULL,
    mu_after      REAL    NOT NULL,
    sigma_after   REAL    NOT NULL,
    rating_after  REAL    NOT NULL,
    PRIMARY KEY (match_id, seat, variant)
) WITHOUT ROWID;
CREATE INDEX rating_changes_player ON rating_changes (chat_id, player, variant, season, match_id);
"""

# What the bot owes Telegram is written in the transaction of the change that owes it, and a
# sender delivers it. Marks (table, hand, lobby) say "render this message again": one row per
# message, merged by the unique index (seat is -1 for table and lobby). Posts and deletions are
# rows of their own, delivered once, in id order per chat. ``renew`` is the version at which a
# new message was asked for instead of an edit (0: none).
SCHEMA_V3 = """
ALTER TABLE game_tables ADD COLUMN note TEXT;
ALTER TABLE seats ADD COLUMN active_at REAL;

CREATE TABLE outbox (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT    NOT NULL CHECK (kind IN ('table', 'hand', 'lobby', 'post', 'delete')),
    chat_id    INTEGER NOT NULL,
    table_id   INTEGER,
    seat       INTEGER NOT NULL DEFAULT -1,
    priority   INTEGER NOT NULL,
    renew      INTEGER NOT NULL DEFAULT 0,
    text       TEXT,
    message_id INTEGER,
    notify     INTEGER NOT NULL DEFAULT 0,
    not_before REAL    NOT NULL DEFAULT 0,
    attempts   INTEGER NOT NULL DEFAULT 0,
    version    INTEGER NOT NULL DEFAULT 1,
    created_at REAL    NOT NULL
);
CREATE UNIQUE INDEX outbox_marks ON outbox (kind, table_id, seat)
    WHERE kind IN ('table', 'hand', 'lobby');
CREATE INDEX outbox_due ON outbox (not_before, priority, id);
CREATE INDEX outbox_table ON outbox (table_id) WHERE table_id IS NOT NULL;
"""

# Forum topics: a table lives in one topic of its chat (``thread_id``, the topic's message thread;
# NULL: no topic, or a forum's General topic), and each topic may hold an active table of its
# own. SQLite cannot change an index: the one-per-chat index goes and a per-topic one replaces it
# (NULLs never collide in a unique index, hence ``coalesce``: thread ids are positive).
SCHEMA_V4 = """
ALTER TABLE game_tables ADD COLUMN thread_id INTEGER CHECK (thread_id IS NULL OR thread_id > 0);
DROP INDEX game_tables_one_active_per_chat;
CREATE UNIQUE INDEX game_tables_one_active_per_topic
    ON game_tables (chat_id, coalesce(thread_id, 0)) WHERE status IN ('lobby', 'playing');
"""

# One seat per person, kept by the database even when two joins race in two chats: a seat row
# copies whether its table is active (written with the seats; the trigger covers any other
# status change) and a unique index admits one active seat per person. ``left_user_id`` keeps
# the person a computer plays for after a /kick in a running match: the seat stays theirs for
# the ladder and for this rule. Persons seated at two active tables before this version keep
# the newest seat; their older ones go to a computer player.
SCHEMA_V5 = """
ALTER TABLE seats ADD COLUMN left_user_id INTEGER;
ALTER TABLE seats ADD COLUMN active INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1));
UPDATE seats SET active = 1
 WHERE table_id IN (SELECT id FROM game_tables WHERE status IN ('lobby', 'playing'));
UPDATE seats SET user_id = NULL, ai_level = 'strong', away = 0, deadline = NULL
 WHERE active = 1 AND user_id IS NOT NULL
   AND EXISTS (SELECT 1 FROM seats AS newer
                WHERE newer.active = 1 AND newer.user_id = seats.user_id
                  AND newer.table_id > seats.table_id);
CREATE UNIQUE INDEX seats_one_active_seat ON seats (coalesce(user_id, left_user_id))
    WHERE active = 1;
CREATE TRIGGER seats_follow_table_status AFTER UPDATE OF status ON game_tables
BEGIN
    UPDATE seats SET active = (NEW.status IN ('lobby', 'playing')) WHERE table_id = NEW.id;
END;
"""

# One running bot per database: the process that runs holds a lease and renews it; another one
# waits until it is released (a clean stop) or has expired (a crash).
SCHEMA_V6 = """
CREATE TABLE leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at REAL NOT NULL
) WITHOUT ROWID;
"""

# A person removed from a running match leaves their seat to a computer player: the seat keeps
# their name and says who finished it.
SCHEMA_V7 = """
ALTER TABLE seats ADD COLUMN replaced INTEGER NOT NULL DEFAULT 0;
"""

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


async def apply_migrations(
    conn: aiosqlite.Connection, migrations: Sequence[Migration] = MIGRATIONS
) -> list[int]:
    """Bring the database up to the last migration; returns the versions applied (often none).

    ``conn`` must be in autocommit mode (``isolation_level=None``): each migration manages its
    own transaction.
    """
    check_sequence(migrations)
    current = await user_version(conn)
    check_not_newer(current, migrations)
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
            # PRAGMA does not take parameters; the value is an int from our own table.
            await conn.execute(f"PRAGMA user_version = {int(migration.version)}")
            await conn.commit()
        except BaseException:
            await conn.rollback()
            raise
        current = migration.version
        applied.append(migration.version)
    return applied
