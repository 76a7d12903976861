"""The ladder's SQL: rating recorded matches into per-chat standings, and the ladder queries.

Helpers for ``SqliteStorage``: each takes a connection inside a transaction the caller opened.
The rating model itself is not here: the service hands in a ``Rater``, and this module feeds it
the stored ratings and writes back what it answers, in the caller's transaction.

Every query a command runs is an indexed lookup or range scan (see ``SCHEMA_V2``):

- top of a ladder: ``ladder_standings_top`` (chat, season, scope, rating DESC, ...), LIMIT n;
  a player's rank: a COUNT over the same index, of the lines ahead of theirs;
- a player's lines in a chat: the primary key (chat, player, ...);
  across chats: ``ladder_standings_player`` (player, scope);
- a player's recent results: ``rating_changes_player`` (chat, player, scope, season, match);
- history: ``matches_chat_season[_variant]`` (chat, season, [variant,] id), newest first.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import aiosqlite

from bot.storage.base import StorageError
from bot.storage.records import (
    ALL_VARIANTS,
    HistoryPage,
    LadderBoard,
    LadderMatch,
    MatchPlayerRecord,
    MatchRecord,
    PlayerCard,
    PlayerResult,
    Rater,
    Rating,
    RatingChange,
    SeasonRecord,
    Standing,
    Tally,
    player_key,
)

_STANDING_COLUMNS = (
    "chat_id, season, variant, player, user_id, ai_level, name, matches, wins, goats, "
    "deals_won, deals_lost, defeat_points_taken, defeat_points_given, eggs, queens_caught, "
    "tricks, card_points, mu, sigma, rating, last_match_id, last_played_at"
)
_TOP_ORDER = "rating DESC, matches DESC, player"
_MATCH_COLUMNS = (
    "id, table_id, chat_id, variant, players, started_at, finished_at, deals, goat_with_eggs, "
    "result, season"
)
_PLAYER_COLUMNS = (
    "match_id, seat, side, user_id, name, ai_level, won, goat, defeat_points, deals_won, "
    "deals_lost, eggs, queens_caught, tricks, card_points"
)

# The read queries of the ladder commands (tests check their query plans).
TOP_SQL = (
    f"SELECT {_STANDING_COLUMNS} FROM ladder_standings "
    f"WHERE chat_id = ? AND season = ? AND variant = ? ORDER BY {_TOP_ORDER} LIMIT ?"
)
LINE_SQL = (
    f"SELECT {_STANDING_COLUMNS} FROM ladder_standings "
    "WHERE chat_id = ? AND player = ? AND season = ? AND variant = ?"
)
RANK_SQL = """
    SELECT count(*) FROM ladder_standings
    WHERE chat_id = ? AND season = ? AND variant = ?
      AND (rating > ? OR (rating = ? AND (matches > ? OR (matches = ? AND player < ?))))
"""
SIZE_SQL = "SELECT count(*) FROM ladder_standings WHERE chat_id = ? AND season = ? AND variant = ?"
PLAYER_LINES_SQL = (
    f"SELECT {_STANDING_COLUMNS} FROM ladder_standings WHERE chat_id = ? AND player = ? "
    "ORDER BY season, variant"
)
PLAYER_EVERYWHERE_SQL = (
    f"SELECT {_STANDING_COLUMNS} FROM ladder_standings WHERE player = ? AND variant = ? "
    "ORDER BY chat_id, season"
)
# The newest rows first, limited, then joined: the join never looks past the limit.
RESULTS_SQL = """
    SELECT r.match_id, r.rank, r.mu_before, r.sigma_before, r.rating_before,
           r.mu_after, r.sigma_after, r.rating_after,
           m.variant, m.finished_at, p.won, p.goat
    FROM (SELECT * FROM rating_changes
          WHERE chat_id = ? AND player = ? AND variant = ? AND season = ?
          ORDER BY match_id DESC LIMIT ?) AS r
    JOIN matches AS m ON m.id = r.match_id
    JOIN match_players AS p ON p.match_id = r.match_id AND p.seat = r.seat
    ORDER BY r.match_id DESC, r.seat
