"""House rules (RULES.md "Options"): a match is made with them, keeps them, and obeys them."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from kozel_rules import Match, Options, RecordError, replay
from kozel_rules.scoring import sides_going_out


def _play_out(m: Match, seed: int) -> Match:
    rng = random.Random(seed)
    while not m.is_over:
        m.apply(rng.choice(m.legal_actions()))
    return m


# ------------------------------------------------------------------ making a match


@pytest.mark.parametrize(
    "given",
    [None, {}, Options(), {"goat_at": 12}, {"eggs": "plain"}],
)
def test_no_options_are_the_defaults(given: Any) -> None:
    m = Match.new("street", seed=1, options=given)
    assert m.options == Options()
    assert m.goat_at == 12
    assert "options" not in m.to_json()


def test_options_given_as_a_record_or_a_value_are_the_same() -> None:
    a = Match.new("ziege", seed=2, options={"goat_at": 8, "ziege_scoring": "tiers"})
    b = Match.new("ziege", seed=2, options=Options(goat_at=8, ziege_scoring="tiers"))
    assert a.options == b.options == Options(goat_at=8, ziege_scoring="tiers")
    assert a.goat_at == b.goat_at == 8


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("street", {"goat_at": "6"}),  # a string is not a number
        ("street", {"goat_at": True}),
        ("street", {"goat_at": 7}),
        ("street", {"eggs": "triple"}),
        ("street", {"colour": "red"}),
        ("street", {"ziege_scoring": "tiers"}),  # ziege only
        ("moscow", {"ziege_scoring": "flat"}),  # even at its default
        ("moscow", ["goat_at", 6]),
        ("moscow", Options(goat_at=5)),
        ("street", Options(ziege_scoring="tiers")),
    ],
)
def test_a_bad_option_is_refused_when_the_match_is_made(variant: str, options: Any) -> None:
    with pytest.raises(RecordError):
        Match.new(variant, options=options)


# ------------------------------------------------------------------ keeping them


def test_records_without_options_are_as_before() -> None:
    m = _play_out(Match.new("moscow", players=3, seed=5), 5)
    rec = m.to_json()
    assert list(rec) == ["format", "variant", "players", "seed", "dealer", "decks", "actions"]


def test_options_survive_copies_and_json() -> None:
    opts = Options(goat_at=6, eggs="double")
    m = Match.new("moscow", players=2, seed=9, options=opts)
    rng = random.Random(9)
    for _ in range(7):
        m.apply(rng.choice(m.legal_actions()))
    rec = m.to_json()
    assert rec["options"] == {"goat_at": 6, "eggs": "double"}
    back = Match.from_json(json.loads(json.dumps(rec)))
    assert back.options == opts
    assert back.to_json() == rec
    assert m.copy().options == opts
    st = m.state_copy()
    assert st.options == opts and st.out_at == 6
    # the copy plays on under the same rules: the same actions, the same result
    _play_out(m, 11)
    _play_out(back, 11)
    assert back.result == m.result and back.deal_results == m.deal_results
    assert m.result is not None and m.result.goat_at == 6


# ------------------------------------------------------------------ goat_at


def test_who_goes_out_with_a_lower_goat_total() -> None:
    assert sides_going_out([6, 4], [0, 1], 6) == [0]
    assert sides_going_out([5, 4], [0, 1], 6) == []
    assert sides_going_out([8, 6], [0, 1], 6) == [0]  # both 6+: the most
    assert sides_going_out([6, 6, 2], [0, 1, 2], 6) == [0, 1]


@pytest.mark.parametrize("goat_at", [6, 8, 10, 12])
@pytest.mark.parametrize(
    ("variant", "players"),
    [("ziege", 4), ("street", 4), ("moscow", 2), ("moscow", 3), ("moscow", 4)],
)
def test_the_match_ends_at_the_goat_total(variant: str, players: int, goat_at: int) -> None:
    """Before the last deal every side still in had less than the goat total, or all those at
    it or over were tied with everybody (nobody out); the goats reached it."""
    for game in range(3):
        m = _play_out(Match.new(variant, players, seed=game, options={"goat_at": goat_at}), game)
        res = m.result
        assert res is not None and res.goat_at == goat_at
        totals = [0] * m.sides
        sides_in = list(range(m.sides))
        for deal in m.deal_results:
            for x in sides_in:
                totals[x] += deal.defeat_points[x]
            want = sides_going_out(totals, sides_in, goat_at)
            assert list(deal.out) == want
            for x in want:
                assert totals[x] >= goat_at
            sides_in = [x for x in sides_in if x not in want]
        assert tuple(totals) == res.defeat_points
        assert all(res.defeat_points[x] >= goat_at for x in res.goats)
        assert all(res.defeat_points[x] < goat_at or len(sides_in) == 1 for x in res.winners)


def test_a_lower_goat_total_ends_the_same_deals_sooner() -> None:
    """The same seed and the same choices: with goat_at=6 the match is a prefix of the match
    to 12, cut at the first deal that puts a side at 6 or more."""
    full = _play_out(Match.new("street", seed=4), 4)
    short = Match.new("street", seed=4, options={"goat_at": 6})
    for text in full.history:
        if short.is_over:
            break
        short.apply(text)
    assert short.is_over
    cut = short.result
    assert cut is not None
    n = cut.deals
    assert [d.defeat_points for d in short.deal_results] == [
        d.defeat_points for d in full.deal_results[:n]
    ]
    totals = [sum(d.defeat_points[x] for d in full.deal_results[: n - 1]) for x in (0, 1)]
    assert max(totals) < 6 <= max(cut.defeat_points)


# ------------------------------------------------------------------ replay


@pytest.mark.parametrize("options", [None, {}, {"goat_at": 12, "eggs": "plain"}])
def test_replay_without_options_is_as_before(options: Any) -> None:
    m = _play_out(Match.new("street", seed=3), 3)
    base = {k: v for k, v in m.to_json().items() if k != "format"}
    want = replay(base)
    assert want["ok"] and want["match_over"]
    rec = dict(base)
    rec["options"] = options
    assert replay(rec) == want


@pytest.mark.parametrize(
    "options",
    [{"goat_at": 9}, {"eggs": 2}, {"nope": 1}, "goat_at=6", [6], {"ziege_scoring": "tiers"}],
)
def test_replay_reports_a_bad_option_as_an_error_of_the_record(options: Any) -> None:
    got = replay({"variant": "street", "options": options, "actions": ["1 lead 9♠"]})
    assert got["ok"] is False
    assert got["error"]["index"] is None
    assert got["legal"] is None and got["deals"] == []


def test_replay_follows_goat_at() -> None:
    m = _play_out(Match.new("moscow", players=2, seed=8), 8)
    rec = {k: v for k, v in m.to_json().items() if k != "format"}
    rec["options"] = {"goat_at": 6}
    got = replay(rec)
    # the actions past the end of the shorter match are an error at the first one of them
    short = Match.new("moscow", players=2, seed=8, dealer=rec["dealer"], decks=rec["decks"],
                      options={"goat_at": 6})  # fmt: skip
    stop = None
    for i, text in enumerate(rec["actions"]):
        if short.is_over:
            stop = i
            break
        short.apply(text)
    assert stop is not None, "the match to 6 ends before the match to 12"
    assert got["error"]["index"] == stop
    assert got["match_over"] is True
    assert max(got["defeat_points"]) >= 6
    assert got["out"] == list(short.out)
