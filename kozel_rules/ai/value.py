"""What defeat points are worth: the chance to win the match from given totals.

A deal's result matters through the match: two points to the opponents are worth more when
they then have 10 than when they have 0, and nothing is worth more than not going out. The
``strong`` player therefore scores a playout by the chance its side then wins the match,
:func:`win_chance`, computed by dynamic programming over the remaining deals under a simple
model: equal players, each deal's awards drawn from the distribution below (measured from
``basic`` against ``basic``, 3000 deals per case, then made symmetric between the sides),
and RULES.md's match end (12+ is out, unless that would put out everybody still in; with
three players the last two play on with two-side scoring).

House rules (RULES.md "Options") change the model where they change the match: the goat total
``goat_at`` replaces 12; under eggs ``double`` the equal award of a two-side deal (the eggs
outcome) gives nothing and doubles the factor of the next deal's awards (so the state of the
model is the totals *and* that factor); ziege ``tiers`` uses its own measured awards.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import permutations

from ..options import Options

# Awards of one deal as (loser's award, probability) for two sides, measured (see above).
# A pair (x, x) of both sides is an equal award (street 0:0 eggs, moscow 60:60 both 2).
_TWO_SIDES: dict[tuple[str, int], tuple[tuple[tuple[int, int], float], ...]] = {
    ("ziege", 4): (((0, 2), 0.674), ((0, 4), 0.317), ((0, 0), 0.009)),
    ("street", 4): (((0, 2), 0.687), ((0, 4), 0.292), ((0, 6), 0.009), ((0, 0), 0.013)),
    ("moscow", 2): (((0, 2), 0.853), ((0, 4), 0.126), ((2, 2), 0.021)),
    ("moscow", 4): (((0, 2), 0.685), ((0, 4), 0.299), ((0, 6), 0.004), ((2, 2), 0.012)),
    # ziege_scoring "tiers" (basic against basic, 3000 first deals; 4 includes the queen)
    ("ziege-tiers", 4): (((0, 2), 0.531), ((0, 4), 0.456), ((0, 6), 0.004), ((0, 0), 0.009)),
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

OUT_AT = 12  # the goat total without the option goat_at


@dataclass(frozen=True)
class Table:
    """The house rules the model plays by (RULES.md "Options")."""

    goat_at: int = OUT_AT
    eggs_double: bool = False
    tiers: bool = False

    @property
    def top_factor(self) -> int:
        """The eggs factor past which more eggs change nothing: at it, the least award (2)
        already reaches the goat total, so the next deal that is not eggs ends the match."""
        f = 1
        while 2 * f < self.goat_at:
            f *= 2
        return f


PLAIN = Table()


def table_of(options: Options) -> Table:
    return Table(options.goat_at, options.eggs_double, options.tiers)


@cache
def _outcomes(
    variant: str, players: int, sides: int, tiers: bool = False
) -> list[tuple[tuple[int, ...], float]]:
    """Every award vector for ``sides`` sides still in, with its probability."""
    if sides == 3:
        table: dict[tuple[int, ...], float] = {}
        for awards, p in _THREE_SIDES:
            perms = set(permutations(awards))
            for a in perms:
                table[a] = table.get(a, 0.0) + p / len(perms)
        return _normalized(table)
    key = f"{variant}-tiers" if tiers and variant == "ziege" else variant
    base = _TWO_SIDES.get((key, players)) or _TWO_SIDES[("moscow", 2)]
    out: dict[tuple[int, ...], float] = {}
    for (x, y), p in base:
        for a in {(x, y), (y, x)}:
            out[a] = out.get(a, 0.0) + p / len({(x, y), (y, x)})
    return _normalized(out)


def _normalized(table: dict[tuple[int, ...], float]) -> list[tuple[tuple[int, ...], float]]:
    total = sum(table.values())
    return [(a, p / total) for a, p in table.items()]


def going_out(totals: tuple[int, ...], goat_at: int = OUT_AT) -> set[int]:
    """Indices of the totals that go out (RULES.md "End of a match", goat total ``goat_at``)."""
    going = {i for i, t in enumerate(totals) if t >= goat_at}
    if len(going) == len(totals):
        top = max(totals)
        going = {i for i, t in enumerate(totals) if t == top}
        if len(going) == len(totals):
            return set()
    return going


@cache
def _chances(
    variant: str, players: int, totals: tuple[int, ...], rules: Table = PLAIN, factor: int = 1
) -> tuple[float, ...]:
    """Each side's chance to win the match from ``totals`` (sides still in, none out yet),
    the next deal's awards multiplied by ``factor`` (eggs "double")."""
    n = len(totals)
    if n == 1:
        return (1.0,)
    win = [0.0] * n
    stay = 0.0  # probability of a deal that leads back here (0:0, or a tie at the end)
    for awards, p in _outcomes(variant, players, n, rules.tiers):
        if rules.eggs_double and n == 2 and awards[0] == awards[1]:
            # eggs: nobody gets anything, the next deal counts double
            nxt = min(2 * factor, rules.top_factor)
            if nxt == factor:
                stay += p
            else:
                for i, w in enumerate(_chances(variant, players, totals, rules, nxt)):
                    win[i] += p * w
            continue
        scaled = tuple(t + a * factor for t, a in zip(totals, awards, strict=True))
        new, going = _settle(scaled, rules.goat_at)
        if not going and new == totals and factor == 1:
            stay += p
            continue
        for i, w in enumerate(_after(variant, players, new, going, rules)):
            win[i] += p * w
    return tuple(w / (1.0 - stay) for w in win)


