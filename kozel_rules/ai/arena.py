"""Whole matches between two kinds of computer player, A and B, sides swapped evenly.

What "A against B" means:

* 4 players (two teams): A holds one team (both seats), B the other. Every deal sequence
  (the decks come from a match seed) is played twice: A at seats 0+2, then at seats 1+3.
* 2 players (moscow): one A, one B; every deal sequence twice, A at seat 0, then seat 1.
* 3 players (moscow): **one A against two B**; every deal sequence three times, A at seat 0,
  1 and 2. A *wins* a match if it is the last one in. The match win rate of one of three
  equal players would be 1/3, so the arena also reports how often A *outlasts* a B (each
  match gives two such pairings, A against each B; equal players would score 50%).

The first dealer is drawn from the match seed, so each seating sees the same decks from the
same first dealer (later deals follow the play). Every seat has its own ``random.Random``
seeded from the match seed, the seat and its kind, so an arena run is reproducible.
Before every move, seats that may declare a special lead out of turn are asked first (in
order from the seat to move); the move times are those of ``choose`` for the seat to move:
wall-clock time, and the CPU time of the process (what the move costs on an idle core; the
two differ when other processes share the machine, or with ``jobs`` > 1 on few cores).

With ``jobs`` > 1 the matches are played in that many worker processes; the results are the
same as with one (every match depends only on its seed and seating).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from ..match import Match
from ..options import Options
from ..state import to_action
from . import choose, interrupt
from .search import Budget
from .seer import SEERS, seer_choice
from .value import after_deal, table_of


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a success rate (95% for ``z`` = 1.96)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by nearest rank."""
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def rotations(players: int) -> int:
    """How many seatings each deal sequence is played in."""
    return 2 if players in (2, 4) else players


def seat_kinds(players: int, rotation: int) -> list[str]:
    """``"A"`` or ``"B"`` at each seat for ``rotation`` (see the module docstring)."""
    if players == 4:
        return ["A" if s % 2 == rotation % 2 else "B" for s in range(4)]
    return ["A" if s == rotation % players else "B" for s in range(players)]


@dataclass(frozen=True)
class Contestant:
    """A kind of player: a level (or a seer, :mod:`.seer`) and, for ``strong``, its budget
    (``None``: the default)."""

    level: str
    budget: Budget | None = None

    def __str__(self) -> str:
        if self.level in ("strong", "expert") and self.budget is not None:
            return f"{self.level}[{self.budget}]"
        return self.level


# one match (or first deal) to play: variant, players, A, B, match seed, seating, options
Task = tuple[str, int, "Contestant", "Contestant", str, int, Options]


@dataclass(frozen=True)
class MatchRecord:
    seed: str
    kinds: tuple[str, ...]  # "A"/"B" per seat
    winners: tuple[int, ...]  # sides
    out_order: tuple[int, ...]  # sides in the order they went out
    deals: int
    defeat_points: tuple[int, ...]


