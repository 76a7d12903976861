"""Computer players under house rules: the arena and its command take ``--options``, and the
match value the strong and expert players search for uses the real goat total and eggs factor."""

from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from kozel_rules import Match, Options, RecordError
from kozel_rules.ai import LEVELS, Budget, choose
from kozel_rules.ai.arena import Contestant, run_arena, run_deals
from kozel_rules.ai.search import Scorer
from kozel_rules.ai.value import PLAIN, Table, after_deal, going_out, win_chance

ROOT = Path(__file__).resolve().parents[2]
SMALL = Budget(work=600)


def test_options_parse_from_the_command_line_form() -> None:
    assert Options.parse("goat_at=6,eggs=double", "moscow") == Options(goat_at=6, eggs="double")
    assert Options.parse("ziege_scoring=tiers goat_at=8", "ziege") == Options(8, "plain", "tiers")
    assert Options.parse("", "street") == Options()
    o = Options(goat_at=10, eggs="double")
    assert Options.parse(o.format(), "street") == o
    for bad in ("goat_at", "goat_at=7", "eggs=twice", "goat_at=6,goat_at=8", "x=1", "=6"):
        with pytest.raises(RecordError):
            Options.parse(bad, "street")
    with pytest.raises(RecordError):
        Options.parse("ziege_scoring=tiers", "moscow")


# ------------------------------------------------------------------ the match value


def test_the_goat_total_of_the_value_model() -> None:
    six = Table(goat_at=6)
    # 4 + 2 puts the opponents out at 6, not at 12
    assert win_chance("street", 4, (0, 4), (0, 2), (0, 1), 0, six) == 1.0
    assert 0.5 < win_chance("street", 4, (0, 4), (0, 2), (0, 1), 0) < 1.0
    assert going_out((6, 4), 6) == {0} and going_out((6, 6), 6) == set()
    assert after_deal("moscow", 3, (0, 0, 0), (6, 0, 2), six)[0] == 0.0
    for goat_at in (6, 8, 10, 12):
        even = win_chance("ziege", 4, (0, 0), (0, 0), (0, 1), 0, Table(goat_at=goat_at))
        assert even == pytest.approx(0.5)
    assert Table(goat_at=6).top_factor == 4 and Table(goat_at=8).top_factor == 4
    assert Table(goat_at=10).top_factor == 8 and PLAIN.top_factor == 8


def test_the_eggs_factor_of_the_value_model() -> None:
    eggs = Table(eggs_double=True)
    # at 0:10 the side at 10 is out after one lost deal anyway; with the factor at its top
    # (8) the side at 0 is out after one lost deal too: the next deal decides, 50:50
    assert win_chance("moscow", 2, (0, 10), (0, 0), (0, 1), 0, eggs, 8) == pytest.approx(0.5)
    assert win_chance("moscow", 2, (0, 10), (0, 0), (0, 1), 0, eggs, 1) > 0.9
    # plain moscow 60:60 gives both 2 (10:10 -> 12:12, nobody out); double gives nothing
    assert win_chance("moscow", 2, (10, 10), (0, 0), (0, 1), 0, eggs, 2) == pytest.approx(0.5)
    # ahead 0:8, a doubled next deal helps the side behind
    ahead_plain = win_chance("street", 4, (0, 8), (0, 0), (0, 1), 0, eggs, 1)
    ahead_double = win_chance("street", 4, (0, 8), (0, 0), (0, 1), 0, eggs, 4)
    assert ahead_double < ahead_plain
    # the tiers table of ziege loses more points per lost deal than the flat one
    tiers = win_chance("ziege", 4, (0, 0), (0, 2), (0, 1), 0, Table(tiers=True))
    flat = win_chance("ziege", 4, (0, 0), (0, 2), (0, 1), 0)
    assert tiers != flat