"""
CHAT_HISTORY_SQL = (
    f"SELECT {_MATCH_COLUMNS} FROM matches WHERE chat_id = ? AND season = ? "
    "ORDER BY id DESC LIMIT ?"
)
VARIANT_HISTORY_SQL = (
    f"SELECT {_MATCH_COLUMNS} FROM matches WHERE chat_id = ? AND season = ? AND variant = ? "
    "ORDER BY id DESC LIMIT ?"
)
USER_HISTORY_SQL = (
    "SELECT " + ", ".join(f"m.{c.strip()}" for c in _MATCH_COLUMNS.split(",")) + " "
    "FROM (SELECT DISTINCT match_id FROM match_players WHERE user_id = ? "
    "      ORDER BY match_id DESC LIMIT ?) AS x "
    "JOIN matches AS m ON m.id = x.match_id ORDER BY m.id DESC"
)


# ------------------------------------------------------------------ seasons


async def current_season(conn: aiosqlite.Connection, chat_id: int) -> SeasonRecord:
    row = await _fetchone(
        conn,
        "SELECT chat_id, season, started_at, started_by FROM ladder_seasons "
        "WHERE chat_id = ? ORDER BY season DESC LIMIT 1",
        (chat_id,),
    )
    if row is None:
        return SeasonRecord(chat_id, 1)
    return SeasonRecord(
        int(row["chat_id"]),
        int(row["season"]),
        float(row["started_at"]),
        None if row["started_by"] is None else int(row["started_by"]),
    )


async def season_record(conn: aiosqlite.Connection, chat_id: int, season: int) -> SeasonRecord:
    """The season's record; a season that never started (or season 1 before any reset) gives
    a record without a start time."""
    row = await _fetchone(
        conn,
        "SELECT started_at, started_by FROM ladder_seasons WHERE chat_id = ? AND season = ?",
        (chat_id, season),
    )
    if row is None:
        return SeasonRecord(chat_id, season)
    started_by = None if row["started_by"] is None else int(row["started_by"])
    return SeasonRecord(chat_id, season, float(row["started_at"]), started_by)


async def start_season(
    conn: aiosqlite.Connection, chat_id: int, after: int, by: int | None, now: float
) -> SeasonRecord | None:
    current = await current_season(conn, chat_id)
    if current.season != after:
        return None
    record = SeasonRecord(chat_id, after + 1, now, by)
    await conn.execute(
        "INSERT INTO ladder_seasons (chat_id, season, started_at, started_by) VALUES (?, ?, ?, ?)",
        (record.chat_id, record.season, record.started_at, record.started_by),
    )
    return record


# ------------------------------------------------------------------ rating matches


async def apply_pending(
    conn: aiosqlite.Connection, rate: Rater, chat_id: int | None, limit: int
) -> int:
    """Rate the oldest ``limit`` matches not yet in the ladder (of one chat, or of all chats),
    in id order. Returns how many were rated."""
    where = "in_ladder = 0" + ("" if chat_id is None else " AND chat_id = ?")
    params: tuple[Any, ...] = () if chat_id is None else (chat_id,)
    rows = list(
        await conn.execute_fetchall(
            f"SELECT {_MATCH_COLUMNS} FROM matches WHERE {where} ORDER BY id LIMIT ?",
            (*params, limit),
        )
    )
    if not rows:
        return 0
    players = await _players_of(conn, [int(row["id"]) for row in rows])
    for row in rows:
        match_id = int(row["id"])
        record = _match_from_row(row, players.get(match_id, []))
        await _apply_match(conn, rate, match_id, int(row["season"]), record)
    return len(rows)


async def has_pending(conn: aiosqlite.Connection, chat_id: int | None) -> bool:
    if chat_id is None:
        row = await _fetchone(conn, "SELECT 1 FROM matches WHERE in_ladder = 0 LIMIT 1", ())
    else:
        row = await _fetchone(
            conn, "SELECT 1 FROM matches WHERE in_ladder = 0 AND chat_id = ? LIMIT 1", (chat_id,)
        )
    return row is not None


@dataclass
class _Line:
    """What one match adds to one player's line (several seats of one computer level add up)."""

    user_id: int | None
    ai_level: str | None
    name: str
    tally: Tally
    after: Rating


