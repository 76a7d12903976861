"""Whose turn it is and what the table waits for: deadlines, and the jobs that end the wait."""

from __future__ import annotations

import time

from kozel_rules.match import Match

from ..storage import TableRecord, TableStatus, Timer
from .core import Core
from .ports import Due, DueKind

DEFAULT_TIMEOUT = 60  # seconds, for a chat that has no settings yet
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


def _slot(kind: str, table_id: int) -> str:
    return f"{kind}:{table_id}"


def expiry_period(core: Core, table: TableRecord) -> float:
    """How long a table may stay unchanged before it is closed (see ``closing``)."""
    if table.status == TableStatus.LOBBY:
        return core.settings.lobby_expiry
    return core.settings.idle_match


def arm_expiry(core: Core, table: TableRecord, *, restart: bool = False) -> None:
    """Schedule the table's expiry, counted from its last change."""
    if not table.is_active:
        return
    span = expiry_period(core, table)
    delay = max(0.0, table.updated_at + span - time.time())
    if restart:
        # The bot's own downtime: nobody could press anything meanwhile.
        delay = max(delay, min(span, RESTART_GRACE))
    due = Due(DueKind.EXPIRE, table.id, 0)
    core.scheduler.schedule(_slot("expire", table.id), delay, due)


def forget(core: Core, table_id: int) -> None:
    """A table that ended: nothing of it stays scheduled."""
    disarm(core, table_id)
    core.scheduler.cancel(_slot("expire", table_id))


def disarm(core: Core, table_id: int) -> None:
    core.scheduler.cancel(_slot("ai", table_id))
    core.scheduler.cancel(_slot("timeout", table_id))


def _waits(core: Core, table: TableRecord, match: Match | None) -> list[tuple[str, float, Due]]:
    """What a playing table waits for now (slot name, epoch time, job): a computer's move, or a
    person's timer and maybe a computer's special lead."""
    if match is None or match.is_over or match.to_move is None:
        return []
    if table.status != TableStatus.PLAYING:
        return []
    ply, table_id, now = match.ply, table.id, time.time()
    ai_at = now + core.settings.ai_delay
    if is_computer_turn(table, match):
        return [("ai", ai_at, Due(DueKind.COMPUTER, table_id, ply))]
    waits = []
    deadline = table.seats[match.to_move].deadline
    if deadline is not None:
        due = Due(DueKind.TIMEOUT, table_id, ply, match.to_move)
        waits.append(("timeout", deadline, due))
    special_seat = computer_with_special(table, match)
    if special_seat is not None:
        # A computer holding a molodka or Moscow may take the lead out of turn, like a person.
        waits.append(("ai", ai_at, Due(DueKind.SPECIAL, table_id, ply, special_seat)))
    return waits


def timer_rows(
    core: Core, table: TableRecord, match: Match | None = None, *, restart: bool = False
) -> list[Timer]:
    """The table's timers as the store keeps them, for the change being saved now (so any
    worker may run them): its waits and its expiry. None for a table that ended."""
    if not table.is_active:
        return []
    if match is None and table.status == TableStatus.PLAYING:
        match = core.match_of(table)
    rows = [
        Timer(slot, str(due.kind), due.ply, at, due.seat)
        for slot, at, due in _waits(core, table, match)
    ]
    # Counted from the change being saved now; after a restart, from the last one.
    rows.append(expiry_timer(core, table, since=None if restart else time.time(), restart=restart))
    return rows


def expiry_timer(
    core: Core, table: TableRecord, *, since: float | None = None, restart: bool = False
) -> Timer:
    """The stored timer that closes the table, counted from its last change (``since``)."""
    at = (table.updated_at if since is None else since) + expiry_period(core, table)
    if restart:
        # The bot's own downtime: nobody could press anything meanwhile.
        at = max(at, time.time() + min(expiry_period(core, table), RESTART_GRACE))
    return Timer("expire", str(DueKind.EXPIRE), 0, at)


def due_of(timer: Timer) -> Due:
    """The job a stored timer runs."""
    return Due(DueKind(timer.kind), timer.table_id, timer.ply, timer.seat)


def arm(core: Core, table: TableRecord, match: Match) -> None:
    """Schedule what the table waits for now in this process (the stored timers are the
    truth, see ``timer_rows``; this wakes this process at the right time)."""
    disarm(core, table.id)
    if match.is_over or table.status != TableStatus.PLAYING:
        forget(core, table.id)
        return
    now = time.time()
    for name, at, due in _waits(core, table, match):
        core.scheduler.schedule(_slot(name, table.id), max(0.0, at - now), due)
