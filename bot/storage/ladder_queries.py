"""The ladder's reads: seasons, standings, results and histories.

Each function takes a connection inside a transaction the caller opened. Every query a command
runs is an indexed lookup or range scan (see ``SCHEMA_V2``):

- top of a ladder: ``ladder_standings_top`` (chat, season, scope, rating DESC, ...), LIMIT n;
  a player's rank: a COUNT over the same index, of the lines ahead of theirs;
- a player's lines in a chat: the primary key (chat, player, ...);
  across chats: ``ladder_standings_player`` (player, scope);
- a player's recent results: ``rating_changes_player`` (chat, player, scope, season, match);
- history: ``matches_chat_season[_variant]`` (chat, season, [variant,] id), newest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.storage.conn import Conn
from bot.storage.ladder_rows import (
    CHANGE_COLUMNS,
    MATCH_COLUMNS,
    PLAYER_COLUMNS,
    SEASON_COLUMNS,
    STANDING_COLUMNS,
    change_from_row,
    match_from_row,
    player_from_row,
    season_from_row,
    standing_from_row,
)
from bot.storage.records import (
    ALL_VARIANTS,
    HistoryPage,
    LadderBoard,
    LadderMatch,
    MatchPlayerRecord,
    PlayerCard,
    PlayerResult,
    RatingChange,
    SeasonRecord,
    Standing,
)
from bot.storage.rows import load_dict, marks

_TOP_ORDER = "rating DESC, matches DESC, player"

# The read queries of the ladder commands (tests check their query plans).
TOP_SQL = (
    f"SELECT {STANDING_COLUMNS} FROM ladder_standings "
    f"WHERE chat_id = ? AND season = ? AND variant = ? ORDER BY {_TOP_ORDER} LIMIT ?"
)
LINE_SQL = (
    f"SELECT {STANDING_COLUMNS} FROM ladder_standings "
    "WHERE chat_id = ? AND player = ? AND season = ? AND variant = ?"
)
RANK_SQL = """
    SELECT count(*) FROM ladder_standings
    WHERE chat_id = ? AND season = ? AND variant = ?
      AND (rating > ? OR (rating = ? AND (matches > ? OR (matches = ? AND player < ?))))
"""
SIZE_SQL = "SELECT count(*) FROM ladder_standings WHERE chat_id = ? AND season = ? AND variant = ?"
PLAYER_LINES_SQL = (
    f"SELECT {STANDING_COLUMNS} FROM ladder_standings WHERE chat_id = ? AND player = ? "
    "ORDER BY season, variant"
)
PLAYER_EVERYWHERE_SQL = (
    f"SELECT {STANDING_COLUMNS} FROM ladder_standings WHERE player = ? AND variant = ? "
    "ORDER BY chat_id, season"
)
# The newest rows first, limited, then joined: the join never looks past the limit.
RESULTS_SQL = """
    SELECT r.match_id, r.rank, r.mu_before, r.sigma_before, r.rating_before,
           r.mu_after, r.sigma_after, r.rating_after,
           m.variant, m.finished_at, m.options, p.won, p.goat
    FROM (SELECT * FROM rating_changes
          WHERE chat_id = ? AND player = ? AND variant = ? AND season = ?
          ORDER BY match_id DESC LIMIT ?) AS r
    JOIN matches AS m ON m.id = r.match_id
    JOIN match_players AS p ON p.match_id = r.match_id AND p.seat = r.seat
    ORDER BY r.match_id DESC, r.seat
