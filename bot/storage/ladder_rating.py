"""The ladder's writes: recording matches, rating them into the standings, moving a chat.

Each function takes a connection inside a write transaction the caller opened. The rating
model itself is not here: the service hands in a ``Rater``, and this module feeds it the stored
ratings and writes back what it answers, in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.storage.conn import Conn
from bot.storage.errors import StorageError
from bot.storage.ladder_queries import players_of
from bot.storage.ladder_rows import (
    CHANGE_COLUMNS,
    MATCH_COLUMNS,
    MATCH_FIELDS,
    PLAYER_COLUMNS,
    STANDING_COLUMNS,
    TALLY_COLUMNS,
    change_values,
    match_from_row,
    match_values,
    player_rows,
    rating_from_row,
    rating_values,
    tally_values,
)
from bot.storage.records import ALL_VARIANTS, MatchRecord, Rater, Rating, Tally, player_key
from bot.storage.rows import insert_sql, marks, marks_for

_INSERT_MATCH = f"""
    INSERT INTO matches ({MATCH_FIELDS}, season)
    VALUES ({marks_for(MATCH_FIELDS)},
            (SELECT COALESCE(MAX(season), 1) FROM ladder_seasons WHERE chat_id = ?))
    ON CONFLICT (table_id) DO NOTHING
    RETURNING id
"""
_INSERT_PLAYERS = insert_sql("match_players", PLAYER_COLUMNS)
_INSERT_CHANGES = (
    insert_sql(
        "rating_changes", f"match_id, seat, variant, chat_id, season, player, {CHANGE_COLUMNS}"
    )
    + " ON CONFLICT (match_id, seat, variant) DO NOTHING"
)
# A line's counts add up; its name and rating are the latest match's.
_UPSERT_STANDINGS = (
    insert_sql("ladder_standings", STANDING_COLUMNS)
    + " ON CONFLICT (chat_id, player, season, variant) DO UPDATE SET "
    + ", ".join(
        [f"{name} = excluded.{name}" for name in ("user_id", "ai_level", "name")]
        + [f"{name} = ladder_standings.{name} + excluded.{name}" for name in TALLY_COLUMNS]
        + [
            f"{name} = excluded.{name}"
            for name in ("mu", "sigma", "rating", "last_match_id", "last_played_at")
        ]
    )
)


async def insert_match(conn: Conn, record: MatchRecord) -> tuple[int, bool]:
    """Store the match (in the chat's current season) and its players; returns its id, and
    whether it is new. A table already recorded keeps its match: nothing is stored and the
    existing id comes back."""
    row = await conn.fetchone(_INSERT_MATCH, (*match_values(record), record.chat_id))
    if row is None:  # already recorded for this table
        existing = await conn.fetchone(
            "SELECT id FROM matches WHERE table_id = ?", (record.table_id,)
        )
        assert existing is not None
        return int(existing["id"]), False
    match_id = int(row["id"])
    await conn.executemany(_INSERT_PLAYERS, player_rows(match_id, record.players_list))
    return match_id, True


async def apply_pending(conn: Conn, rate: Rater, chat_id: int | None, limit: int) -> int:
    """Rate the oldest ``limit`` matches not yet in the ladder (of one chat, or of all chats),
    in id order. Returns how many were rated."""
    where = "in_ladder = 0" + ("" if chat_id is None else " AND chat_id = ?")
    params: tuple[Any, ...] = () if chat_id is None else (chat_id,)
    # Locked until the end of the transaction: a second rating of the same matches waits,
    # then finds them rated (PostgreSQL; on SQLite one writer runs at a time anyway).
    rows = await conn.fetchall(
        f"SELECT {MATCH_COLUMNS} FROM matches WHERE {where} ORDER BY id LIMIT ?"
        + conn.dialect.for_update,
        (*params, limit),
    )
    if not rows:
        return 0
    players = await players_of(conn, [int(row["id"]) for row in rows])
    for row in rows:
        match_id = int(row["id"])
        record = match_from_row(row, players.get(match_id, []))
        await _apply_match(conn, rate, match_id, int(row["season"]), record)
    return len(rows)


@dataclass
class _Line:
    """What one match adds to one player's line (several seats of one computer level add up)."""

    user_id: int | None
    ai_level: str | None
    name: str
    tally: Tally
    after: Rating


async def _apply_match(
    conn: Conn, rate: Rater, match_id: int, season: int, record: MatchRecord
) -> None:
    seats = record.players_list
    keys = [player_key(p.user_id, p.ai_level) for p in seats]
    tallies = record.tallies()
    scopes = (record.variant, ALL_VARIANTS) if seats else ()  # nothing to rate in an empty record
    for scope in scopes:
        before = await _ratings(conn, record.chat_id, season, scope, keys)
        changes = list(rate(record, [before.get(key) for key in keys]))
        if len(changes) != len(seats):
            raise StorageError(f"the rater answered {len(changes)} changes for {len(seats)} seats")
        lines: dict[str, _Line] = {}
        for key, seat, tally, change in zip(keys, seats, tallies, changes, strict=True):
            line = lines.get(key)
            if line is None:
                lines[key] = _Line(seat.user_id, seat.ai_level, seat.name, tally, change.after)
            else:
                line.tally += tally
        await conn.executemany(
            _INSERT_CHANGES,
            [
                (match_id, seat.seat, scope, record.chat_id, season, key, *change_values(change))
                for key, seat, change in zip(keys, seats, changes, strict=True)
            ],
        )
        await conn.executemany(
            _UPSERT_STANDINGS,
            [
                (
                    record.chat_id,
                    season,
                    scope,
                    key,
                    line.user_id,
                    line.ai_level,
                    line.name,
                    *tally_values(line.tally),
                    *rating_values(line.after),
                    match_id,
                    record.finished_at,
                )
                for key, line in lines.items()
            ],
        )
    await conn.execute("UPDATE matches SET in_ladder = 1 WHERE id = ?", (match_id,))


async def _ratings(
    conn: Conn, chat_id: int, season: int, scope: str, keys: Sequence[str]
) -> dict[str, Rating]:
    unique = sorted(set(keys))
    rows = await conn.fetchall(
        f"SELECT player, mu, sigma, rating FROM ladder_standings "
        f"WHERE chat_id = ? AND player IN ({marks(len(unique))}) AND season = ? AND variant = ?",
        (chat_id, *unique, season, scope),
    )
    return {str(row["player"]): rating_from_row(row) for row in rows}


async def move_chat(conn: Conn, old_chat_id: int, new_chat_id: int) -> None:
    """After ``matches`` moved to ``new_chat_id``: move the seasons and mark the chat's
    matches for rating again (the next ladder access rebuilds its lines in id order)."""
    await conn.execute(
        "INSERT INTO ladder_seasons (chat_id, season, started_at, started_by) "
        "SELECT ?, season, started_at, started_by FROM ladder_seasons WHERE chat_id = ? "
        "ON CONFLICT DO NOTHING",
        (new_chat_id, old_chat_id),
    )
    for table in ("ladder_seasons", "ladder_standings", "rating_changes"):
        await conn.execute(f"DELETE FROM {table} WHERE chat_id = ?", (old_chat_id,))
    for table in ("ladder_standings", "rating_changes"):
        await conn.execute(f"DELETE FROM {table} WHERE chat_id = ?", (new_chat_id,))
    await conn.execute("UPDATE matches SET in_ladder = 0 WHERE chat_id = ?", (new_chat_id,))
