"""docs/rules.md "End of a match": who is out, three players playing on as two, the result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kozel_rules import Match, MatchResult
from kozel_rules.result import placings
from kozel_rules.scoring import sides_going_out

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


@pytest.mark.parametrize(
    ("defeat", "sides_in", "out"),
    [
        ([12, 4], [0, 1], [0]),
        ([11, 4], [0, 1], []),
        ([14, 12], [0, 1], [0]),  # both 12+: only the one with the most
        ([12, 12], [0, 1], []),  # both 12+ and tied: nobody, another deal
        ([12, 13, 4], [0, 1, 2], [0, 1]),  # two of three at once
        ([14, 16, 12], [0, 1, 2], [1]),  # all three: only the most
        ([12, 12, 12], [0, 1, 2], []),  # all three tied: nobody
        ([14, 16, 12], [0, 2], [0]),  # side 1 already out
    ],
)
def test_who_goes_out(defeat: list[int], sides_in: list[int], out: list[int]) -> None:
    assert sides_going_out(defeat, sides_in, 12) == out


def _replay_scenario(name: str) -> Match:
    vector = json.loads((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))
    rec = vector["record"]
    m = Match.new(
        rec["variant"], players=rec["players"], seed=rec["seed"], dealer=rec["dealer"],
        decks=rec["decks"],
    )  # fmt: skip
    for a in rec["actions"]:
        m.apply_text(a)
    return m


def test_two_sides_the_side_that_is_out_is_the_goat_with_eggs() -> None:
    m = _replay_scenario("moscow2-eggs-both-2-01")
    assert m.is_over and m.to_move is None and m.legal_actions() == []
    assert m.result == MatchResult(
        defeat_points=(8, 12),
        winners=(0,),
        losers=(1,),
        goats=(1,),
        places=(1, 2),
        goat_with_eggs=True,
        deals=6,
    )


def test_three_players_one_out_the_others_play_on_as_two() -> None:
    m = _replay_scenario("moscow3-elimination-then-two-01")
    results = m.deal_results
    # side 2 went out after deal 4; in deals 5 and 6 seat 2 holds nothing and scores nothing
    assert results[3].out == (2,)
    for r in results[4:]:
        assert r.tricks[2] == 0 and r.card_points[2] == 0 and r.defeat_points[2] == 0
        assert r.first_leader != 2 and r.dealer != 2
    assert m.result is not None
    assert m.result.losers == (2, 0) and m.result.winners == (1,)
    # docs/rules.md: the first one out is the goat; placings follow the order of going out.
    assert m.result.goats == (2,) and m.result.places == (2, 1, 3)


def test_seats_that_are_out_are_skipped_in_play_and_dealing() -> None:
    m = _replay_scenario("moscow3-winner-out-next-dealer-01")
    assert m.out == (0,)
    view = m.view(None)
    assert view.in_game == (False, True, True)
    assert view.hand_sizes[0] == 0
    assert all(a.seat != 0 for a in m.legal_actions())
    trick = view.trick
    assert trick is not None and 0 not in (trick.leader, trick.due_leader)


def test_two_out_at_once_share_the_last_place_and_are_both_goats() -> None:
    m = _replay_scenario("moscow3-two-out-at-once-01")
    assert m.result is not None
    assert m.result.defeat_points == (16, 12, 8)
    assert set(m.result.losers) == {0, 1} and m.result.goats == (0, 1)
    assert m.result.winners == (2,) and m.result.places == (2, 2, 1)


@pytest.mark.parametrize(
    ("winners", "out_by_deal", "places"),
    [
        ((0,), [(1,)], (1, 2)),
        ((1,), [(2,), (0,)], (2, 1, 3)),
        ((2,), [(0, 1)], (2, 2, 1)),
        ((0,), [(1, 2)], (1, 2, 2)),
    ],
)
def test_placings(
    winners: tuple[int, ...], out_by_deal: list[tuple[int, ...]], places: tuple[int, ...]
) -> None:
    assert placings(winners, out_by_deal) == places


def test_equal_totals_at_12_play_another_deal() -> None:
    m = _replay_scenario("two-sides-equal-at-12-01")
    assert m.defeat_points == (12, 12)
    assert not m.is_over and m.out == ()