async def _apply_match(
    conn: aiosqlite.Connection, rate: Rater, match_id: int, season: int, record: MatchRecord
) -> None:
    seats = record.players_list
    keys = [player_key(p.user_id, p.ai_level) for p in seats]
    given = _points_given(seats)
    scopes = (record.variant, ALL_VARIANTS) if seats else ()  # nothing to rate in an empty record
    for scope in scopes:
        before = await _ratings(conn, record.chat_id, season, scope, keys)
        changes = list(rate(record, [before.get(key) for key in keys]))
        if len(changes) != len(seats):
            raise StorageError(f"the rater answered {len(changes)} changes for {len(seats)} seats")
        lines: dict[str, _Line] = {}
        for key, seat, change in zip(keys, seats, changes, strict=True):
            tally = _tally_of(seat, given[seat.seat])
            line = lines.get(key)
            if line is None:
                lines[key] = _Line(seat.user_id, seat.ai_level, seat.name, tally, change.after)
            else:
                line.tally += tally
        await conn.executemany(
            """
            INSERT INTO rating_changes (match_id, seat, variant, chat_id, season, player, rank,
                                        mu_before, sigma_before, rating_before,
                                        mu_after, sigma_after, rating_after)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (match_id, seat, variant) DO NOTHING
            """,
            [
                (
                    match_id,
                    seat.seat,
                    scope,
                    record.chat_id,
                    season,
                    key,
                    change.rank,
                    change.before.mu,
                    change.before.sigma,
                    change.before.value,
                    change.after.mu,
                    change.after.sigma,
                    change.after.value,
                )
                for key, seat, change in zip(keys, seats, changes, strict=True)
            ],
        )
        await conn.executemany(
            f"""
            INSERT INTO ladder_standings ({_STANDING_COLUMNS})
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (chat_id, player, season, variant) DO UPDATE SET
                user_id = excluded.user_id,
                ai_level = excluded.ai_level,
                name = excluded.name,
                matches = matches + excluded.matches,
                wins = wins + excluded.wins,
                goats = goats + excluded.goats,
                deals_won = deals_won + excluded.deals_won,
                deals_lost = deals_lost + excluded.deals_lost,
                defeat_points_taken = defeat_points_taken + excluded.defeat_points_taken,
                defeat_points_given = defeat_points_given + excluded.defeat_points_given,
                eggs = eggs + excluded.eggs,
                queens_caught = queens_caught + excluded.queens_caught,
                tricks = tricks + excluded.tricks,
                card_points = card_points + excluded.card_points,
                mu = excluded.mu,
                sigma = excluded.sigma,
                rating = excluded.rating,
                last_match_id = excluded.last_match_id,
                last_played_at = excluded.last_played_at
            """,
            [
                (
                    record.chat_id,
                    season,
                    scope,
                    key,
                    line.user_id,
                    line.ai_level,
                    line.name,
                    *_tally_row(line.tally),
                    line.after.mu,
                    line.after.sigma,
                    line.after.value,
                    match_id,
                    record.finished_at,
                )
                for key, line in lines.items()
            ],
        )
    await conn.execute("UPDATE matches SET in_ladder = 1 WHERE id = ?", (match_id,))


def _points_given(seats: Sequence[MatchPlayerRecord]) -> dict[int, int]:
    """Seat -> the defeat points the other sides took in the match."""
    by_side = {p.side: p.defeat_points for p in seats}
    total = sum(by_side.values())
    return {p.seat: total - by_side[p.side] for p in seats}


def _tally_of(seat: MatchPlayerRecord, given: int) -> Tally:
    return Tally(
        matches=1,
        wins=int(seat.won),
        goats=int(seat.goat),
        deals_won=seat.deals_won,
        deals_lost=seat.deals_lost,
        defeat_points_taken=seat.defeat_points,
        defeat_points_given=given,
        eggs=seat.eggs,
        queens_caught=seat.queens_caught,
        tricks=seat.tricks,
        card_points=seat.card_points,
    )