"""
CHAT_HISTORY_SQL = (
    f"SELECT {MATCH_COLUMNS} FROM matches WHERE chat_id = ? AND season = ? ORDER BY id DESC LIMIT ?"
)
VARIANT_HISTORY_SQL = (
    f"SELECT {MATCH_COLUMNS} FROM matches WHERE chat_id = ? AND season = ? AND variant = ? "
    "ORDER BY id DESC LIMIT ?"
)
USER_HISTORY_SQL = (
    "SELECT " + ", ".join(f"m.{c.strip()}" for c in MATCH_COLUMNS.split(",")) + " "
    "FROM (SELECT DISTINCT match_id FROM match_players WHERE user_id = ? "
    "      ORDER BY match_id DESC LIMIT ?) AS x "
    "JOIN matches AS m ON m.id = x.match_id ORDER BY m.id DESC"
)

_CHUNK = 500
"""Ids per ``IN (...)``: SQLite allows 32766 parameters; stay well below."""


# ------------------------------------------------------------------ seasons


async def current_season(conn: Conn, chat_id: int) -> SeasonRecord:
    row = await conn.fetchone(
        f"SELECT {SEASON_COLUMNS} FROM ladder_seasons "
        "WHERE chat_id = ? ORDER BY season DESC LIMIT 1",
        (chat_id,),
    )
    return SeasonRecord(chat_id, 1) if row is None else season_from_row(row)


async def season_record(conn: Conn, chat_id: int, season: int) -> SeasonRecord:
    """The season's record; a season that never started (or season 1 before any reset) gives
    a record without a start time."""
    row = await conn.fetchone(
        f"SELECT {SEASON_COLUMNS} FROM ladder_seasons WHERE chat_id = ? AND season = ?",
        (chat_id, season),
    )
    return SeasonRecord(chat_id, season) if row is None else season_from_row(row)


async def has_pending(conn: Conn, chat_id: int | None) -> bool:
    """Whether matches (of one chat, or of any) wait to be rated."""
    if chat_id is None:
        row = await conn.fetchone("SELECT 1 FROM matches WHERE in_ladder = 0 LIMIT 1")
    else:
        row = await conn.fetchone(
            "SELECT 1 FROM matches WHERE in_ladder = 0 AND chat_id = ? LIMIT 1", (chat_id,)
        )
    return row is not None


# ------------------------------------------------------------------ lines


async def top(conn: Conn, chat_id: int, season: int, scope: str, limit: int) -> list[Standing]:
    rows = await conn.fetchall(TOP_SQL, (chat_id, season, scope, limit))
    return [standing_from_row(row) for row in rows]


async def standing(
    conn: Conn, chat_id: int, season: int, scope: str, player: str
) -> tuple[int, Standing] | None:
    """The player's line and its rank (1-based, in ``top``'s order), or None."""
    row = await conn.fetchone(LINE_SQL, (chat_id, player, season, scope))
    if row is None:
        return None
    line = standing_from_row(row)
    rating, matches = line.rating.value, line.tally.matches
    ahead = await conn.fetchone(
        RANK_SQL, (chat_id, season, scope, rating, rating, matches, matches, player)
    )
    assert ahead is not None
    return int(ahead[0]) + 1, line


async def count_lines(conn: Conn, chat_id: int, season: int, scope: str) -> int:
    row = await conn.fetchone(SIZE_SQL, (chat_id, season, scope))
    return 0 if row is None else int(row[0])


async def player_lines(conn: Conn, player: str, chat_id: int | None) -> list[Standing]:
    if chat_id is None:
        rows = await conn.fetchall(PLAYER_EVERYWHERE_SQL, (player, ALL_VARIANTS))
    else:
        rows = await conn.fetchall(PLAYER_LINES_SQL, (chat_id, player))
    return [standing_from_row(row) for row in rows]


async def player_results(
    conn: Conn, chat_id: int, season: int, player: str, limit: int
) -> list[PlayerResult]:
    rows = await conn.fetchall(RESULTS_SQL, (chat_id, player, ALL_VARIANTS, season, limit))
    return [
        PlayerResult(
            match_id=int(row["match_id"]),
            variant=str(row["variant"]),
            finished_at=float(row["finished_at"]),
            won=bool(row["won"]),
            goat=bool(row["goat"]),
            change=change_from_row(row),
            options=load_dict(row["options"]),
        )
        for row in rows
    ]


# ------------------------------------------------------------------ matches


async def players_of(conn: Conn, match_ids: Sequence[int]) -> dict[int, list[MatchPlayerRecord]]:
    """Match id -> its players, by seat."""
    players: dict[int, list[MatchPlayerRecord]] = {}
    for start in range(0, len(match_ids), _CHUNK):
        chunk = match_ids[start : start + _CHUNK]
        rows = await conn.fetchall(
            f"SELECT {PLAYER_COLUMNS} FROM match_players WHERE match_id IN ({marks(len(chunk))}) "
            "ORDER BY match_id, seat",
            tuple(chunk),
        )
        for row in rows:
            players.setdefault(int(row["match_id"]), []).append(player_from_row(row))
    return players


async def history(
    conn: Conn,
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
        rows = await conn.fetchall(sql, params)
    elif user_id is not None:
        rows = await conn.fetchall(USER_HISTORY_SQL, (user_id, limit))
    else:
        raise ValueError("a history needs a chat or a user")
    ids = [int(row["id"]) for row in rows]
    players = await players_of(conn, ids)
    changes: dict[int, dict[int, RatingChange]] = {}
    if ids:
        change_rows = await conn.fetchall(
            f"SELECT match_id, seat, {CHANGE_COLUMNS} FROM rating_changes "
            f"WHERE match_id IN ({marks(len(ids))}) AND variant = ?",
            (*ids, ALL_VARIANTS),
        )
        for row in change_rows:
            changes.setdefault(int(row["match_id"]), {})[int(row["seat"])] = change_from_row(row)
    return [
        LadderMatch(
            id=int(row["id"]),
            season=int(row["season"]),
            record=match_from_row(row, players.get(int(row["id"]), [])),
            changes=changes.get(int(row["id"]), {}),
        )
        for row in rows
    ]


# ------------------------------------------------------------------ one read per command


async def board(
    conn: Conn, chat_id: int, season: int | None, scope: str, player: str, limit: int
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


async def card(conn: Conn, chat_id: int, player: str, results_limit: int) -> PlayerCard:
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
    conn: Conn, chat_id: int, season: int | None, variant: str | None, limit: int
) -> HistoryPage:
    current = await current_season(conn, chat_id)
    number = current.season if season is None else season
    matches = await history(
        conn, chat_id=chat_id, season=number, variant=variant, user_id=None, limit=limit
    )
    return HistoryPage(current, number, matches, await has_pending(conn, chat_id))
