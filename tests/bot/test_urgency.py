"""Delivery urgency: one table says which call goes first when Telegram's budget is short.
What a player notices: their turn is never stuck behind news, nothing waits for ever, and a
presser who sees nothing for long gets their message before fresh turns."""

from __future__ import annotations

from bot.service import urgency
from bot.service.budget import Budget, Limits
from bot.service.sender import heads
from bot.service.urgency import AGING, PRESSER_PATIENCE, RULES, Priority, rank, seat_priority
from bot.storage import OutboxKind, Owed


def row(priority: Priority, chat: int, *, waited: float, now: float = 1000.0) -> Owed:
    item = Owed(OutboxKind.HAND, chat, priority, 7, 1)
    item.id = chat
    item.created_at = now - waited
    return item


def test_every_stored_priority_has_a_rule_and_keeps_its_stored_value() -> None:
    # Stored as ints beside the previous release: the values never change.
    assert {p.name: int(p) for p in Priority} == {
        "TURN": 0,
        "PRESSER": 1,
        "GROUP": 2,
        "WAITING": 3,
        "ECHO": 4,
        "CLEANUP": 5,
    }
    assert set(RULES) == set(Priority)
    assert [p for p, rule in RULES.items() if rule.never_waits] == [Priority.TURN]


def test_a_fresh_turn_goes_before_news_that_waited_long() -> None:
    now = 1000.0
    turn = row(Priority.TURN, 1, waited=0.0)
    old_news = row(Priority.WAITING, 2, waited=60.0)
    cleanup = row(Priority.CLEANUP, 3, waited=0.0)
    assert heads([cleanup, old_news, turn], now=now) == [turn, old_news, cleanup]


def test_waiting_moves_a_row_up_one_step_per_aging_period() -> None:
    now = 1000.0
    echo_aged = row(Priority.ECHO, 1, waited=1.5 * AGING)  # counts as 2.5
    group_fresh = row(Priority.GROUP, 2, waited=0.0)
    waiting_fresh = row(Priority.WAITING, 3, waited=0.0)
    order = sorted([waiting_fresh, echo_aged, group_fresh], key=lambda i: rank(i, now))
    assert order == [group_fresh, echo_aged, waiting_fresh]


def test_a_presser_past_patience_overtakes_fresh_turns_only() -> None:
    now = 1000.0
    presser = row(Priority.PRESSER, 1, waited=PRESSER_PATIENCE + 5.0)
    fresh_turn = row(Priority.TURN, 2, waited=0.0)
    old_turn = row(Priority.TURN, 3, waited=10.0)
    assert heads([fresh_turn, old_turn, presser], now=now) == [old_turn, presser, fresh_turn]


def test_reserves_follow_the_table() -> None:
    budget = Budget(Limits())
    lim = budget.limits
    # A group's table edit between trick ends leaves the trick ends' reserve; a trick's end not.
    assert budget.reserve_for(-100, table_edit=True, priority=Priority.GROUP) == lim.trick_reserve
    assert budget.reserve_for(-100, table_edit=True, priority=Priority.TURN) == 0
    assert budget.reserve_for(-100, table_edit=False, priority=Priority.GROUP) == 0
    # In a private chat the hands that may wait leave the turn's call alone.
    for priority in Priority:
        expected = lim.turn_reserve if priority >= Priority.WAITING else 0
        assert budget.reserve_for(101, table_edit=False, priority=priority) == expected
    assert urgency.reserve(Priority.PRESSER, group=False, table_edit=False, trick=5, turn=1) == 0


def test_a_seat_to_move_never_waits_and_the_others_wait_only_mid_match() -> None:
    assert seat_priority(to_move=True) is Priority.TURN
    assert seat_priority(started=True, to_move=True) is Priority.TURN
    assert seat_priority(started=True) is Priority.PRESSER
    assert seat_priority(quiet=False) is Priority.PRESSER  # the match ended: they look at it
    assert seat_priority(quiet=True) is Priority.WAITING
