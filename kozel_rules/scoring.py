"""Scoring a deal and putting sides out: pure functions of the numbers (RULES.md)."""

from __future__ import annotations

from collections.abc import Sequence

from .options import Options
from .variant import Scoring


def scoring_for(base: dict[int, Scoring], options: Options) -> dict[int, Scoring]:
    """The variant's scoring per number of sides (``base``) under the house rules."""
    return dict(base)


def score_deal(
    scoring: Scoring,
    card_points: Sequence[int],
    tricks: Sequence[int],
    sides_in: Sequence[int],
) -> tuple[list[int], bool]:
    """This deal's defeat points per side, and whether it was "eggs".

    ``card_points`` and ``tricks`` are per side (0 for sides that are out); only
    ``sides_in`` are scored. The side with the most card points gets nothing; sides tied for
    the most each get ``scoring.top_tie_award``; every other side gets its tier award
    (``scoring.award``). Eggs: two sides played and both have the same (60).
    """
    award = [0] * len(card_points)
    points = [card_points[x] for x in sides_in]
    best = max(points)
    ntop = points.count(best)
    top_award = 0 if ntop == 1 else scoring.top_tie_award
    for x in sides_in:
        p = card_points[x]
        award[x] = top_award if p == best else scoring.award(p, tricks[x])
    return award, ntop == 2 and len(sides_in) == 2


def sides_going_out(defeat: Sequence[int], sides_in: Sequence[int], out_at: int) -> list[int]:
    """The sides put out after a deal (RULES.md "End of a match"), ascending.

    Every side still in with ``out_at``+ defeat points is out, unless that would put out
    every side still in: then only those with the most are out, and nobody if all are tied.
    """
    going = [x for x in sides_in if defeat[x] >= out_at]
    if going and len(going) == len(sides_in):
        most = max(defeat[x] for x in going)
        going = [x for x in going if defeat[x] == most]
        if len(going) == len(sides_in):
            return []
    return going
