"""A player's presses on their hand: toggle a card, clear, play, and "I'm back".

Every press: lock the table -> load -> check seat and ply -> apply -> commit -> answer.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from html import escape

from kozel_rules.action import Action
from kozel_rules.card import Card
from kozel_rules.errors import IllegalActionError
from kozel_rules.match import Match

from ..callback import CallbackDataError, decode_action, decode_card
from ..i18n import Translator
from ..render.hand import illegal_text
from ..storage import Actor, LogEntry, LogKind, Priority, TableRecord, TableStatus
from . import feed, turns
from .change import Change
from .commit import commit, save_change
from .core import Core
from .people import chat_t, remember, seat_of_user, user_t
from .reply import Press, Reply


@dataclass
class Seat:
    """A press by a seated player, with the table as loaded under its lock."""

    press: Press
    table: TableRecord
    match: Match
    seat: int
    t: Translator


SeatCase = Callable[[Core, Seat], Awaitable[Reply]]
PressCase = Callable[[Core, Press], Awaitable[Reply]]


def seated(*, any_ply: bool = False, when_away: bool = False) -> Callable[[SeatCase], PressCase]:
    """Wrap a hand use case in the checks every hand press needs."""

    def wrap(case: SeatCase) -> PressCase:
        async def run(core: Core, press: Press) -> Reply:
            t = user_t(await remember(core, press.person, private=True))
            async with core.table_lock(press.cb.table):
                table = await core.storage.tables.get(press.cb.table)
                if table is None or table.status != TableStatus.PLAYING or not table.match_state:
                    return Reply(t._("This match is over or was cancelled."), alert=True)
                seat = seat_of_user(table, press.person.user_id)
                if seat is None:
                    return Reply(t._("These are not your cards."), alert=True)
                match = core.match_of(table)
                if table.seats[seat].away and not when_away:
                    return Reply(
                        t._("A computer plays for you now. Press “I'm back” first."), alert=True
                    )
                if press.cb.version != match.ply and not any_ply:
                    await feed.owe(core, [feed.hand(core, table, seat, Priority.PRESSER)])
                    return Reply(t._("That button is out of date — your cards have been updated."))
                try:
                    return await case(core, Seat(press, table, match, seat, t))
                except CallbackDataError:
                    return Reply(t._("This button is not valid."), alert=True)

        return run

    return wrap


@seated()
async def act(core: Core, s: Seat) -> Reply:
    return await _play(core, s, decode_action(s.seat, s.press.cb.arg))


@seated()
async def clear(core: Core, s: Seat) -> Reply:
    s.table.seats[s.seat].selection = []
    await _save_selection(core, s)
    return Reply()


async def _save_selection(core: Core, s: Seat) -> None:
    """Chosen cards are the seat's alone: a small write of that seat with the hand's edit,
    never the table and its match (an auto-clicker would cost a full write per tap)."""
    record = s.table.seats[s.seat]
    record.active_at = time.time()
    owe = [feed.hand(core, s.table, s.seat, Priority.PRESSER)]
    await core.storage.tables.select(
        s.table.id, s.seat, record.selection, active_at=record.active_at, owe=owe
    )
    core.wake_sender()


@seated()
async def toggle(core: Core, s: Seat) -> Reply:
    t, card = s.t, decode_card(s.press.cb.arg)
    view = s.match.view(s.seat)
    if card not in view.hand:
        return Reply(t._("That card is not in your hand."), alert=True)
    record = s.table.seats[s.seat]
    chosen = {Card.parse(c) for c in record.selection} ^ {card}
    legal = [a for a in view.legal if not a.verb.is_special]
    if not legal:
        return Reply(t._("Not your turn yet."))
    if chosen and not any(chosen <= set(a.cards) for a in legal):
        if not any(card in a.cards for a in legal):
            return Reply(t._("{card} cannot be played now.", card=str(card)), alert=True)
        return Reply(
            t._("{card} does not go with the cards you chose.", card=str(card)), alert=True
        )
    # Where the cards chosen can be played in one way only, the tap plays them (a card that
    # can only be led alone, a card that cannot beat; every card in ziege): no confirm needed.
    containing = [a for a in legal if chosen and chosen <= set(a.cards)]
    if len(containing) == 1 and set(containing[0].cards) == chosen:
        return await _play(core, s, containing[0])
    record.selection = [str(c) for c in sorted(chosen)]
    await _save_selection(core, s)
    return Reply()


async def _play(core: Core, s: Seat, action: Action) -> Reply:
    try:
        await commit(core, s.table, s.match, action, by=Actor.PERSON)
    except IllegalActionError as err:
        return Reply(illegal_text(s.t, err), alert=True)
    return Reply(s.t._("Played: {action}", action=" ".join(str(c) for c in action.cards)))


@seated(any_ply=True, when_away=True)  # the table may move on while they reach for it
async def back(core: Core, s: Seat) -> Reply:
    table, match = s.table, s.match
    record = table.seats[s.seat]
    if not record.away:
        return Reply(s.t._("You are playing already."))
    record.away = False
    record.timeouts = 0
    record.active_at = time.time()
    table.note = (await chat_t(core, table.chat_id))._("{name} is back.", name=escape(record.name))
    await turns.plan_deadlines(core, table, match)
    entry = LogEntry(LogKind.BACK, match.ply, s.seat, "back", by=Actor.PERSON)
    await save_change(core, table, match, Change(), log=[entry])
    return Reply(s.t._("Welcome back — it is your seat again."))