@dataclass
class ArenaResult:
    variant: str
    players: int
    a: Contestant
    b: Contestant
    matches: list[MatchRecord] = field(default_factory=list)
    options: Options = field(default_factory=Options)  # the house rules of every match
    times: dict[str, list[float]] = field(default_factory=dict)  # "A"/"B": seconds per move
    cpu: dict[str, list[float]] = field(default_factory=dict)  # "A"/"B": CPU seconds per move

    def _a_sides(self, rec: MatchRecord) -> set[int]:
        if self.players == 4:
            return {s % 2 for s in range(4) if rec.kinds[s] == "A"}
        return {s for s in range(self.players) if rec.kinds[s] == "A"}

    @property
    def a_wins(self) -> int:
        return sum(1 for r in self.matches if set(r.winners) & self._a_sides(r))

    def outlasted(self) -> tuple[int, int]:
        """3 players: (pairings in which A outlasted a B, all pairings)."""
        won = total = 0
        for r in self.matches:
            (a_side,) = self._a_sides(r)
            # finishing order: the winner, then those out, the last one out first
            order = list(r.winners) + list(reversed(r.out_order))
            for s in range(self.players):
                if s != a_side:
                    total += 1
                    won += order.index(a_side) < order.index(s)
        return won, total

    def lines(self) -> list[str]:
        """The report: A's win rate with a 95% Wilson interval, and move times per kind."""
        n = len(self.matches)
        lo, hi = wilson(self.a_wins, n)
        rate = self.a_wins / n if n else 0.0
        what = (
            f"{self.variant} {self.players}p{_options_text(self.options)}: A={self.a} vs B={self.b}"
        )
        if self.players == 3:
            what += " (one A against two B)"
        out = [f"{what}: A won {self.a_wins}/{n} matches = {rate:.1%} (95% CI {lo:.1%}-{hi:.1%})"]
        if self.players == 3:
            won, total = self.outlasted()
            lo, hi = wilson(won, total)
            out.append(
                f"  A outlasted a B in {won}/{total} pairings = {won / max(total, 1):.1%} "
                f"(95% CI {lo:.1%}-{hi:.1%}); equal players: 33.3% of matches, 50% of pairings"
            )
        deals = sum(r.deals for r in self.matches)
        out.append(f"  {n} matches, {deals} deals")
        for kind, who in (("A", self.a), ("B", self.b)):
            t = self.times.get(kind, [])
            if t:
                out.append(f"  move time {kind}={who}: {times_text(t)} ({len(t)} moves)")
            c = self.cpu.get(kind, [])
            if c:
                out.append(f"    CPU time: {times_text(c)}")
        return out


def _options_text(options: Options) -> str:
    return f" [{options.format()}]" if not options.is_default else ""


def times_text(seconds: list[float]) -> str:
    """Median, 95th percentile and maximum of move times, in milliseconds."""
    return (
        f"median {statistics.median(seconds) * 1000:.1f} ms, "
        f"p95 {percentile(seconds, 0.95) * 1000:.1f} ms, max {max(seconds) * 1000:.1f} ms"
    )


def play_match(
    variant: str,
    players: int,
    seats: list[Contestant],
    seed: str,
    *,
    times: list[list[float]] | None = None,
    cpu: list[list[float]] | None = None,
    max_actions: int = 100_000,
    deals: int | None = None,
    options: Options | None = None,
) -> Match:
    """Play one whole match, ``seats[s]`` playing seat ``s``, under the house rules
    ``options``; returns the finished match (or, with ``deals``, the match once that many
    deals are over). ``times[s]`` collects the seconds each of seat ``s``'s moves took,
    ``cpu[s]`` the CPU seconds."""
    m = Match.new(variant, players=players, seed=seed, options=options)
    rngs = [random.Random(f"{seed}/seat{s}/{seats[s]}") for s in range(players)]
    clock = time.perf_counter
    for _ in range(max_actions):
        if m.is_over or (deals is not None and len(m.deal_results) >= deals):
            return m
        mover = m.to_move
        assert mover is not None
        special = None
        others = {a.seat for a in m.legal_actions() if a.seat != mover}
        for seat in sorted(others, key=lambda s: (s - mover) % players):
            level = seats[seat].level
            level = "basic" if level in SEERS else level  # a seer declares as basic does
            special = interrupt(m, seat, level=level, rng=rngs[seat])
            if special is not None:
                break
        if special is not None:
            m.apply(special)
            continue
        who = seats[mover]
        t0 = clock()
        c0 = time.process_time()
        if who.level in SEERS:
            action = to_action(seer_choice(m, mover, who.level, rngs[mover]))
        else:
            action = choose(m, mover, level=who.level, rng=rngs[mover], budget=who.budget)
        if times is not None:
            times[mover].append(clock() - t0)
        if cpu is not None:
            cpu[mover].append(time.process_time() - c0)
        m.apply(action)
    raise RuntimeError(f"match {seed} did not end in {max_actions} actions")


