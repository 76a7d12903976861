"""The seers: measuring sticks that see the hidden cards, never a level."""

from __future__ import annotations

import random

import pytest

from kozel_rules import Match
from kozel_rules.ai import LEVELS, choose
from kozel_rules.ai.arena import Contestant, run_deals
from kozel_rules.ai.seer import SEERS, seer_choice
from kozel_rules.state import to_action


def test_a_seer_is_never_a_level() -> None:
    assert not set(SEERS) & set(LEVELS)
    m = Match.new("street", seed=1)
    with pytest.raises(ValueError):
        choose(m, m.to_move, level="seer", rng=random.Random(1))


def _stock_reordered(seed: int) -> tuple[Match, Match]:
    """Two street matches with the same hands and shown trump card, the stock in another
    order."""
    deck = list(range(36))
    random.Random(seed).shuffle(deck)
    other = deck[:]
    stock = other[16:26] + other[27:]  # the 11th card of the stock (index 26) is shown
    random.Random(seed + 1).shuffle(stock)
    other[16:26], other[27:] = stock[:10], stock[10:]
    assert other != deck and other[26] == deck[26]
    return (
        Match.new("street", seed=seed, dealer=3, decks=[deck]),
        Match.new("street", seed=seed, dealer=3, decks=[other]),
    )


def test_seer_hands_does_not_see_the_stock_order() -> None:
    differs = 0
    for seed in range(12):
        m1, m2 = _stock_reordered(seed)
        seat = m1.to_move
        assert seat is not None
        a1 = seer_choice(m1, seat, "seer-hands", random.Random(5))
        assert a1 == seer_choice(m2, seat, "seer-hands", random.Random(5))
        assert to_action(a1) in m1.legal_actions()
        s1 = seer_choice(m1, seat, "seer", random.Random(5))
        differs += s1 != seer_choice(m2, seat, "seer", random.Random(5))
    # the seer reads the stock: its first lead changes with the draws in some of these deals
    assert differs > 0


def test_the_seer_beats_basic_by_many_standard_errors() -> None:
    r = run_deals("street", 4, Contestant("seer"), Contestant("basic"), 12, seed=1)
    value, se = r.estimate(lambda d: d.value)
    assert se > 0 and value > 3 * se, r.lines()
