"""Scoring a deal and putting sides out: pure functions of the numbers (RULES.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .options import Options
from .variant import Scoring

# ziege_scoring "tiers": the side under 61 is scored as in street (RULES.md, Options)
TIERS = Scoring(top_tie_award=0, no_trick_award=6, tiers=((31, 2), (0, 4)))


def scoring_for(base: dict[int, Scoring], options: Options) -> dict[int, Scoring]:
    """The variant's scoring per number of sides (``base``) under the house rules: ``tiers``
    scores ziege's loser as street does; eggs ``double`` gives nobody anything on 60:60 between
    two sides (moscow's "both get 2" too). Three sides have no eggs: their tie stays as it is."""
    out = dict(base)
    if options.tiers and 2 in out:
        out[2] = TIERS
    if options.eggs_double and 2 in out:
        out[2] = replace(out[2], top_tie_award=0)
    return out


def multiplier(eggs_streak: int) -> int:
    """Eggs ``double``: the factor of a deal's defeat points after ``eggs_streak`` eggs deals
    in a row (×2 after one, ×4 after two, ...)."""
    return 1 << eggs_streak


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
