"""Properties of matches under house rules: saved and copied states keep the options and play
on identically, playouts agree with step(), and default options are no options at all."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kozel_rules import Match, Options
from kozel_rules.options import EGGS_VALUES, GOAT_AT_VALUES, ZIEGE_SCORING_VALUES
from kozel_rules.state import OVER

CASES = [("ziege", 4), ("street", 4), ("moscow", 2), ("moscow", 3), ("moscow", 4)]


@st.composite
def tables(draw: st.DrawFn) -> tuple[str, int, Options]:
    variant, players = draw(st.sampled_from(CASES))
    scoring = draw(st.sampled_from(ZIEGE_SCORING_VALUES)) if variant == "ziege" else "flat"
    opts = Options(
        goat_at=draw(st.sampled_from(GOAT_AT_VALUES)),
        eggs=draw(st.sampled_from(EGGS_VALUES)),
        ziege_scoring=scoring,
    )
    return variant, players, opts


@settings(max_examples=60, deadline=None)
@given(tables(), st.integers(0, 10**6), st.integers(0, 400))
def test_json_round_trip_under_options(
    table: tuple[str, int, Options], seed: int, plies: int
) -> None:
    variant, players, opts = table
    m = Match.new(variant, players, seed=seed, options=opts)
    rng = random.Random(seed)
    for _ in range(plies):
        if m.is_over:
            break
        m.apply(rng.choice(m.legal_actions()))
    rec = m.to_json()
    assert ("options" in rec) == (not opts.is_default)
    back = Match.from_json(json.loads(json.dumps(rec, ensure_ascii=False)))
    assert back.options == opts and back.goat_at == opts.goat_at
    assert back.to_json() == rec
    # the same state (the record gives the decks dealt so far, so ``decks`` may differ)
    snap, snap_back = m._st.snapshot(), back._st.snapshot()
    del snap["decks"], snap_back["decks"]
    assert snap_back == snap
    copied = m.copy()
    # all three play on identically
    for _ in range(200):
        if m.is_over:
            break
        action = rng.choice(m.legal_actions())
        events = m.apply(action)
        assert back.apply(action) == events == copied.apply(action)
    assert back.deal_results == m.deal_results == copied.deal_results
    assert back.result == m.result


@settings(max_examples=40, deadline=None)
@given(tables(), st.integers(0, 10**6), st.integers(0, 300))
def test_playouts_under_options_equal_legal_and_step(
    table: tuple[str, int, Options], seed: int, plies: int
) -> None:
    """The computer players' fast playout ends the deal under the same rules as step()."""
    variant, players, opts = table
    m = Match.new(variant, players, seed=seed, options=opts)
    rng = random.Random(seed)
    for _ in range(plies):
        if m.is_over:
            break
        m.apply(rng.choice(m.legal_actions()))
    if m.is_over:
        return
    fast, ref = m.state_copy(), m.state_copy()
    result = fast.playout(random.Random(seed))
    ref.hold = True
    r = random.Random(seed)
    while ref.phase < OVER:
        acts = ref.legal()
        ref.step(acts[int(r.random() * len(acts))])
    assert result == ref.deal_results[m.deal_number - 1]
    assert fast.snapshot() == ref.snapshot()
    assert fast.options == opts and fast.out_at == opts.goat_at


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CASES), st.integers(0, 10**6))
def test_default_options_are_no_options(case: tuple[str, int], seed: int) -> None:
    variant, players = case
    ms = [
        Match.new(variant, players, seed=seed),
        Match.new(variant, players, seed=seed, options=None),
        Match.new(variant, players, seed=seed, options={}),
        Match.new(variant, players, seed=seed, options=Options()),
        Match.new(variant, players, seed=seed, options={"goat_at": 12, "eggs": "plain"}),
    ]
    rng = random.Random(seed)
    while not ms[0].is_over:
        action = rng.choice(ms[0].legal_actions())
        for m in ms:
            m.apply(action)
    first = ms[0]
    for m in ms[1:]:
        assert m.to_json() == first.to_json()
        assert m.deal_results == first.deal_results and m.result == first.result
    assert all(r.multiplier == 1 == r.next_multiplier for r in first.deal_results)
