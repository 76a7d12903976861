"""Whose turn it is and what the table waits for: deadlines, and the stored timers that end
the wait.

The timers are rows saved with the change that sets them (``timer_rows``, passed to
``tables.save``): any worker may run them (``timer_loop``). After such a save, ``wake`` only
tells this process's scheduler when the soonest one is due, so that it looks in time.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from kozel_rules.match import Match

from ..storage import TableRecord, TableStatus, Timer, TimerSlot
from ..turn_clock import DEFAULT_TIMEOUT, HURRY
from .core import Core
from .ports import Due, DueKind

RESTART_GRACE = 300.0  # seconds an expired table still gets after a restart (the downtime's)


def is_computer_turn(table: TableRecord, match: Match) -> bool:
    seat = match.to_move
    if seat is None:
        return False
    return is_played_by_computer(table, seat)


def is_played_by_computer(table: TableRecord, seat: int) -> bool:
    record = table.seats[seat]
    return record.ai_level is not None or record.away


async def timeout_of(core: Core, table: TableRecord) -> int:
    chat = await core.storage.chats.get(table.chat_id)
    return chat.turn_timeout if chat else DEFAULT_TIMEOUT


async def plan_deadlines(core: Core, table: TableRecord, match: Match) -> None:
    """Store the deadline of the seat to move (people only), so timers survive restarts."""
    timeout = await timeout_of(core, table)
    now = time.time()
    to_move = None if match.is_over else match.to_move
    for record in table.seats:
        person_turn = (
            record.seat == to_move and record.ai_level is None and not record.away and timeout > 0
        )
        record.deadline = now + timeout * core.settings.timeout_scale if person_turn else None


def computer_with_special(table: TableRecord, match: Match) -> int | None:
    """A computer seat (not to move) that may declare a molodka or Moscow now."""
    for record in table.seats:
        seat = record.seat
        if seat == match.to_move or not is_played_by_computer(table, seat):
            continue
        if any(a.verb.is_special for a in match.legal_actions(seat)):
            return seat
    return None


def expiry_period(core: Core, table: TableRecord) -> float:
    """How long a table may stay unchanged before it is closed (see ``closing``)."""
    if table.status == TableStatus.LOBBY:
        return core.settings.lobby_expiry
    return core.settings.idle_match


def _waits(core: Core, table: TableRecord, match: Match | None) -> list[Timer]:
    """What a playing table waits for now: a computer's move, or a person's timer and maybe a
    computer's special lead."""
    if match is None or match.is_over or match.to_move is None:
        return []
    if table.status != TableStatus.PLAYING:
        return []
    ply = match.ply
    ai_at = time.time() + core.settings.ai_delay
    if is_computer_turn(table, match):
        return [Timer(TimerSlot.AI, str(DueKind.COMPUTER), ply, ai_at)]
    waits = []
    deadline = table.seats[match.to_move].deadline
    if deadline is not None:
        waits.append(Timer(TimerSlot.TIMEOUT, str(DueKind.TIMEOUT), ply, deadline, match.to_move))
        if deadline - HURRY > time.time():
            # The hand shows the time left from then on (it is not edited every second).
            hurry = Timer(TimerSlot.HURRY, str(DueKind.HURRY), ply, deadline - HURRY, match.to_move)
            waits.append(hurry)
    special_seat = computer_with_special(table, match)
    if special_seat is not None:
        # A computer holding a molodka or Moscow may take the lead out of turn, like a person.
        waits.append(Timer(TimerSlot.AI, str(DueKind.SPECIAL), ply, ai_at, special_seat))
    return waits


def timer_rows(
    core: Core, table: TableRecord, match: Match | None = None, *, restart: bool = False
) -> list[Timer]:
    """The table's timers as the store keeps them, for the change being saved now (so any
    worker may run them): its waits and its expiry. None for a table that ended."""
    if not table.is_active:
        return []
    if match is None and table.status == TableStatus.PLAYING:
        match = core.matches.of(table)
    # The expiry counts from the change being saved now; after a restart, from the last one.
    since = None if restart else time.time()
    return [*_waits(core, table, match), expiry_timer(core, table, since=since, restart=restart)]


def expiry_timer(
    core: Core, table: TableRecord, *, since: float | None = None, restart: bool = False
) -> Timer:
    """The stored timer that closes the table, counted from its last change (``since``)."""
    at = (table.updated_at if since is None else since) + expiry_period(core, table)
    if restart:
        # The bot's own downtime: nobody could press anything meanwhile.
        at = max(at, time.time() + min(expiry_period(core, table), RESTART_GRACE))
    return Timer(TimerSlot.EXPIRE, str(DueKind.EXPIRE), 0, at)


def due_of(timer: Timer) -> Due:
    """The job a stored timer runs."""
    return Due(DueKind(timer.kind), timer.table_id, timer.ply, timer.seat)


def wake(core: Core, timers: Sequence[Timer]) -> None:
    """``timers`` were just stored: the scheduler looks for due timers by the soonest one."""
    if timers:
        core.scheduler.wake_by(min(timer.due_at for timer in timers))