def _play_one(
    task: Task,
) -> tuple[MatchRecord, list[float], list[float], list[float], list[float]]:
    """One match of the arena: its record and A's and B's move times (wall, CPU)."""
    variant, players, a, b, match_seed, rotation, options = task
    kinds = seat_kinds(players, rotation)
    times: list[list[float]] = [[] for _ in range(players)]
    cpu: list[list[float]] = [[] for _ in range(players)]
    seats = [a if k == "A" else b for k in kinds]
    m = play_match(variant, players, seats, match_seed, times=times, cpu=cpu, options=options)
    res = m.result
    assert res is not None
    record = MatchRecord(
        seed=match_seed,
        kinds=tuple(kinds),
        winners=res.winners,
        out_order=res.losers,
        deals=res.deals,
        defeat_points=res.defeat_points,
    )

    def of(kind: str, what: list[list[float]]) -> list[float]:
        return [t for s in range(players) if kinds[s] == kind for t in what[s]]

    return record, of("A", times), of("B", times), of("A", cpu), of("B", cpu)


def run_arena(
    variant: str,
    players: int,
    a: Contestant,
    b: Contestant,
    matches: int,
    *,
    seed: int | str = 0,
    progress: Callable[[ArenaResult], None] | None = None,
    jobs: int = 1,
    options: Options | None = None,
) -> ArenaResult:
    """Play ``matches`` matches (rounded up to whole rotations) of A against B, in ``jobs``
    worker processes (1: in this one), under the house rules ``options``."""
    rot = rotations(players)
    opts = Options.of(options, variant)
    result = ArenaResult(variant, players, a, b, options=opts)
    result.times = {"A": [], "B": []}
    result.cpu = {"A": [], "B": []}
    tasks = [
        (variant, players, a, b, f"arena/{seed}/{i}", r, opts)
        for i in range(-(-matches // rot))
        for r in range(rot)
    ]

    def add(
        got: tuple[MatchRecord, list[float], list[float], list[float], list[float]], k: int
    ) -> None:
        record, ta, tb, ca, cb = got
        result.matches.append(record)
        result.times["A"] += ta
        result.times["B"] += tb
        result.cpu["A"] += ca
        result.cpu["B"] += cb
        if progress is not None and (k + 1) % rot == 0:
            progress(result)

    if jobs <= 1:
        for k, task in enumerate(tasks):
            add(_play_one(task), k)
        return result
    with ProcessPoolExecutor(jobs) as pool:
        for k, got in enumerate(pool.map(_play_one, tasks)):
            add(got, k)
    return result


@dataclass(frozen=True)
class DealRecord:
    """One first deal of the quick measure (``run_deals``): A's side's outcome."""

    seed: str
    rotation: int
    value: float  # A's chance to win the match after the deal (value.py), less an equal share
    card_margin: float  # A's card points less the others' mean
    won: bool  # A got no defeat points and another side some


@dataclass
class DealsResult:
    """The quick paired measure: the first deal of many deal sequences, each played in every
    seating. A sequence's statistic is the mean over its seatings (the cards' luck cancels),
    so the standard errors are over independent sequences."""

    variant: str
    players: int
    a: Contestant
    b: Contestant
    deals: list[DealRecord] = field(default_factory=list)
    cpu: dict[str, list[float]] = field(default_factory=dict)
    options: Options = field(default_factory=Options)

    def _per_sequence(self, what: Callable[[DealRecord], float]) -> list[float]:
        by: dict[str, list[float]] = {}
        for d in self.deals:
            by.setdefault(d.seed, []).append(what(d))
        return [sum(v) / len(v) for v in by.values()]

    def estimate(self, what: Callable[[DealRecord], float]) -> tuple[float, float]:
        """The mean of a per-deal statistic over the sequences and its standard error."""
        xs = self._per_sequence(what)
        n = len(xs)
        if n == 0:
            return (0.0, 0.0)
        mean = sum(xs) / n
        if n < 2:
            return (mean, 0.0)
        var = sum((x - mean) ** 2 for x in xs) / (n - 1)
        return (mean, math.sqrt(var / n))

    def lines(self) -> list[str]:
        n = len(self._per_sequence(lambda d: 0.0))
        what = (
            f"{self.variant} {self.players}p{_options_text(self.options)}: A={self.a} vs B={self.b}"
        )
        v, v_se = self.estimate(lambda d: d.value)
        c, c_se = self.estimate(lambda d: d.card_margin)
        w, w_se = self.estimate(lambda d: float(d.won))
        out = [
            f"{what}: first deals of {n} sequences, every seating ({len(self.deals)} deals)",
            f"  A's match win chance after the deal, less an equal share: {v:+.4f} "
            f"(SE {v_se:.4f}, z {v / v_se if v_se > 1e-9 else 0.0:+.2f})",
            f"  A's card-point margin: {c:+.2f} (SE {c_se:.2f}); deals won by A: {w:.1%} "
            f"(SE {w_se:.1%})",
        ]
        for kind, who in (("A", self.a), ("B", self.b)):
            t = self.cpu.get(kind, [])
            if t:
                out.append(f"  CPU time {kind}={who}: {times_text(t)} ({len(t)} moves)")
        return out


def _play_deal(
    task: Task,
) -> tuple[DealRecord, list[float], list[float]]:
    """The first deal of one deal sequence in one seating: A's outcome and CPU times."""
    variant, players, a, b, seed, rotation, options = task
    kinds = seat_kinds(players, rotation)
    cpu: list[list[float]] = [[] for _ in range(players)]
    seats = [a if k == "A" else b for k in kinds]
    m = play_match(variant, players, seats, seed, cpu=cpu, deals=1, options=options)
    res = m.deal_results[0]
    side = m.side_of(kinds.index("A"))
    sides = m.sides
    chances = after_deal(
        variant,
        players,
        (0,) * sides,
        res.defeat_points,
        table_of(m.options),
        res.next_multiplier,
    )
    others = [x for x in range(sides) if x != side]
    cp = res.card_points
    record = DealRecord(
        seed=seed,
        rotation=rotation,
        value=chances[side] - 1.0 / sides,
        card_margin=cp[side] - sum(cp[x] for x in others) / len(others),
        won=res.defeat_points[side] == 0 and any(res.defeat_points[x] > 0 for x in others),
    )

    def of(kind: str) -> list[float]:
        return [t for s in range(players) if kinds[s] == kind for t in cpu[s]]

    return record, of("A"), of("B")


def run_deals(
    variant: str,
    players: int,
    a: Contestant,
    b: Contestant,
    sequences: int,
    *,
    seed: int | str = 0,
    jobs: int = 1,
    options: Options | None = None,
) -> DealsResult:
    """The quick measure: the first deal of ``sequences`` deal sequences, each in every
    seating, in ``jobs`` worker processes (the same results as one), under ``options``."""
    opts = Options.of(options, variant)
    result = DealsResult(variant, players, a, b, cpu={"A": [], "B": []}, options=opts)
    tasks = [
        (variant, players, a, b, f"deals/{seed}/{i}", r, opts)
        for i in range(sequences)
        for r in range(rotations(players))
    ]
    if jobs <= 1:
        got = [_play_deal(t) for t in tasks]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            got = list(pool.map(_play_deal, tasks))
    for record, ca, cb in got:
        result.deals.append(record)
        result.cpu["A"] += ca
        result.cpu["B"] += cb
    return result


__all__ = [
    "ArenaResult",
    "Contestant",
    "DealRecord",
    "DealsResult",
    "MatchRecord",
    "percentile",
    "play_match",
    "rotations",
    "run_arena",
    "run_deals",
    "seat_kinds",
    "wilson",
]
