"""A finished match as the ladder stores it, and engine results as JSON for the log."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any

from kozel_rules.match import Match

from ..storage import Actor, LogEntry, LogKind, MatchPlayerRecord, MatchRecord, TableRecord


def jsonable(value: Any) -> Any:
    """Results as JSON: enums (the trump suit) by their symbol."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, Enum):
        return str(value)
    return value


@dataclass(frozen=True)
class Waits:
    """Who waited for whom at one seat: turns the timer played, and deals in which a computer
    played for the person."""

    timeouts: int = 0
    stand_in_deals: int = 0


def waits(table: TableRecord, log: Sequence[LogEntry]) -> dict[int, Waits]:
    """Each person's seat's waits, from the table's log in order (a deal's line follows the
    move that ended it)."""
    deal = 1
    timeouts: dict[int, int] = {}
    stood_in: dict[int, set[int]] = {}
    for entry in log:
        if entry.kind is LogKind.DEAL:
            deal += 1
        elif entry.kind is LogKind.ACTION and entry.seat is not None:
            if entry.seat >= len(table.seats) or table.seats[entry.seat].person_id is None:
                continue
            if entry.by is Actor.TIMER:
                timeouts[entry.seat] = timeouts.get(entry.seat, 0) + 1
            elif entry.by is Actor.COMPUTER:
                stood_in.setdefault(entry.seat, set()).add(deal)
    seats = set(timeouts) | set(stood_in)
    return {s: Waits(timeouts.get(s, 0), len(stood_in.get(s, ()))) for s in seats}


def match_record(
    table: TableRecord, match: Match, seat_waits: Mapping[int, Waits] | None = None
) -> MatchRecord:
    """The finished match, with each player's numbers (the ladder's tallies add these up)."""
    result = match.result
    assert result is not None
    players = [_player(table, match, record.seat) for record in table.seats]
    for player in players:
        found = (seat_waits or {}).get(player.seat)
        if found is not None:
            player.timeouts, player.stand_in_deals = found.timeouts, found.stand_in_deals
    return MatchRecord(
        table_id=table.id,
        chat_id=table.chat_id,
        variant=table.variant,
        players=len(table.seats),
        started_at=table.created_at,
        finished_at=table.finished_at or time.time(),
        deals=result.deals,
        goat_with_eggs=result.goat_with_eggs,
        result=jsonable(asdict(result)),
        players_list=players,
        options=dict(table.options),  # the ladder rates it as any match; histories name them
    )


def _player(table: TableRecord, match: Match, seat: int) -> MatchPlayerRecord:
    result = match.result
    assert result is not None
    record = table.seats[seat]
    side = match.side_of(seat)
    deals_won = deals_lost = eggs = queens = tricks = points = 0
    for deal in match.deal_results:
        if deal.defeat_points[side] > 0:
            deals_lost += 1
        elif any(deal.defeat_points):
            deals_won += 1
        eggs += deal.eggs
        if deal.queen_caught and deal.queen_side is not None and deal.queen_side != side:
            queens += 1
        tricks += deal.tricks[side]
        points += deal.card_points[side]
    return MatchPlayerRecord(
        seat=seat,
        side=side,
        # A removed player's seat is still theirs: a computer only played it for them.
        user_id=record.person_id,
        name=record.name,
        ai_level=record.ai_level if record.person_id is None else None,
        won=side in result.winners,
        goat=side in result.goats,
        defeat_points=result.defeat_points[side],
        deals_won=deals_won,
        deals_lost=deals_lost,
        eggs=eggs,
        queens_caught=queens,
        tricks=tricks,
        card_points=points,
    )
