"""What defeat points are worth: the chance to win the match from given totals.

A deal's result matters through the match: two points to the opponents are worth more when
they then have 10 than when they have 0, and nothing is worth more than not going out. The
``strong`` player therefore scores a playout by the chance its side then wins the match,
:func:`win_chance`, computed by dynamic programming over the remaining deals under a simple
model: equal players, each deal's awards drawn from the distribution below (measured from
``basic`` against ``basic``, 3000 deals per case, then made symmetric between the sides),
and docs/rules.md's match end (12+ is out, unless that would put out everybody still in; with
three players the last two play on with two-side scoring).
"""

from __future__ import annotations

from functools import cache
from itertools import permutations

# Awards of one deal as (loser's award, probability) for two sides, measured (see above).
# A pair (x, x) of both sides is an equal award (street 0:0 eggs, moscow 60:60 both 2).
_TWO_SIDES: dict[tuple[str, int], tuple[tuple[tuple[int, int], float], ...]] = {
    ("ziege", 4): (((0, 2), 0.674), ((0, 4), 0.317), ((0, 0), 0.009)),
    ("street", 4): (((0, 2), 0.687), ((0, 4), 0.292), ((0, 6), 0.009), ((0, 0), 0.013)),
    ("moscow", 2): (((0, 2), 0.853), ((0, 4), 0.126), ((2, 2), 0.021)),
    ("moscow", 4): (((0, 2), 0.685), ((0, 4), 0.299), ((0, 6), 0.004), ((2, 2), 0.012)),
}
# three players (moscow): awards sorted high to low, probability over all seatings
_THREE_SIDES: tuple[tuple[tuple[int, int, int], float], ...] = (
    ((2, 2, 0), 0.412),
    ((4, 2, 0), 0.488),
    ((4, 4, 0), 0.070),
    ((2, 2, 2), 0.008),
    ((6, 2, 0), 0.018),
    ((4, 2, 2), 0.003),
    ((6, 4, 0), 0.001),
)

OUT_AT = 12


@cache
def _outcomes(variant: str, players: int, sides: int) -> list[tuple[tuple[int, ...], float]]:
    """Every award vector for ``sides`` sides still in, with its probability."""
    if sides == 3:
        table: dict[tuple[int, ...], float] = {}
        for awards, p in _THREE_SIDES:
            perms = set(permutations(awards))
            for a in perms:
                table[a] = table.get(a, 0.0) + p / len(perms)
        return _normalized(table)
    base = _TWO_SIDES.get((variant, players)) or _TWO_SIDES[("moscow", 2)]
    out: dict[tuple[int, ...], float] = {}
    for (x, y), p in base:
        for a in {(x, y), (y, x)}:
            out[a] = out.get(a, 0.0) + p / len({(x, y), (y, x)})
    return _normalized(out)


def _normalized(table: dict[tuple[int, ...], float]) -> list[tuple[tuple[int, ...], float]]:
    total = sum(table.values())
    return [(a, p / total) for a, p in table.items()]


def going_out(totals: tuple[int, ...]) -> set[int]:
    """Indices of the totals that go out (docs/rules.md "End of a match")."""
    going = {i for i, t in enumerate(totals) if t >= OUT_AT}
    if len(going) == len(totals):
        top = max(totals)
        going = {i for i, t in enumerate(totals) if t == top}
        if len(going) == len(totals):
            return set()
    return going


@cache
def _chances(variant: str, players: int, totals: tuple[int, ...]) -> tuple[float, ...]:
    """Each side's chance to win the match from ``totals`` (sides still in, none out yet)."""
    n = len(totals)
    if n == 1:
        return (1.0,)
    win = [0.0] * n
    stay = 0.0  # probability of a deal that leads back here (0:0, or a tie at the end)
    for awards, p in _outcomes(variant, players, n):
        new, going = _settle(tuple(t + a for t, a in zip(totals, awards, strict=True)))
        if not going and new == totals:
            stay += p
            continue
        for i, w in enumerate(_after(variant, players, new, going)):
            win[i] += p * w
    return tuple(w / (1.0 - stay) for w in win)


def _settle(new: tuple[int, ...]) -> tuple[tuple[int, ...], set[int]]:
    """The totals after a deal and the sides that go out; sides all tied at 12 or more (so
    nobody goes out) are as well off as all tied at 11."""
    going = going_out(new)
    if not going and new[0] >= OUT_AT:
        new = (OUT_AT - 1,) * len(new)
    return new, going


def _after(variant: str, players: int, new: tuple[int, ...], going: set[int]) -> tuple[float, ...]:
    if not going:
        return _chances(variant, players, new)
    stay = [i for i in range(len(new)) if i not in going]
    sub = _chances(variant, players, tuple(new[i] for i in stay))
    out = [0.0] * len(new)
    for j, i in enumerate(stay):
        out[i] = sub[j]
    return tuple(out)


def after_deal(
    variant: str, players: int, totals: tuple[int, ...], awards: tuple[int, ...]
) -> tuple[float, ...]:
    """Each side's chance to win once ``awards`` are added to ``totals`` (sides still in)."""
    new, going = _settle(tuple(t + a for t, a in zip(totals, awards, strict=True)))
    return _after(variant, players, new, going)


def win_chance(
    variant: str,
    players: int,
    totals: tuple[int, ...],
    awards: tuple[int, ...],
    sides_in: tuple[int, ...],
    side: int,
) -> float:
    """The chance that ``side`` wins the match after a deal gave ``awards`` (per side) to the
    ``totals`` (per side, before the deal) of the sides in ``sides_in``."""
    t = tuple(totals[x] for x in sides_in)
    a = tuple(awards[x] for x in sides_in)
    return after_deal(variant, players, t, a)[sides_in.index(side)]


__all__ = ["after_deal", "going_out", "win_chance"]
