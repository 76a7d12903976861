"""One play command for both faces: a seated person's action, checked and committed.

The hand's buttons (``moves``) and the Mini App (``webapp``) call :func:`play` with a domain
action and the ply it was chosen at, and get one :class:`Outcome`: made, or refused with the
reason (a rule of the engine, or the bot's own: the match is gone, the person has no seat, a
computer plays for them, the press is out of date). The checks every press on a hand passes
are :func:`find_seat`'s, written once.
"""

from __future__ import annotations

from dataclasses import dataclass

from kozel_rules.action import Action
from kozel_rules.card import Card
from kozel_rules.errors import IllegalActionError
from kozel_rules.match import Match

from ..i18n import Translator
from ..render.labels import cards_text
from ..render.refusals import GENTLE, Reason, Refused, refusal_text
from ..storage import Actor, Priority, TableRecord, TableStatus
from . import feed
from .commit import commit
from .core import Core
from .reply import Reply
from .retry import retry_stale
from .seat_lookup import seat_of_user


@dataclass(frozen=True)
class Outcome:
    """What became of an action: made, or refused with the reason."""

    action: Action
    refused: Reason | None = None

    @property
    def made(self) -> bool:
        return self.refused is None


@dataclass(frozen=True)
class Seated:
    """A person's seat at a running match, as loaded under the table's lock."""

    table: TableRecord
    match: Match
    seat: int


async def find_seat(
    core: Core, table_id: int, user_id: int, ply: int | None, *, when_away: bool = False
) -> Seated | Refused:
    """The checks every press on a hand passes, under the table's lock: a running match, the
    person's seat, played by them (unless ``when_away``), pressed at the match's ``ply`` (any
    ply when None). A press out of date gets the hand shown again."""
    table = await core.storage.tables.get(table_id)
    if table is None or table.status != TableStatus.PLAYING or not table.match_state:
        return Refused.GONE
    seat = seat_of_user(table, user_id)
    if seat is None:
        return Refused.NOT_SEATED
    match = core.matches.of(table)
    if table.seats[seat].away and not when_away:
        return Refused.AWAY
    if ply is not None and ply != match.ply:
        await feed.owe(core, [feed.hand(core, table, seat, Priority.PRESSER)])
        return Refused.STALE
    return Seated(table, match, seat)


@retry_stale
async def play(core: Core, table_id: int, user_id: int, ply: int, action: Action) -> Outcome:
    """The person's ``action`` chosen at ``ply``, played from their own seat (whatever seat
    the action names)."""
    async with core.table_locks.hold(table_id):
        found = await find_seat(core, table_id, user_id, ply)
        if isinstance(found, Refused):
            return Outcome(action, found)
        return await make(core, found, action)


async def make(core: Core, seated: Seated, action: Action) -> Outcome:
    """Commit the seat's action (the caller holds the table's lock), or name the rule that
    forbids it (nothing changes then)."""
    action = action._replace(seat=seated.seat)
    try:
        await commit(core, seated.table, seated.match, action, by=Actor.PERSON)
    except IllegalActionError as err:
        return Outcome(action, err.rule)
    return Outcome(action)


def answer(t: Translator, outcome: Outcome) -> Reply:
    """The answer to the press that asked for the action."""
    if outcome.refused is not None:
        return refusal(t, outcome.refused)
    return Reply(t._("Played: {action}", action=cards_text(t, outcome.action.cards)))


def refusal(t: Translator, reason: Reason, card: Card | None = None) -> Reply:
    """A refused press: an alert, unless the player only has to look again or wait."""
    return Reply(refusal_text(t, reason, card), alert=reason not in GENTLE)
