"""The coach reviews any deal of a match, not only the first: every trick number it names is
counted within the reviewed deal (issue 36: deal 2 reviews said "Trick -8", "Trick 0")."""

from __future__ import annotations

import random
from functools import cache

import pytest

from kozel_rules import Match
from kozel_rules.ai import Budget, choose
from kozel_rules.ai.coach import CoachBudget, DealReview, review_deal
from kozel_rules.event import DealStarted, TrickTaken

CASES = [("street", 4), ("ziege", 4), ("moscow", 2), ("moscow", 3), ("moscow", 4)]
# Enough search to find a careless player's mistakes, little enough for a test.
COACH = CoachBudget(search=Budget(work=3000), worlds=24)


@cache
def _match(variant: str, players: int, seed: int, careless: tuple[int, ...]) -> Match:
    """A whole match: the ``careless`` seats play at random, the others ``basic``."""
    m = Match.new(variant, players=players, seed=seed)
    rng = random.Random(seed)
    while not m.is_over:
        seat = m.to_move
        assert seat is not None
        level = "random" if seat in careless else "basic"
        m.apply(choose(m, seat, level=level, rng=rng))
    return m


def true_tricks(m: Match) -> list[tuple[int, int]]:
    """(deal, trick) of every action of the match, counted by replaying it independently:
    the tricks taken since the deal's own start, plus one."""
    rec = m.to_json()
    r = Match.new(
        rec["variant"], players=rec["players"], seed=0, dealer=rec["dealer"], decks=rec["decks"]
    )
    out, deal, taken = [], 1, 0
    for text in rec["actions"]:
        out.append((deal, taken + 1))
        for event in r.apply(text):
            if isinstance(event, TrickTaken):
                taken += 1
            elif isinstance(event, DealStarted):
                deal, taken = deal + 1, 0
    return out


def _check(m: Match, review: DealReview, deal: int) -> None:
    """Every mistake is the seat's own action of deal ``deal``, at its true trick number,
    which lies within the deal's tricks."""
    tricks = true_tricks(m)
    result = m.deal_results[deal - 1]
    most = len(result.trick_seats) + (1 if result.queen_caught else 0)
    assert review.deal == deal
    for x in review.mistakes:
        assert m.history[x.ply] == str(x.played)
        assert tricks[x.ply] == (deal, x.trick)
        assert 1 <= x.trick <= most


def _reviews(variant: str, players: int, deal_of: str) -> list[tuple[Match, DealReview, int]]:
    """Reviews of a careless seat in deal 2 (``deal_of="second"``: seat 1 plays at random) or
    in the first deal after a player went out (``"after-out"``: seats 1 and 2 play at random,
    the one still in is reviewed), over a few matches."""
    out = []
    careless = (1,) if deal_of == "second" else (1, 2)
    for seed in range(1, 40):
        m = _match(variant, players, seed, careless)
        deal, seat = 2, 1
        if deal_of == "after-out":
            outs = [r for r in m.deal_results if r.out]
            still_in = [s for s in careless if outs and m.side_of(s) not in outs[0].out]
            if not still_in:
                continue
            deal, seat = outs[0].number + 1, still_in[0]
        if not 2 <= deal <= len(m.deal_results):
            continue
        review = review_deal(m.to_json(), seat, deal=deal, seed=seed, budget=COACH)
        out.append((m, review, deal))
        if sum(len(r.mistakes) for _, r, _ in out) >= 3:
            break
    return out


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_the_coach_counts_tricks_within_deal_2(variant: str, players: int) -> None:
    reviews = _reviews(variant, players, "second")
    named = [x.trick for _, r, _ in reviews for x in r.mistakes]
    assert len(named) >= 3, f"too few mistakes to check: {named}"
    assert max(named) > 1  # not only the first trick, where a carried count might hide
    for m, review, deal in reviews:
        _check(m, review, deal)
        tricks = true_tricks(m)  # a replay of the whole match: once, not once an action
        mine = [a for k, a in enumerate(m.history) if tricks[k][0] == deal]
        assert [str(a) for a in review.plays] == [a for a in mine if a.startswith("1 ")]


def test_the_coach_counts_tricks_after_a_player_went_out() -> None:
    """moscow with three: the deal after one player went out (two play on)."""
    reviews = _reviews("moscow", 3, "after-out")
    assert sum(len(r.mistakes) for _, r, _ in reviews) >= 3
    for m, review, deal in reviews:
        assert m.deal_results[deal - 2].out and len(m.deal_results[deal - 1].tricks) == 3
        _check(m, review, deal)
