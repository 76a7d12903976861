"""The finished deal's last trick, which the page shows under the deal's result: replayed
from the record, for every variant and player count, as each seat (and the public) saw it."""

from __future__ import annotations

import random

import pytest

from bot.service.webapp import finished_deal_trick
from kozel_rules.match import Match


@pytest.mark.parametrize(
    ("variant", "players"),
    [("street", 4), ("ziege", 4), ("moscow", 2), ("moscow", 3), ("moscow", 4)],
)
def test_each_deal_ends_with_its_last_trick_as_each_seat_saw_it(variant: str, players: int) -> None:
    match = Match.new(variant, players=players, seed=11)
    chance = random.Random(11)
    seen = 0
    while not match.is_over:
        before = match.view(None).trick  # the trick the next action may complete
        action = chance.choice(match.legal_actions())  # special leads too
        match.apply(action)
        if len(match.deal_results) == seen:
            continue
        seen = len(match.deal_results)
        result = match.deal_results[-1]
        assert before is not None
        for seat in (None, *range(players)):
            trick = finished_deal_trick(match, seat)
            assert trick is not None and trick.taker == result.last_trick_seat
            last = trick.plays[-1]
            assert (last.seat, last.verb, last.count) == (
                action.seat,
                action.verb,
                len(action.cards),
            )
            hidden = action.verb.is_face_down and action.seat != seat
            assert last.cards == (() if hidden else action.cards)
            public = [p.count for p in before.plays]
            assert [p.count for p in trick.plays[:-1]] == public  # the same plays before it
    assert seen >= 2
