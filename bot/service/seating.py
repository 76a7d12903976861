"""Seating a person at a lobby, for a join by button or by deep link: the table's size, the
one-seat rule's answers (a person plays at one table at a time) and saving the lobby."""

from __future__ import annotations

from html import escape

from kozel_rules.variant import get_variant

from ..i18n import Translator
from ..storage import Actor, LogEntry, LogKind, SeatRecord, TableRecord
from . import deadlines, feed
from .core import Core
from .people import chat_title
from .ports import Person
from .reply import Reply


async def save_lobby(core: Core, table: TableRecord, log_text: str) -> None:
    """Save a changed lobby; its message shows the change."""
    entry = LogEntry(LogKind.LOBBY, None, None, log_text, by=Actor.PERSON)
    owe = [feed.lobby(table)]
    timers = deadlines.timer_rows(core, table)
    await core.storage.tables.save(
        table, expected_version=table.version, log=[entry], owe=owe, timers=timers
    )
    core.wake_sender()


def take_seat(table: TableRecord, person: Person, t: Translator) -> Reply | None:
    """Seat the person, or say why not."""
    if len(table.seats) >= max(get_variant(table.variant).player_counts):
        return Reply(t._("The table is full."), alert=True)
    table.seats.append(
        SeatRecord(seat=len(table.seats), user_id=person.user_id, name=person.first_name)
    )
    return None


async def plays_elsewhere(core: Core, t: Translator, other: TableRecord, alert: bool) -> Reply:
    title = escape(await chat_title(core, other.chat_id))
    return Reply(t._("You already play at a table in {chat}.", chat=title), alert=alert)


async def seated_elsewhere(core: Core, t: Translator, user_id: int, alert: bool) -> Reply:
    """The database refused a second seat: a join in another chat came first (a race the
    check before could not see, as it ran under this table's lock only)."""
    other = await core.storage.tables.active_for_user(user_id)
    if other is None:  # that table ended meanwhile: a new press will do
        return Reply(t._("This button is out of date — press it again."), alert=alert)
    return await plays_elsewhere(core, t, other, alert)


def renumber(table: TableRecord) -> None:
    """Seats are numbered in order again after one is freed."""
    for i, seat in enumerate(table.seats):
        seat.seat = i
