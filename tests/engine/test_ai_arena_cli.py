"""The arena (whole matches, sides swapped) and the ``arena`` / ``play`` subcommands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kozel_rules.ai import Budget
from kozel_rules.ai.arena import (
    Contestant,
    percentile,
    run_arena,
    run_deals,
    seat_kinds,
    wilson,
)

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kozel_rules", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def test_wilson_interval_and_percentile() -> None:
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(50, 50)
    assert hi == 1.0 and lo == pytest.approx(0.9287, abs=1e-3)
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    assert percentile([float(x) for x in range(1, 101)], 0.95) == 95.0


def test_seatings_swap_sides_evenly() -> None:
    assert seat_kinds(4, 0) == ["A", "B", "A", "B"]
    assert seat_kinds(4, 1) == ["B", "A", "B", "A"]
    assert seat_kinds(2, 1) == ["B", "A"]
    assert [seat_kinds(3, r) for r in range(3)] == [
        ["A", "B", "B"],
        ["B", "A", "B"],
        ["B", "B", "A"],
    ]


@pytest.mark.parametrize(
    ("variant", "players", "matches", "at_least"),
    [("street", 4, 8, 7), ("moscow", 2, 8, 7), ("ziege", 4, 8, 5), ("moscow", 3, 6, 4)],
)
def test_basic_beats_random(variant: str, players: int, matches: int, at_least: int) -> None:
    r = run_arena(variant, players, Contestant("basic"), Contestant("random"), matches, seed=1)
    assert len(r.matches) == matches
    assert r.a_wins >= at_least, r.lines()
    # every deal sequence is played in every seating
    seeds = [m.seed for m in r.matches]
    rot = 2 if players != 3 else 3
    assert all(seeds[i] == seeds[i - i % rot] for i in range(len(seeds)))
    assert {m.kinds for m in r.matches} == {tuple(seat_kinds(players, k)) for k in range(rot)}


def test_arena_command_prints_the_win_rate_and_move_times() -> None:
    done = run(
        "arena", "--variant", "moscow", "--players", "3", "--a", "strong", "--b", "random",
        "--matches", "3", "--seed", "2", "--budget", "240",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "moscow 3p: A=strong[240] vs B=random (one A against two B): A won" in out
    assert "95% CI" in out and "outlasted a B" in out
    assert "move time A=strong[240]: median" in out and "move time B=random: median" in out


@pytest.mark.parametrize(("variant", "players"), [("street", 4), ("moscow", 3)])
def test_deals_measure_basic_against_random(variant: str, players: int) -> None:
    r = run_deals(variant, players, Contestant("basic"), Contestant("random"), 12, seed=1)
    rot = 2 if players == 4 else 3
    assert len(r.deals) == 12 * rot
    # every sequence's first deal in every seating, from the same decks
    assert {(d.seed, d.rotation) for d in r.deals} == {
        (f"deals/1/{i}", k) for i in range(12) for k in range(rot)
    }
    value, se = r.estimate(lambda d: d.value)
    assert se > 0 and value > 3 * se, r.lines()  # basic clearly better, by many SE
    margin, _ = r.estimate(lambda d: d.card_margin)
    assert margin > 20
    # the same sides swapped: the mirror image, the same size
    back = run_deals(variant, players, Contestant("random"), Contestant("basic"), 12, seed=1)
    assert back.estimate(lambda d: d.value)[0] < -3 * se
    if players == 4:
        assert back.estimate(lambda d: d.card_margin)[0] < -20


def test_arena_command_deals_prints_the_estimate() -> None:
    done = run(
        "arena", "--variant", "street", "--a", "basic", "--b", "random", "--deals", "6",
        "--seed", "3", "--jobs", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "street 4p: A=basic vs B=random: first deals of 6 sequences, every seating" in out
    assert "less an equal share: +" in out and "(SE " in out and "deals won by A:" in out
    assert "CPU time A=basic: median" in out


def test_arena_command_refuses_a_bad_player_count() -> None:
    done = run("arena", "--variant", "street", "--players", "3", "--a", "basic", "--b", "random")
    assert done.returncode == 2
    assert "street is played by 4 players" in done.stderr


def test_play_a_whole_match_from_piped_input() -> None:
    # always the first listed move; the computer players are basic to keep it quick
    done = run(
        "play", "--variant", "street", "--level", "basic", "--seed", "4",
        stdin="x\n9999\n" + "1\n" * 3000,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Kozel, street, 4 players; you are seat 0" in out
    assert "Your hand:" in out and "Your moves:" in out and "   1) " in out
    assert "Type a number from 1 to" in out  # "x" and "9999" were refused
    assert "Defeat points:" in out and "Match over after" in out
    assert "the goat" in out


def test_play_moscow_for_two_and_quit() -> None:
    done = run("play", "--variant", "moscow", "--players", "2", "--level", "strong",
               "--budget", "240", "--seed", "1", stdin="1\n1\nq\n")  # fmt: skip
    assert done.returncode == 1
    assert "Kozel, moscow, 2 players" in done.stdout and "Bye." in done.stdout


def test_strong_beats_random_with_a_small_budget() -> None:
    strong = Contestant("strong", Budget(work=1500))
    r = run_arena("moscow", 2, strong, Contestant("random"), 4, seed=3)
    assert r.a_wins == 4, r.lines()


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players"), [("street", 4), ("ziege", 4), ("moscow", 3)])
def test_strong_beats_basic(variant: str, players: int) -> None:
    """About half a minute each: strong (default budget) against basic over 12 matches."""
    r = run_arena(variant, players, Contestant("strong"), Contestant("basic"), 12, seed=5)
    # measured (python -m kozel_rules arena, 200 matches): strong wins 80-90%
    assert r.a_wins >= 7, r.lines()
