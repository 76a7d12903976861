"""What runs when a table's wait is over: a computer's move, a special lead, a timeout."""

from __future__ import annotations

import asyncio
import random
from html import escape

from kozel_rules.action import Action
from kozel_rules.ai import Budget, choose, interrupt
from kozel_rules.match import Match

from ..storage import Actor, Priority, TableRecord, TableStatus
from ..turn_clock import MAX_TIMEOUTS
from . import closing, deadlines, feed
from .commit import commit
from .core import Core
from .ports import Due, DueKind
from .retry import retry_stale
from .translators import chat_t


@retry_stale
async def fire(core: Core, due: Due) -> None:
    """Run a due job, unless the table has moved on since it was scheduled."""
    if due.kind is DueKind.EXPIRE:
        await closing.expire(core, due)
        return
    async with core.table_locks.hold(due.table_id):
        table = await core.storage.tables.get(due.table_id)
        if table is None or table.status != TableStatus.PLAYING:
            return
        match = core.matches.of(table)
        if match.ply != due.ply:
            return
        if due.kind is DueKind.COMPUTER:
            await _computer_move(core, table, match)
        elif due.kind is DueKind.SPECIAL:
            await _special_move(core, table, match, due.seat)
        elif due.kind is DueKind.HURRY:
            await _hurry(core, table, match, due.seat)
        else:
            await _timeout_move(core, table, match)


async def _computer_move(core: Core, table: TableRecord, match: Match) -> None:
    seat = match.to_move
    if seat is None or not deadlines.is_computer_turn(table, match):
        return
    level = table.seats[seat].ai_level or core.settings.default_ai_level
    action = await _choose(core, match, seat, level, seed=table.seed + match.ply)
    await commit(core, table, match, action, by=Actor.COMPUTER)


async def _special_move(core: Core, table: TableRecord, match: Match, seat: int | None) -> None:
    if seat is None or deadlines.computer_with_special(table, match) != seat:
        return
    level = table.seats[seat].ai_level or core.settings.default_ai_level
    action = await _declare(match, seat, level, seed=table.seed + match.ply)
    if action is not None:
        await commit(core, table, match, action, by=Actor.COMPUTER)


async def _hurry(core: Core, table: TableRecord, match: Match, seat: int | None) -> None:
    """The turn timer is nearly out: the hand shows the seconds left (an edit, no sound)."""
    if seat is None or seat != match.to_move or table.seats[seat].user_id is None:
        return
    await feed.owe(core, [feed.hand(core, table, seat, Priority.TURN)])


async def _timeout_move(core: Core, table: TableRecord, match: Match) -> None:
    seat = match.to_move
    if seat is None or deadlines.is_computer_turn(table, match):
        return
    record = table.seats[seat]
    record.timeouts += 1
    t = await chat_t(core, table.chat_id)
    name = escape(record.name)
    if record.timeouts >= MAX_TIMEOUTS:
        record.away = True
        note = t._(
            "⏰ {name} ran out of time again — a computer plays for them until they are back.",
            name=name,
        )
    else:
        note = t._("⏰ {name} ran out of time — a computer played for them.", name=name)
    level = core.settings.default_ai_level
    action = await _choose(core, match, seat, level, seed=table.seed + match.ply)
    await commit(core, table, match, action, by=Actor.TIMER, note=note)


# A strong player searches for up to a few hundred milliseconds: that runs in a worker thread
# so the bot keeps answering presses at other tables meanwhile. Seeded per move: reproducible.


async def _choose(core: Core, match: Match, seat: int, level: str, *, seed: int) -> Action:
    text = core.settings.ai_budget
    budget = None if text is None else Budget.parse(text)  # None: each level's own
    return await asyncio.to_thread(
        choose, match, seat, level=level, rng=random.Random(seed), budget=budget
    )


async def _declare(match: Match, seat: int, level: str, *, seed: int) -> Action | None:
    return await asyncio.to_thread(interrupt, match, seat, level=level, rng=random.Random(seed))
