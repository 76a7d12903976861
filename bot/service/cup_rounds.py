"""A cup's pairings and standings, as plain data (no I/O: unit-tested on their own).

Four players A B C D (their sign-up order 0..3) play three matches; partners sit opposite
(seats 0+2 and 1+3), so each person partners each other once:
round 1 A+C vs B+D, round 2 A+B vs C+D, round 3 A+D vs B+C.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# Which player (sign-up order) sits in seats 0..3 in each round.
SEATINGS: dict[int, tuple[int, int, int, int]] = {
    1: (0, 1, 2, 3),
    2: (0, 2, 1, 3),
    3: (0, 1, 3, 2),
}
ROUNDS = len(SEATINGS)


def partners(round_no: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The round's two pairs (players by sign-up order): seats 0+2 and seats 1+3."""
    seating = SEATINGS[round_no]
    return (seating[0], seating[2]), (seating[1], seating[3])


@dataclass(frozen=True)
class RoundResult:
    """A played round: the defeat points each player's side took, and who won it."""

    round_no: int
    taken: tuple[int, int, int, int]  # per player (sign-up order)
    won: tuple[bool, bool, bool, bool]


def round_result(
    round_no: int,
    side_points: Sequence[int],
    side_of_seat: Sequence[int],
    winners: Sequence[int],
    seat_of_player: Sequence[int | None],
) -> RoundResult:
    """From a finished match: ``side_points`` per side, ``side_of_seat`` per seat, the
    winning sides, and where each player (sign-up order) sat (None: not at the table: they
    left the cup, and a forfeit counts as a loss, with the losing side's points)."""
    taken = [max(side_points)] * 4
    won = [False] * 4
    for player, seat in enumerate(seat_of_player):
        if seat is not None:
            side = side_of_seat[seat]
            taken[player] = side_points[side]
            won[player] = side in winners
    return RoundResult(
        round_no, (taken[0], taken[1], taken[2], taken[3]), (won[0], won[1], won[2], won[3])
    )


@dataclass(frozen=True)
class Standing:
    player: int  # sign-up order
    taken: int  # defeat points their sides took: fewer is better
    won: int  # matches won: the tie-break
    place: int  # 1 for the best; ties share a place


def standings(results: Sequence[RoundResult]) -> list[Standing]:
    """Each player's running total, the best first: fewest defeat points taken, then most
    matches won; players equal on both share a place."""
    totals = [(sum(r.taken[p] for r in results), sum(r.won[p] for r in results)) for p in range(4)]
    order = sorted(range(4), key=lambda p: (totals[p][0], -totals[p][1], p))
    out: list[Standing] = []
    for rank, player in enumerate(order):
        taken, won = totals[player]
        tied = out and (out[-1].taken, out[-1].won) == (taken, won)
        place = out[-1].place if tied else rank + 1
        out.append(Standing(player, taken, won, place))
    return out


def winners(results: Sequence[RoundResult]) -> list[int]:
    """The players in first place (more than one: a shared win)."""
    return [s.player for s in standings(results) if s.place == 1]