def test_the_scorer_takes_the_rules_from_the_match() -> None:
    m = Match.new("moscow", players=2, seed=3, options={"goat_at": 6, "eggs": "double"})
    rng = random.Random(3)
    number = m.deal_number
    while m.deal_number == number:
        m.apply(rng.choice(m.legal_actions()))
    r = m.deal_results[0]
    st = m.state_copy()
    st.defeat_points = [0, 4]
    score = Scorer(st, 0)
    assert score.rules == Table(goat_at=6, eggs_double=True)
    # 2 more to seat 1 reach 6: out, a won match (plus the card-point term)
    won = replace(r, defeat_points=(0, 2), card_points=(60, 60), next_multiplier=1)
    assert score(won) == pytest.approx(1.0)
    plain = Match.new("moscow", players=2, seed=3).state_copy()
    plain.defeat_points = [0, 4]
    assert Scorer(plain, 0)(won) < 0.99


# ------------------------------------------------------------------ the arena


@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [
        ("street", 4, Options(goat_at=6)),
        ("moscow", 2, Options(goat_at=8, eggs="double")),
        ("moscow", 3, Options(goat_at=6, eggs="double")),
        ("ziege", 4, Options(goat_at=6, eggs="double", ziege_scoring="tiers")),
    ],
)
def test_the_arena_plays_whole_matches_under_options(
    variant: str, players: int, options: Options
) -> None:
    strong = Contestant("strong", Budget(work=400))
    r = run_arena(variant, players, strong, Contestant("basic"), 2, seed=1, options=options)
    assert r.options == options
    assert f"[{options.format()}]" in r.lines()[0]
    rot = 2 if players != 3 else 3
    assert len(r.matches) == rot
    for rec in r.matches:
        # every side out reached the goat total (not 12); one side is left
        assert rec.out_order and all(rec.defeat_points[x] >= options.goat_at for x in rec.out_order)
        assert len(rec.winners) == 1


def test_every_level_moves_legally_under_options() -> None:
    m = Match.new("moscow", players=2, seed=5, options={"goat_at": 6, "eggs": "double"})
    rng = random.Random(5)
    for _ in range(30):
        for level in LEVELS:
            seat = m.to_move
            assert seat is not None
            assert m.is_legal(choose(m, seat, level=level, rng=random.Random(1), budget=SMALL))
        m.apply(rng.choice(m.legal_actions()))


def test_the_deals_measure_under_options() -> None:
    r = run_deals("moscow", 2, Contestant("basic"), Contestant("random"), 6, seed=2,
                  options=Options(goat_at=6))  # fmt: skip
    assert len(r.deals) == 12 and "[goat_at=6]" in r.lines()[0]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kozel_rules", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def test_arena_command_with_options() -> None:
    done = run(
        "arena", "--variant", "moscow", "--players", "2", "--a", "basic", "--b", "random",
        "--matches", "2", "--seed", "1", "--options", "goat_at=6,eggs=double",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "moscow 2p [goat_at=6 eggs=double]: A=basic vs B=random: A won" in done.stdout


def test_arena_command_refuses_bad_options() -> None:
    done = run("arena", "--variant", "street", "--a", "basic", "--b", "random",
               "--options", "ziege_scoring=tiers")  # fmt: skip
    assert done.returncode == 2
    assert "--options:" in done.stderr and "only in ziege" in done.stderr
    done = run("arena", "--variant", "street", "--a", "basic", "--b", "random",
               "--options", "goat_at=7")  # fmt: skip
    assert done.returncode == 2 and "goat_at" in done.stderr


def test_the_experts_replay_of_the_deal_keeps_the_rules_and_the_eggs_factor() -> None:
    """expert replays the match to the current deal's start (trace.py): under the same house
    rules, so the deal it reasons about counts as the real one does (x2 after eggs)."""
    from kozel_rules.ai.trace import replay_to_deal

    for seed in range(400):
        m = Match.new("moscow", players=2, seed=seed, options={"eggs": "double", "goat_at": 8})
        rng = random.Random(seed)
        while not m.is_over and not (m.deal_results and m.deal_results[-1].eggs):
            m.apply(rng.choice(m.legal_actions()))
        if not m.is_over:
            break
    else:
        pytest.fail("no eggs deal in 400 random matches")
    assert m.multiplier == 2
    start, actions = replay_to_deal(m)
    assert actions == []
    assert start.options == m.options and start.out_at == 8
    assert start.eggs_streak == 1 and start.defeat_points == list(m.defeat_points)
