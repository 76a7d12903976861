"""A player's presses on their hand: toggle a card, clear, play, confirm, and "I'm back".

Every press: lock the table -> load -> check seat and ply (``play.find_seat``) -> apply ->
commit -> answer. Plays go through the one play command (``play``), as the Mini App's do.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from html import escape

from kozel_rules.action import Action, Verb
from kozel_rules.card import Card

from ..callback import CallbackDataError, decode_action, decode_card
from ..i18n import Translator
from ..render.choice import selection_hint
from ..render.labels import cards_text
from ..render.refusals import Refused
from ..storage import Actor, LogEntry, LogKind, Priority
from . import deadlines, feed
from .change import Change
from .commit import save_change
from .core import Core
from .people import remember
from .play import Seated, answer, find_seat, make, play, refusal
from .reply import Press, Reply
from .retry import retry_stale
from .tap import tap
from .translators import chat_t, user_t


@dataclass(frozen=True)
class Seat(Seated):
    """A press by a seated player, with the table as loaded under its lock."""

    press: Press
    t: Translator


SeatCase = Callable[[Core, Seat], Awaitable[Reply]]
PressCase = Callable[[Core, Press], Awaitable[Reply]]


def seated(*, any_ply: bool = False, when_away: bool = False) -> Callable[[SeatCase], PressCase]:
    """Wrap a hand use case in the checks every hand press needs."""

    def wrap(case: SeatCase) -> PressCase:
        @retry_stale  # another worker moved the table on: the press is judged again
        async def run(core: Core, press: Press) -> Reply:
            core.presses.pressed(press.person.user_id, time.time())
            t = user_t(await remember(core, press.person, private=True))
            ply = None if any_ply else press.cb.version
            async with core.table_locks.hold(press.cb.table):
                found = await find_seat(
                    core, press.cb.table, press.person.user_id, ply, when_away=when_away
                )
                if isinstance(found, Refused):
                    return refusal(t, found)
                try:
                    return await case(core, Seat(found.table, found.match, found.seat, press, t))
                except CallbackDataError:
                    return refusal(t, Refused.INVALID)

        return run

    return wrap


async def act(core: Core, press: Press) -> Reply:
    """A play button: the action it names, played from the presser's seat."""
    t = user_t(await remember(core, press.person, private=True))
    try:
        action = decode_action(0, press.cb.arg)
    except CallbackDataError:
        return refusal(t, Refused.INVALID)
    cb = press.cb
    return answer(t, await play(core, cb.table, press.person.user_id, cb.version, action))


@seated()
async def confirm(core: Core, s: Seat) -> Reply:
    """A confirm button drawn before any choice (``render.choice.asking_verbs``): its verb
    with the cards chosen by now, which the taps' answers said."""
    try:
        verb = Verb(s.press.cb.arg)
    except ValueError:
        return refusal(s.t, Refused.INVALID)
    if verb.is_special:  # specials have buttons of their own, with their cards
        return refusal(s.t, Refused.INVALID)
    chosen = [Card.parse(c) for c in s.table.seats[s.seat].selection]
    if not chosen:
        return refusal(s.t, Refused.NOTHING_CHOSEN)
    # The engine names the rule a wrong choice breaks (nothing changes then).
    return answer(s.t, await make(core, s, Action.make(s.seat, verb, chosen)))


@seated()
async def clear(core: Core, s: Seat) -> Reply:
    if s.table.seats[s.seat].selection:  # else nothing to write, nothing to show again
        s.table.seats[s.seat].selection = []
        await _save_selection(core, s)
    return Reply(selection_hint(s.t, s.match.view(s.seat), []))


async def _save_selection(core: Core, s: Seat) -> None:
    """Chosen cards are the seat's alone: a small write of that seat with the hand's edit
    and the table's next version, never the table and its match (an auto-clicker would cost
    a full write per tap; the version keeps another worker's save from an older read from
    writing the seat back without the choice). The
    press's answer says the selection: the hand's edit is the first to wait when the budget
    is short, and taps meanwhile merge into one edit. On a busy evening the edit waits a
    ``hand_interval`` (the confirm buttons drawn before the choice play without it): a play
    meanwhile takes its place (``Priority.ECHO`` in the outbox)."""
    record = s.table.seats[s.seat]
    record.active_at = time.time()
    wait = core.settings.hand_interval if core.budget.busy() else 0.0
    owe = [feed.hand(core, s.table, s.seat, Priority.ECHO, delay=wait)]
    s.table.version = await core.storage.tables.select(
        s.table.id,
        s.seat,
        record.selection,
        active_at=record.active_at,
        expected_version=s.table.version,
        owe=owe,
    )
    core.wake_sender()


@seated(any_ply=True)
async def toggle(core: Core, s: Seat) -> Reply:
    """A card button: the tap rule (``tap``) says whether it selects, plays or is refused.

    Judged on the match as it is now, whatever ply the hand showed: a player who is not to
    move hears that it is not their turn (the rule), at once and without a write or an edit,
    also from a hand some plies old (a waiting hand is not edited for every card the others
    play). Other taps on an outdated hand are refused as out of date, with the hand shown
    again."""
    card = decode_card(s.press.cb.arg)
    record = s.table.seats[s.seat]
    tapped = tap(s.match, s.seat, [Card.parse(c) for c in record.selection], card)
    stale = s.press.cb.version != s.match.ply
    if stale and s.match.to_move != s.seat and (mine := _played_since(s)) is not None:
        # Their hand still shows the turn they have played (its edit waits for the next
        # change): the answer says the play, and the hand is shown now (owed once).
        if core.presses.reshow_once(s.table.id, s.seat, s.press.cb.version):
            await feed.owe(core, [feed.hand(core, s.table, s.seat, Priority.PRESSER)])
        return played_already(s.t, mine)
    if tapped.refused is Refused.NOT_YET or (stale and s.match.to_move != s.seat):
        return refusal(s.t, Refused.NOT_YET, card)
    if stale:
        await feed.owe(core, [feed.hand(core, s.table, s.seat, Priority.PRESSER)])
        return refusal(s.t, Refused.STALE)
    if tapped.refused is not None:
        return refusal(s.t, tapped.refused, card)
    if tapped.play is not None:
        return answer(s.t, await make(core, s, tapped.play))
    record.selection = [str(c) for c in tapped.chosen]
    await _save_selection(core, s)
    return Reply(selection_hint(s.t, s.match.view(s.seat), tapped.chosen))


def _played_since(s: Seat) -> list[Card] | None:
    """The cards of the seat's last play since the ply its hand was drawn at, if any."""
    history = s.match.history
    for text in reversed(history[max(0, s.press.cb.version) :]):
        action = Action.parse(text)
        if action.seat == s.seat and action.cards:
            return list(action.cards)
    return None


def played_already(t: Translator, cards: Sequence[Card]) -> Reply:
    """A tap on a hand that still shows the turn its player has played."""
    # TRANSLATORS: the answer to a tap on a hand that still shows the player's turn after
    # they played; {cards} is what they played, such as "9♠ K♠".
    return Reply(t._("Not your turn yet — you played {cards}.", cards=cards_text(t, cards)))


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
    await deadlines.plan_deadlines(core, table, match)
    entry = LogEntry(LogKind.BACK, match.ply, s.seat, "back", by=Actor.PERSON)
    await save_change(core, table, match, Change(), log=[entry])
    return Reply(s.t._("Welcome back — it is your seat again."))