def _tally_row(tally: Tally) -> tuple[int, ...]:
    return (
        tally.matches,
        tally.wins,
        tally.goats,
        tally.deals_won,
        tally.deals_lost,
        tally.defeat_points_taken,
        tally.defeat_points_given,
        tally.eggs,
        tally.queens_caught,
        tally.tricks,
        tally.card_points,
    )


async def _ratings(
    conn: aiosqlite.Connection, chat_id: int, season: int, scope: str, keys: Sequence[str]
) -> dict[str, Rating]:
    unique = sorted(set(keys))
    marks = ", ".join("?" * len(unique))
    rows = await conn.execute_fetchall(
        f"SELECT player, mu, sigma, rating FROM ladder_standings "
        f"WHERE chat_id = ? AND player IN ({marks}) AND season = ? AND variant = ?",
        (chat_id, *unique, season, scope),
    )
    return {
        str(row["player"]): Rating(float(row["mu"]), float(row["sigma"]), float(row["rating"]))
        for row in rows
    }


# ------------------------------------------------------------------ chat migration


async def move_chat(conn: aiosqlite.Connection, old_chat_id: int, new_chat_id: int) -> None:
    """After ``matches`` moved to ``new_chat_id``: move the seasons and mark the chat's
    matches for rating again (the next ladder access rebuilds its lines in id order)."""
    await conn.execute(
        "INSERT OR IGNORE INTO ladder_seasons (chat_id, season, started_at, started_by) "
        "SELECT ?, season, started_at, started_by FROM ladder_seasons WHERE chat_id = ?",
        (new_chat_id, old_chat_id),
    )
    for table in ("ladder_seasons", "ladder_standings", "rating_changes"):
        await conn.execute(f"DELETE FROM {table} WHERE chat_id = ?", (old_chat_id,))
    for table in ("ladder_standings", "rating_changes"):
        await conn.execute(f"DELETE FROM {table} WHERE chat_id = ?", (new_chat_id,))
    await conn.execute("UPDATE matches SET in_ladder = 0 WHERE chat_id = ?", (new_chat_id,))


# ------------------------------------------------------------------ queries


async def top(
    conn: aiosqlite.Connection, chat_id: int, season: int, scope: str, limit: int
) -> list[Standing]:
    rows = await conn.execute_fetchall(TOP_SQL, (chat_id, season, scope, limit))
    return [_standing_from_row(row) for row in rows]


async def standing(
    conn: aiosqlite.Connection, chat_id: int, season: int, scope: str, player: str
) -> tuple[int, Standing] | None:
    """The player's line and its rank (1-based, in ``top``'s order), or None."""
    row = await _fetchone(conn, LINE_SQL, (chat_id, player, season, scope))
    if row is None:
        return None
    line = _standing_from_row(row)
    ahead = await _fetchone(
        conn,
        RANK_SQL,
        (
            chat_id,
            season,
            scope,
            line.rating.value,
            line.rating.value,
            line.tally.matches,
            line.tally.matches,
            player,
        ),
    )
    assert ahead is not None
    return int(ahead[0]) + 1, line


async def count_lines(conn: aiosqlite.Connection, chat_id: int, season: int, scope: str) -> int:
    row = await _fetchone(conn, SIZE_SQL, (chat_id, season, scope))
    return 0 if row is None else int(row[0])


async def player_lines(
    conn: aiosqlite.Connection, player: str, chat_id: int | None
) -> list[Standing]:
    if chat_id is None:
        rows = await conn.execute_fetchall(PLAYER_EVERYWHERE_SQL, (player, ALL_VARIANTS))
    else:
        rows = await conn.execute_fetchall(PLAYER_LINES_SQL, (chat_id, player))
    return [_standing_from_row(row) for row in rows]