def _settle(new: tuple[int, ...], goat_at: int = OUT_AT) -> tuple[tuple[int, ...], set[int]]:
    """The totals after a deal and the sides that go out; sides all tied at the goat total or
    more (so nobody goes out) are as well off as all tied just under it."""
    going = going_out(new, goat_at)
    if not going and new[0] >= goat_at:
        new = (goat_at - 1,) * len(new)
    return new, going


def _after(
    variant: str,
    players: int,
    new: tuple[int, ...],
    going: set[int],
    rules: Table = PLAIN,
    factor: int = 1,
) -> tuple[float, ...]:
    if not going:
        return _chances(variant, players, new, rules, factor)
    stay = [i for i in range(len(new)) if i not in going]
    sub = _chances(variant, players, tuple(new[i] for i in stay), rules, factor)
    out = [0.0] * len(new)
    for j, i in enumerate(stay):
        out[i] = sub[j]
    return tuple(out)


def after_deal(
    variant: str,
    players: int,
    totals: tuple[int, ...],
    awards: tuple[int, ...],
    rules: Table = PLAIN,
    next_factor: int = 1,
) -> tuple[float, ...]:
    """Each side's chance to win once ``awards`` (as the engine gave them: multiplied) are
    added to ``totals`` (sides still in); the deal after has the eggs factor ``next_factor``
    (a deal's ``next_multiplier``)."""
    new, going = _settle(tuple(t + a for t, a in zip(totals, awards, strict=True)), rules.goat_at)
    factor = min(next_factor, rules.top_factor)
    return _after(variant, players, new, going, rules, factor)


def win_chance(
    variant: str,
    players: int,
    totals: tuple[int, ...],
    awards: tuple[int, ...],
    sides_in: tuple[int, ...],
    side: int,
    rules: Table = PLAIN,
    next_factor: int = 1,
) -> float:
    """The chance that ``side`` wins the match after a deal gave ``awards`` (per side) to the
    ``totals`` (per side, before the deal) of the sides in ``sides_in``, under the house
    ``rules`` (the goat total, eggs "double" with the next deal's factor, ziege tiers)."""
    t = tuple(totals[x] for x in sides_in)
    a = tuple(awards[x] for x in sides_in)
    return after_deal(variant, players, t, a, rules, next_factor)[sides_in.index(side)]


__all__ = ["OUT_AT", "PLAIN", "Table", "after_deal", "going_out", "table_of", "win_chance"]
