"""Delivery urgency: which Telegram call goes first when the budget is short.

One table (``RULES``) says, per ``Priority``, how a row ranks and ages in the sender's queue
and which of the budget's reserves it leaves alone; the sender (``rank``) and the budget
(``reserve``) ask it, the feed asks ``seat_priority``. The priorities themselves are stored
in the outbox as ints (``storage.Priority``): their values never change (a rolling upgrade
runs the release before beside this one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..storage import Priority

__all__ = [
    "AGING",
    "GROUP_RESERVE",
    "PRESSER_PATIENCE",
    "RULES",
    "TRICK_RESERVE",
    "TURN_FIRST",
    "TURN_RESERVE",
    "URGENT_FLOOR",
    "Priority",
    "Rule",
    "rank",
    "reserve",
    "seat_priority",
]

AGING = 3.0  # seconds of waiting that count as one step of priority: nothing starves
URGENT_FLOOR = 0.5  # however long a row waited, it ranks below a fresh turn ...
# ... except a presser's (the lobby, a new table's hands, a hand its press found out of date):
# people who pressed and see nothing. Past this wait it goes before the turns that have
# waited less than TURN_FIRST: new tables start while the turns take nearly the whole budget,
# and a turn never waits long behind them.
PRESSER_PATIENCE = 10.0
TURN_FIRST = 1.0

# The budget's reserves at Telegram's usual limits (``budget.Limits`` scales them down for
# smaller ones): calls of a chat's window kept back from the less urgent calls.
GROUP_RESERVE = 3  # per group window, from every table edit: for posts and answers
TRICK_RESERVE = 5  # more, from the table's edits between trick ends: for the trick ends
TURN_RESERVE = 1  # per private window, from the hands that may wait: for the player's turn


@dataclass(frozen=True)
class Rule:
    """How rows of one priority queue for the budget."""

    never_waits: bool  # ranks by age alone, above every row that may wait
    patience: float | None  # seconds after which it joins the rows that never wait
    trick_reserve: bool  # as a group's table edit, leaves the trick ends' reserve alone
    turn_reserve: bool  # in a private chat, leaves the turn's reserve alone


# fmt: off
RULES: dict[Priority, Rule] = {
    #                            never_waits  patience          trick_reserve  turn_reserve
    Priority.TURN:     Rule(True,        None,             False,         False),
    Priority.PRESSER:  Rule(False,       PRESSER_PATIENCE, True,          False),
    Priority.GROUP:    Rule(False,       None,             True,          False),
    Priority.WAITING:  Rule(False,       None,             True,          True),
    Priority.ECHO:     Rule(False,       None,             True,          True),
    Priority.CLEANUP:  Rule(False,       None,             True,          True),
}
# fmt: on


class Queued(Protocol):
    @property
    def priority(self) -> Priority: ...
    @property
    def created_at(self) -> float: ...
    @property
    def id(self) -> int: ...


def rank(item: Queued, now: float) -> tuple[float, int]:
    """Sort key: the most felt first, but a row that has waited long moves up. Never above
    what may not wait (a turn, a trick's end, a result), unless people pressed and have seen
    nothing for long (``PRESSER_PATIENCE``), and then only above such rows just owed."""
    waited = max(0.0, now - item.created_at) if now else 0.0
    rule = RULES[item.priority]
    if rule.never_waits:
        return (-waited / AGING, item.id)
    if rule.patience is not None and waited > rule.patience:
        return (-min(waited - rule.patience, TURN_FIRST) / AGING, item.id)
    return (max(item.priority - waited / AGING, URGENT_FLOOR), item.id)


def reserve(priority: Priority, *, group: bool, table_edit: bool, trick: int, turn: int) -> int:
    """Calls of the chat's window a call of ``priority`` leaves to more urgent ones (``trick``
    and ``turn``: the budget's reserves at its limits)."""
    rule = RULES[priority]
    if group:
        return trick if table_edit and rule.trick_reserve else 0
    return turn if rule.turn_reserve else 0


def seat_priority(*, started: bool = False, to_move: bool = False, quiet: bool = False) -> Priority:
    """A hand's priority after a change of the match: the seat to move never waits; at the
    start the others pressed (they sat down and wait to see their cards); otherwise those
    who only wait (``quiet``: the match is under way and their hand merely changed) go
    behind the turns and the group, and the rest (the match ended, or was found anew) as
    pressers."""
    if to_move:
        return Priority.TURN
    if started or not quiet:
        return Priority.PRESSER
    return Priority.WAITING
