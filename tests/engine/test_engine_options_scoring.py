"""Eggs "double" and ziege "tiers" (RULES.md, Options), checked against a reference scorer
written here from the rules' text, over whole random matches under every option."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kozel_rules import DealEnded, DealStarted, Match, Options
from kozel_rules.options import EGGS_VALUES, GOAT_AT_VALUES, ZIEGE_SCORING_VALUES
from kozel_rules.result import DealResult
from kozel_rules.state import OVER, GameState

CASES = [("ziege", 4), ("street", 4), ("moscow", 2), ("moscow", 3), ("moscow", 4)]


def reference_award(
    variant: str, options: Options, cp: list[int], tricks: list[int], queen_side: int | None
) -> tuple[list[int], bool]:
    """One deal's defeat points per side (before any eggs factor) and whether it was eggs,
    from RULES.md: ``cp``/``tricks`` hold only the sides in the deal."""
    n = len(cp)
    if queen_side is not None:
        award = [0] * n
        award[queen_side] = 4
        return award, False
    if n == 3:  # moscow, three players: no eggs
        best = max(cp)
        ties = cp.count(best)
        award = []
        for p, t in zip(cp, tricks, strict=True):
            if p == best:
                award.append(2 if ties > 1 else 0)
            else:
                award.append(6 if t == 0 else 4 if p <= 20 else 2)
        return award, False
    if cp[0] == cp[1]:  # 60:60
        both = 2 if variant == "moscow" and not options.eggs_double else 0
        return [both, both], True
    loser = 0 if cp[0] < cp[1] else 1
    award = [0, 0]
    if variant == "ziege" and not options.tiers:
        award[loser] = 2
    else:
        p, t = cp[loser], tricks[loser]
        award[loser] = 6 if t == 0 else 4 if p <= 30 else 2
    return award, False


def reference_out(totals: list[int], sides_in: list[int], goat_at: int) -> list[int]:
    """RULES.md "End of a match", with the goat total ``goat_at``."""
    going = [x for x in sides_in if totals[x] >= goat_at]
    if len(going) == len(sides_in):
        most = max(totals[x] for x in going)
        going = [x for x in going if totals[x] == most]
        if len(going) == len(sides_in):
            going = []
    return going


@dataclass
class Tally:
    """The running state the reference keeps between deals."""

    totals: list[int]
    sides_in: list[int]
    streak: int = 0  # eggs deals in a row before the next deal (eggs "double")


def check_deal(variant: str, options: Options, r: DealResult, tally: Tally) -> None:
    sides_in = tally.sides_in
    cp = [r.card_points[x] for x in sides_in]
    tricks = [r.tricks[x] for x in sides_in]
    queen = sides_in.index(r.queen_side) if r.queen_side is not None else None
    base, eggs = reference_award(variant, options, cp, tricks, queen)
    factor = 2**tally.streak
    assert r.multiplier == factor
    assert r.eggs == eggs
    want = [0] * len(r.defeat_points)
    for i, x in enumerate(sides_in):
        want[x] = base[i] * factor
    assert list(r.defeat_points) == want, (r, tally)
    if options.eggs_double:
        tally.streak = tally.streak + 1 if eggs else 0
    assert r.next_multiplier == 2**tally.streak
    assert r.eggs_double_next == (eggs and options.eggs_double)
    for x in sides_in:
        tally.totals[x] += want[x]
    going = reference_out(tally.totals, sides_in, options.goat_at)
    assert list(r.out) == going
    tally.sides_in = [x for x in sides_in if x not in going]


def play_and_check(variant: str, players: int, options: Options, seed: int) -> GameState:
    gs = GameState.new(variant, players, seed=seed, options=options)
    rng = random.Random(seed)
    tally = Tally([0] * gs.side_count, list(range(gs.side_count)))
    checked = 0
    while gs.phase != OVER:
        acts = gs.legal()
        gs.step(acts[rng.randrange(len(acts))])
        while checked < len(gs.deal_results):
            check_deal(variant, options, gs.deal_results[checked], tally)
            checked += 1
    assert len(tally.sides_in) == 1
    res = gs.match_result
    assert res is not None
    assert list(res.defeat_points) == tally.totals
    assert res.goat_at == options.goat_at
    return gs


@st.composite
def option_cases(draw: st.DrawFn) -> tuple[str, int, Options, int]:
    variant, players = draw(st.sampled_from(CASES))
    scoring = draw(st.sampled_from(ZIEGE_SCORING_VALUES)) if variant == "ziege" else "flat"
    opts = Options(
        goat_at=draw(st.sampled_from(GOAT_AT_VALUES)),
        eggs=draw(st.sampled_from(EGGS_VALUES)),
        ziege_scoring=scoring,
    )
    return variant, players, opts, draw(st.integers(0, 10**6))


@settings(max_examples=150, deadline=None)
@given(option_cases())
def test_every_deal_scores_as_the_rules_say_under_any_options(
    case: tuple[str, int, Options, int],
) -> None:
    play_and_check(*case)


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_default_options_score_as_the_rules_without_options(variant: str, players: int) -> None:
    for seed in range(40):
        play_and_check(variant, players, Options(), seed)


def _eggs_streaks(variant: str, players: int, seeds: range) -> dict[int, int]:
    """Under eggs "double": how many non-eggs deals followed k eggs deals in a row."""
    seen: dict[int, int] = {}
    opts = Options(eggs="double")
    for seed in seeds:
        gs = play_and_check(variant, players, opts, seed)
        for r in gs.deal_results:
            if not r.eggs and r.multiplier > 1:
                k = r.multiplier.bit_length() - 1
                seen[k] = seen.get(k, 0) + 1
    return seen


def test_eggs_then_a_deal_that_counts_double_happens_and_is_checked() -> None:
    """Random play reaches eggs often enough that the reference checks real doubled deals."""
    seen = _eggs_streaks("moscow", 2, range(300))
    assert seen.get(1, 0) >= 3


def test_eggs_double_against_the_plain_rules_with_the_same_play() -> None:
    """The same actions under eggs "plain" and "double": the same cards and tricks; the
    defeat points differ exactly as the option says, until one match ends."""
    doubled = 0
    for seed in range(60):
        plain = Match.new("moscow", players=2, seed=seed)
        double = Match.new("moscow", players=2, seed=seed, options={"eggs": "double"})
        rng = random.Random(seed)
        streak = 0
        while not plain.is_over and not double.is_over:
            action = rng.choice(plain.legal_actions())
            ev_plain = plain.apply(action)
            ev_double = double.apply(action)
            ends_p = [e.result for e in ev_plain if isinstance(e, DealEnded)]
            ends_d = [e.result for e in ev_double if isinstance(e, DealEnded)]
            assert len(ends_p) == len(ends_d)
            for p, d in zip(ends_p, ends_d, strict=True):
                assert p.card_points == d.card_points and p.tricks == d.tricks
                assert p.eggs == d.eggs
                assert d.multiplier == 2**streak
                if p.eggs:
                    assert p.defeat_points == (2, 2) and d.defeat_points == (0, 0)
                    streak += 1
                    assert d.next_multiplier == 2**streak and d.eggs_double_next
                    assert double.multiplier == 2**streak or double.is_over
                else:
                    assert d.defeat_points == tuple(a * 2**streak for a in p.defeat_points)
                    doubled += streak > 0
                    streak = 0
                    assert d.next_multiplier == 1 and not d.eggs_double_next
            for e in ev_double:  # the next deal (dealt after the last DealEnded) says its factor
                if isinstance(e, DealStarted):
                    assert e.multiplier == 2**streak == double.multiplier
    assert doubled >= 1  # a doubled deal after eggs was played and compared


def test_ziege_tiers_against_flat_with_the_same_play() -> None:
    """Under "tiers" the loser gets 2, 4 or 6 by its card points and tricks; "flat" always 2;
    a caught queen costs 4 under both."""
    awards: set[int] = set()
    for seed in range(80):
        flat = Match.new("ziege", seed=seed)
        tiers = Match.new("ziege", seed=seed, options={"ziege_scoring": "tiers"})
        rng = random.Random(seed)
        while not flat.is_over and not tiers.is_over:
            action = rng.choice(flat.legal_actions())
            flat.apply(action)
            tiers.apply(action)
        for f, t in zip(flat.deal_results, tiers.deal_results, strict=False):
            assert f.card_points == t.card_points and f.queen_caught == t.queen_caught
            if f.queen_caught:
                assert f.defeat_points == t.defeat_points
                assert sum(t.defeat_points) == 4
                continue
            for x in (0, 1):
                if f.defeat_points[x]:
                    assert f.defeat_points[x] == 2
                    want = 6 if t.tricks[x] == 0 else 4 if t.card_points[x] <= 30 else 2
                    assert t.defeat_points[x] == want
                    awards.add(want)
    assert awards >= {2, 4}  # random play reaches both tiers (6 too, rarely)