async def player_results(
    conn: aiosqlite.Connection, chat_id: int, season: int, player: str, limit: int
) -> list[PlayerResult]:
    rows = await conn.execute_fetchall(RESULTS_SQL, (chat_id, player, ALL_VARIANTS, season, limit))
    return [
        PlayerResult(
            match_id=int(row["match_id"]),
            variant=str(row["variant"]),
            finished_at=float(row["finished_at"]),
            won=bool(row["won"]),
            goat=bool(row["goat"]),
            change=_change_from_row(row),
        )
        for row in rows
    ]


async def history(
    conn: aiosqlite.Connection,
    *,
    chat_id: int | None,
    season: int | None,
    variant: str | None,
    user_id: int | None,
    limit: int,
) -> list[LadderMatch]:
    """The newest matches, newest first: of a chat's season (optionally one variant), or of a
    user in every chat (``chat_id`` None)."""
    if chat_id is not None:
        if season is None:
            raise ValueError("a chat's history needs a season")
        params: tuple[Any, ...]
        if variant is None:
            sql, params = CHAT_HISTORY_SQL, (chat_id, season, limit)
        else:
            sql, params = VARIANT_HISTORY_SQL, (chat_id, season, variant, limit)
        rows = list(await conn.execute_fetchall(sql, params))
    elif user_id is not None:
        rows = list(await conn.execute_fetchall(USER_HISTORY_SQL, (user_id, limit)))
    else:
        raise ValueError("a history needs a chat or a user")
    ids = [int(row["id"]) for row in rows]
    players = await _players_of(conn, ids)
    changes: dict[int, dict[int, RatingChange]] = {}
    if ids:
        marks = ", ".join("?" * len(ids))
        change_rows = await conn.execute_fetchall(
            "SELECT match_id, seat, rank, mu_before, sigma_before, rating_before, "
            "mu_after, sigma_after, rating_after FROM rating_changes "
            f"WHERE match_id IN ({marks}) AND variant = ?",
            (*ids, ALL_VARIANTS),
        )
        for row in change_rows:
            changes.setdefault(int(row["match_id"]), {})[int(row["seat"])] = _change_from_row(row)
    return [
        LadderMatch(
            id=int(row["id"]),
            season=int(row["season"]),
            record=_match_from_row(row, players.get(int(row["id"]), [])),
            changes=changes.get(int(row["id"]), {}),
        )
        for row in rows
    ]


async def user_by_username(conn: aiosqlite.Connection, username: str) -> int | None:
    row = await _fetchone(
        conn,
        "SELECT user_id FROM users WHERE username = ? COLLATE NOCASE "
        "ORDER BY updated_at DESC LIMIT 1",
        (username,),
    )
    return None if row is None else int(row["user_id"])


# ------------------------------------------------------------------ one read per command


async def board(
    conn: aiosqlite.Connection,
    chat_id: int,
    season: int | None,
    scope: str,
    player: str,
    limit: int,
) -> LadderBoard:
    current = await current_season(conn, chat_id)
    number = current.season if season is None else season
    shown = await season_record(conn, chat_id, number)
    lines = await top(conn, chat_id, number, scope, limit)
    caller = None
    if all(line.player != player for line in lines):
        caller = await standing(conn, chat_id, number, scope, player)
    size = await count_lines(conn, chat_id, number, scope)
    return LadderBoard(current, shown, lines, caller, size, await has_pending(conn, chat_id))


async def card(
    conn: aiosqlite.Connection, chat_id: int, player: str, results_limit: int
) -> PlayerCard:
    current = await current_season(conn, chat_id)
    lines = await player_lines(conn, player, chat_id)
    placed = await standing(conn, chat_id, current.season, ALL_VARIANTS, player)
    size = await count_lines(conn, chat_id, current.season, ALL_VARIANTS)
    results = await player_results(conn, chat_id, current.season, player, results_limit)
    return PlayerCard(
        current,
        lines,
        None if placed is None else placed[0],
        size,
        results,
        await has_pending(conn, chat_id),
    )


