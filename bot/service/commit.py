"""Commit a move, then tell: apply -> save (with its log, the match record and what it owes
Telegram, in one transaction) -> wake the sender -> wait for the next move.

Presses (``moves``) and timers (``timers``) both play through ``commit``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import asdict

from kozel_rules.action import Action
from kozel_rules.event import DealEnded, Event, MatchEnded
from kozel_rules.match import Match

from ..storage import Actor, LogEntry, LogKind, Owed, TableRecord, TableStatus
from . import awarding, cup, deadlines, match_feed
from .change import Change
from .core import Core
from .finished_match import jsonable, match_record, waits
from .rating import rate
from .translators import chat_t

log = logging.getLogger(__name__)


async def commit(
    core: Core,
    table: TableRecord,
    match: Match,
    action: Action,
    *,
    by: Actor,
    note: str | None = None,
) -> list[Event]:
    """Apply, save, and only then tell anybody. Raises IllegalActionError (nothing changes)."""
    before = match_feed.seat_states(match)
    events = match.apply(action)
    for seat in table.seats:
        seat.selection = []
    if by is Actor.PERSON:
        table.seats[action.seat].timeouts = 0
        table.seats[action.seat].active_at = time.time()
    if note:
        table.note = note
    await deadlines.plan_deadlines(core, table, match)
    table.match_state = match.to_json()
    entries = [LogEntry(LogKind.ACTION, match.ply, action.seat, str(action), by=by)]
    entries += _event_entries(match, events)
    finished = None
    if match.is_over:
        table.status = TableStatus.FINISHED
        table.finished_at = time.time()
        # The whole log once a match: who let their turns run out, who a computer stood in for.
        logged = [*await core.storage.tables.log(table.id), *entries]
        finished = match_record(table, match, waits(table, logged))
    change = Change(events, actor=action.seat, answered=by is Actor.PERSON)
    owed = await match_feed.after_change(core, table, match, change, before)
    timers = deadlines.timer_rows(core, table, match)
    award = None
    if finished is not None:
        award = awarding.awarder(await chat_t(core, table.chat_id), table, match, owed)
    # The match record (the ladder's input) is written in the same transaction as the move,
    # and so are its achievements (the awarder puts them in the match result).
    await core.storage.tables.save(
        table,
        expected_version=table.version,
        log=entries,
        match=finished,
        rate=rate,
        award=award,
        owe=owed,
        timers=timers,
    )
    core.matches.keep(table, match)
    core.table_changed(table.id)
    deadlines.wake(core, timers)
    if finished is not None:
        await _cup_goes_on(core, table)
    return events


async def _cup_goes_on(core: Core, table: TableRecord) -> None:
    """A cup's match ended: its standings and next match (the move stands either way)."""
    try:
        await cup.after_match(core, table)
    except Exception:
        log.exception("the cup of table %s did not go on", table.id)


def _event_entries(match: Match, events: Sequence[Event]) -> list[LogEntry]:
    entries = []
    for event in events:
        if isinstance(event, DealEnded):
            text = f"deal {event.result.number}"
            data = jsonable(asdict(event.result))
            entries.append(LogEntry(LogKind.DEAL, match.ply, None, text, data, Actor.SYSTEM))
        elif isinstance(event, MatchEnded):
            data = jsonable(asdict(event.result))
            entries.append(
                LogEntry(LogKind.MATCH, match.ply, None, "match over", data, Actor.SYSTEM)
            )
    return entries


async def save_change(
    core: Core,
    table: TableRecord,
    match: Match,
    change: Change,
    *,
    log: Sequence[LogEntry] = (),
    extra: Sequence[Owed] = (),
) -> None:
    """Save a change of a running match that is not a move (a start, a return, a removal),
    with what it owes, then wait for the next move."""
    owed = await match_feed.after_change(core, table, match, change)
    timers = deadlines.timer_rows(core, table, match)
    await core.storage.tables.save(
        table,
        expected_version=table.version,
        log=log,
        owe=[*owed, *extra],
        timers=timers,
    )
    core.matches.keep(table, match)
    core.table_changed(table.id)
    deadlines.wake(core, timers)
