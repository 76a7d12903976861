"""Match records for the ladder tests, built from who sat where and how it ended."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.storage import MatchPlayerRecord, MatchRecord

Who = int | str  # a user id, or a computer level ("strong")

START = 1_700_000_000.0


def player(
    seat: int, side: int, who: Who, *, won: bool, goat: bool, points: int
) -> MatchPlayerRecord:
    human = isinstance(who, int)
    return MatchPlayerRecord(
        seat=seat,
        side=side,
        user_id=who if isinstance(who, int) else None,
        name=f"P{who}" if human else f"Bot {who}",
        ai_level=None if human else str(who),
        won=won,
        goat=goat,
        defeat_points=points,
        deals_won=3 if won else 1,
        deals_lost=1 if won else 3,
        eggs=1 if goat else 0,
        queens_caught=1 if won else 0,
        tricks=20 if won else 10,
        card_points=300 if won else 180,
    )


def teams(
    table_id: int,
    chat_id: int,
    winners: Sequence[Who],
    losers: Sequence[Who],
    *,
    variant: str = "street",
    loser_points: int = 12,
    winner_points: int = 4,
    eggs: bool = False,
) -> MatchRecord:
    """Four players: ``winners`` sat at seats 0 and 2 (side 0), ``losers`` at 1 and 3."""
    seats = [winners[0], losers[0], winners[1], losers[1]]
    players = [
        player(
            seat,
            seat % 2,
            who,
            won=seat % 2 == 0,
            goat=seat % 2 == 1,
            points=winner_points if seat % 2 == 0 else loser_points,
        )
        for seat, who in enumerate(seats)
    ]
    result: dict[str, Any] = {
        "defeat_points": [winner_points, loser_points],
        "winners": [0],
        "losers": [1],
        "goat": 1,
        "goat_with_eggs": eggs,
        "deals": 4,
    }
    return _match(table_id, chat_id, variant, players, result, eggs)


def free_for_all(
    table_id: int, chat_id: int, order: Sequence[Who], *, variant: str = "moscow"
) -> MatchRecord:
    """Every player for himself, ``order`` from the winner to the first one out. Seats are given
    in a shuffled order on purpose (seat i holds order[(i + 1) % n])."""
    n = len(order)
    seat_of = {who: (place - 1) % n for place, who in enumerate(order)}
    out_order = list(reversed(order[1:]))  # the first one out first
    points = {who: 0 if place == 0 else 12 + place for place, who in enumerate(order)}
    players = sorted(
        (
            player(
                seat_of[who],
                seat_of[who],
                who,
                won=place == 0,
                goat=place == 1,
                points=points[who],
            )
            for place, who in enumerate(order)
        ),
        key=lambda p: p.seat,
    )
    result: dict[str, Any] = {
        "defeat_points": [points[who] for who in sorted(order, key=lambda w: seat_of[w])],
        "winners": [seat_of[order[0]]],
        "losers": [seat_of[who] for who in out_order],
        "goat": seat_of[order[1]],
        "goat_with_eggs": False,
        "deals": 6,
    }
    return _match(table_id, chat_id, variant, players, result, False)


def _match(
    table_id: int,
    chat_id: int,
    variant: str,
    players: list[MatchPlayerRecord],
    result: dict[str, Any],
    eggs: bool,
) -> MatchRecord:
    return MatchRecord(
        table_id=table_id,
        chat_id=chat_id,
        variant=variant,
        players=len(players),
        started_at=START + 1000 * table_id,
        finished_at=START + 1000 * table_id + 600,
        deals=int(result["deals"]),
        goat_with_eggs=eggs,
        result=result,
        players_list=players,
    )