async def history_page(
    conn: aiosqlite.Connection, chat_id: int, season: int | None, variant: str | None, limit: int
) -> HistoryPage:
    current = await current_season(conn, chat_id)
    number = current.season if season is None else season
    matches = await history(
        conn, chat_id=chat_id, season=number, variant=variant, user_id=None, limit=limit
    )
    return HistoryPage(current, number, matches, await has_pending(conn, chat_id))


# ------------------------------------------------------------------ rows


async def _fetchone(
    conn: aiosqlite.Connection, sql: str, params: Sequence[Any]
) -> sqlite3.Row | None:
    async with conn.execute(sql, params) as cursor:
        row: sqlite3.Row | None = await cursor.fetchone()
        return row


async def _players_of(
    conn: aiosqlite.Connection, match_ids: Sequence[int]
) -> dict[int, list[MatchPlayerRecord]]:
    players: dict[int, list[MatchPlayerRecord]] = {}
    # SQLite allows 32766 parameters; stay well below in chunks.
    for start in range(0, len(match_ids), 500):
        chunk = match_ids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        rows = await conn.execute_fetchall(
            f"SELECT {_PLAYER_COLUMNS} FROM match_players WHERE match_id IN ({marks}) "
            "ORDER BY match_id, seat",
            tuple(chunk),
        )
        for row in rows:
            players.setdefault(int(row["match_id"]), []).append(
                MatchPlayerRecord(
                    seat=int(row["seat"]),
                    side=int(row["side"]),
                    user_id=None if row["user_id"] is None else int(row["user_id"]),
                    name=str(row["name"]),
                    ai_level=None if row["ai_level"] is None else str(row["ai_level"]),
                    won=bool(row["won"]),
                    goat=bool(row["goat"]),
                    defeat_points=int(row["defeat_points"]),
                    deals_won=int(row["deals_won"]),
                    deals_lost=int(row["deals_lost"]),
                    eggs=int(row["eggs"]),
                    queens_caught=int(row["queens_caught"]),
                    tricks=int(row["tricks"]),
                    card_points=int(row["card_points"]),
                )
            )
    return players


def _match_from_row(row: sqlite3.Row, players: list[MatchPlayerRecord]) -> MatchRecord:
    result = json.loads(row["result"])
    if not isinstance(result, dict):
        raise StorageError(f"match {row['id']}: result is not a JSON object")
    return MatchRecord(
        table_id=int(row["table_id"]),
        chat_id=int(row["chat_id"]),
        variant=str(row["variant"]),
        players=int(row["players"]),
        started_at=float(row["started_at"]),
        finished_at=float(row["finished_at"]),
        deals=int(row["deals"]),
        goat_with_eggs=bool(row["goat_with_eggs"]),
        result=result,
        players_list=players,
    )


def _standing_from_row(row: sqlite3.Row) -> Standing:
    return Standing(
        chat_id=int(row["chat_id"]),
        season=int(row["season"]),
        variant=str(row["variant"]),
        player=str(row["player"]),
        user_id=None if row["user_id"] is None else int(row["user_id"]),
        ai_level=None if row["ai_level"] is None else str(row["ai_level"]),
        name=str(row["name"]),
        tally=Tally(
            matches=int(row["matches"]),
            wins=int(row["wins"]),
            goats=int(row["goats"]),
            deals_won=int(row["deals_won"]),
            deals_lost=int(row["deals_lost"]),
            defeat_points_taken=int(row["defeat_points_taken"]),
            defeat_points_given=int(row["defeat_points_given"]),
            eggs=int(row["eggs"]),
            queens_caught=int(row["queens_caught"]),
            tricks=int(row["tricks"]),
            card_points=int(row["card_points"]),
        ),
        rating=Rating(float(row["mu"]), float(row["sigma"]), float(row["rating"])),
        last_match_id=int(row["last_match_id"]),
        last_played_at=float(row["last_played_at"]),
    )


def _change_from_row(row: sqlite3.Row) -> RatingChange:
    return RatingChange(
        rank=int(row["rank"]),
        before=Rating(
            float(row["mu_before"]), float(row["sigma_before"]), float(row["rating_before"])
        ),
        after=Rating(float(row["mu_after"]), float(row["sigma_after"]), float(row["rating_after"])),
    )
