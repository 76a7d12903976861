"""Rows to records and records to rows for matches, their players and the ladder (see
``rows``)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import astuple, fields
from typing import Any

from bot.storage.conn import Row
from bot.storage.errors import StorageError
from bot.storage.records import (
    MatchPlayerRecord,
    MatchRecord,
    Rating,
    RatingChange,
    SeasonRecord,
    Standing,
    Tally,
)
from bot.storage.rows import dump, load_dict, opt_int, opt_str

# ------------------------------------------------------------------ matches and their players

MATCH_FIELDS = (
    "table_id, chat_id, variant, players, started_at, finished_at, deals, goat_with_eggs, result, "
    "options"
)
"""The columns a match record fills (the store adds the id and the season)."""
MATCH_COLUMNS = f"id, {MATCH_FIELDS}, season"


def match_from_row(row: Row, players: list[MatchPlayerRecord]) -> MatchRecord:
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
        options=load_dict(row["options"]),
    )


def match_values(record: MatchRecord) -> tuple[Any, ...]:
    """The values of ``MATCH_FIELDS``."""
    return (
        record.table_id,
        record.chat_id,
        record.variant,
        record.players,
        record.started_at,
        record.finished_at,
        record.deals,
        int(record.goat_with_eggs),
        dump(record.result),
        dump(record.options),
    )


PLAYER_COLUMNS = (
    "match_id, seat, side, user_id, name, ai_level, won, goat, defeat_points, deals_won, "
    "deals_lost, eggs, queens_caught, tricks, card_points, timeouts, stand_in_deals"
)


def player_from_row(row: Row) -> MatchPlayerRecord:
    return MatchPlayerRecord(
        seat=int(row["seat"]),
        side=int(row["side"]),
        user_id=opt_int(row["user_id"]),
        name=str(row["name"]),
        ai_level=opt_str(row["ai_level"]),
        won=bool(row["won"]),
        goat=bool(row["goat"]),
        defeat_points=int(row["defeat_points"]),
        deals_won=int(row["deals_won"]),
        deals_lost=int(row["deals_lost"]),
        eggs=int(row["eggs"]),
        queens_caught=int(row["queens_caught"]),
        tricks=int(row["tricks"]),
        card_points=int(row["card_points"]),
        timeouts=int(row["timeouts"]),
        stand_in_deals=int(row["stand_in_deals"]),
    )


def player_rows(match_id: int, players: Iterable[MatchPlayerRecord]) -> list[tuple[Any, ...]]:
    """The values of ``PLAYER_COLUMNS``, a tuple per seat."""
    return [
        (
            match_id,
            p.seat,
            p.side,
            p.user_id,
            p.name,
            p.ai_level,
            int(p.won),
            int(p.goat),
            p.defeat_points,
            p.deals_won,
            p.deals_lost,
            p.eggs,
            p.queens_caught,
            p.tricks,
            p.card_points,
            p.timeouts,
            p.stand_in_deals,
        )
        for p in players
    ]


# ------------------------------------------------------------------ the ladder

# A standing's count columns are named as ``Tally``'s fields, in the same order.
TALLY_COLUMNS = tuple(f.name for f in fields(Tally))
STANDING_COLUMNS = (
    "chat_id, season, variant, player, user_id, ai_level, name, "
    + ", ".join(TALLY_COLUMNS)
    + ", mu, sigma, rating, last_match_id, last_played_at"
)


def rating_from_row(row: Row, suffix: str = "") -> Rating:
    """The rating in columns ``mu``, ``sigma``, ``rating`` (each with ``suffix``)."""
    return Rating(
        float(row["mu" + suffix]), float(row["sigma" + suffix]), float(row["rating" + suffix])
    )


def rating_values(rating: Rating) -> tuple[float, float, float]:
    return (rating.mu, rating.sigma, rating.value)


def tally_values(tally: Tally) -> tuple[int, ...]:
    """The values of ``TALLY_COLUMNS``."""
    return astuple(tally)


def standing_from_row(row: Row) -> Standing:
    return Standing(
        chat_id=int(row["chat_id"]),
        season=int(row["season"]),
        variant=str(row["variant"]),
        player=str(row["player"]),
        user_id=opt_int(row["user_id"]),
        ai_level=opt_str(row["ai_level"]),
        name=str(row["name"]),
        tally=Tally(*(int(row[name]) for name in TALLY_COLUMNS)),
        rating=rating_from_row(row),
        last_match_id=int(row["last_match_id"]),
        last_played_at=float(row["last_played_at"]),
    )


CHANGE_COLUMNS = "rank, mu_before, sigma_before, rating_before, mu_after, sigma_after, rating_after"


def change_from_row(row: Row) -> RatingChange:
    """A row holding ``CHANGE_COLUMNS``."""
    return RatingChange(
        rank=int(row["rank"]),
        before=rating_from_row(row, "_before"),
        after=rating_from_row(row, "_after"),
    )


def change_values(change: RatingChange) -> tuple[Any, ...]:
    """The values of ``CHANGE_COLUMNS``."""
    return (change.rank, *rating_values(change.before), *rating_values(change.after))


SEASON_COLUMNS = "chat_id, season, started_at, started_by"


def season_from_row(row: Row) -> SeasonRecord:
    return SeasonRecord(
        int(row["chat_id"]),
        int(row["season"]),
        float(row["started_at"]),
        opt_int(row["started_by"]),
    )
