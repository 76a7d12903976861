"""The fast playout path makes exactly the choices of legal() + step(), and determinize()
keeps every count and every card the seat knows."""

from __future__ import annotations

import random

import pytest

from kozel_rules import Match
from kozel_rules._tables import BIT
from kozel_rules.state import OVER, GameState

CASES = [("ziege", 4), ("street", 4), ("moscow", 2), ("moscow", 3), ("moscow", 4)]
CASE_IDS = [f"{v}{p}" for v, p in CASES]


def reference_playout(st: GameState, rng: random.Random) -> None:
    """Uniform random play to the deal's end through legal() and step() only."""
    st.hold = True
    while st.phase < OVER:
        acts = st.legal()
        st.step(acts[int(rng.random() * len(acts))])


def random_position(variant: str, players: int, seed: int) -> GameState:
    """A position somewhere in a random match: mid-trick, mid-exchange, after a special…"""
    rng = random.Random(seed)
    st = GameState.new(variant, players, seed=seed, dealer=seed % players)
    for _ in range(rng.randrange(0, 120)):
        acts = st.legal()
        if not acts:
            break
        st.step(acts[rng.randrange(len(acts))])
    return st


def cross_check(variant: str, players: int, positions: int) -> int:
    checked = 0
    for seed in range(positions):
        start = random_position(variant, players, seed)
        if start.phase >= OVER:
            continue
        fast, ref = start.copy(), start.copy()
        result = fast.playout(random.Random(seed))
        reference_playout(ref, random.Random(seed))
        assert result == ref.deal_results[start.deal_number - 1]
        assert fast.snapshot() == ref.snapshot(), f"{variant}{players} seed {seed}"
        checked += 1
    return checked


@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_fast_playout_equals_legal_and_step(variant: str, players: int) -> None:
    assert cross_check(variant, players, 2000) > 1500


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_fast_playout_equals_legal_and_step_many(variant: str, players: int) -> None:
    assert cross_check(variant, players, 50000) > 40000


def test_playout_holds_the_state_and_leaves_the_original_alone() -> None:
    m = Match.new("street", seed=5)
    st = m.state_copy()
    result = st.playout(random.Random(1))
    assert result is not None and sum(result.card_points) == 120
    assert st.phase_name in ("deal-over", "over") and st.legal() == [] and st.to_move is None
    assert m.ply == 0 and m.deal_number == 1 and m.legal_actions()
    assert st.playout(random.Random(1)) is None


@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_copy_has_its_own_lists_and_shares_the_rest(variant: str, players: int) -> None:
    st = random_position(variant, players, 7)
    c = st.copy()
    assert c.snapshot() == st.snapshot()
    assert not hasattr(c, "__dict__")  # every field is a slot
    assert set(GameState.OWN_LISTS) < set(GameState.FIELDS)
    for name in GameState.FIELDS:
        mine, theirs = getattr(c, name), getattr(st, name)
        if name in GameState.OWN_LISTS:
            assert mine is not theirs and all(x is y for x, y in zip(mine, theirs, strict=True))
        else:
            assert mine is theirs
            # a list shared by copies is one the state only replaces, never changes
            assert not isinstance(mine, list) or name == "decks", name
    before = st.snapshot()
    c.playout(random.Random(3))
    assert st.snapshot() == before


def test_playout_with_a_policy() -> None:
    st = Match.new("moscow", players=3, seed=2).state_copy()
    calls = []

    def first(state: GameState, legal: list[tuple[int, int, int]]) -> tuple[int, int, int]:
        calls.append(len(legal))
        return legal[0]

    result = st.playout(random.Random(0), policy=first)
    assert result is not None and calls and all(n > 0 for n in calls)


@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_determinize_keeps_counts_and_what_the_seat_knows(variant: str, players: int) -> None:
    for seed in range(150):
        st = random_position(variant, players, seed)
        if st.phase >= OVER:
            continue
        seat = st.to_move
        assert seat is not None
        d = st.copy()
        d.determinize(seat, random.Random(seed))
        unseen = st.unseen_by(seat)
        assert d.hands[seat] == st.hands[seat]
        for s in range(players):
            assert d.hands[s].bit_count() == st.hands[s].bit_count()
            assert d.hands[s] & ~unseen == st.hands[s] & ~unseen  # known cards stay put
            assert d.piles[s].bit_count() == st.piles[s].bit_count()
            assert d.piles[s] & ~unseen == st.piles[s] & ~unseen
            if st.tables.follow:
                for key in range(5):
                    if st.voids[s] >> key & 1:
                        assert not d.hands[s] & st.tables.follow_mask[key] or s == seat
        assert len(d.stock) == len(st.stock)
        if st.trump_card_in_stock():
            assert d.stock[st.trump_stock_index] == BIT[st.trump_card]
        every = 0
        for m in (*d.hands, *d.piles, d.table_cards, *d.stock):
            assert not every & m
            every |= m
        assert every == st.tables.deck_mask
        result = d.playout(random.Random(seed))
        assert result is not None
        if not result.queen_caught:
            assert sum(result.card_points) == 120
