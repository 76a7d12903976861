"""The Mini App's use cases: a seated player's own view of their table, and moves and taps
made from the page. Moves go through the one play command the hand's buttons use (``play``),
taps through the hand's tap rule (``tap``), so the page gets the same checks, the same
commit-before-tell and the same outbox.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kozel_rules.action import Action, Verb
from kozel_rules.card import Card, parse_cards
from kozel_rules.match import Match

from ..callback import Callback, Op
from ..i18n import Translator, get_translator, negotiate
from ..render.labels import SeatInfo
from ..render.refusals import Refused
from ..render.results import match_result_text
from ..storage import TableRecord, TableStatus
from . import feed, moves
from .core import Core
from .people import chat_title, remember, seat_infos, seat_of_user, user_t
from .play import answer, find_seat, play, refusal
from .ports import ChatInfo, Person
from .reply import Press, Reply
from .retry import retry_stale
from .tap import Tap, tap


class NotSeated(Exception):
    """The person has no seat at that table (or it has no match): a translated reason."""


@dataclass(frozen=True)
class SeatPage:
    """What one seat's page shows, loaded from the committed state."""

    table: TableRecord
    match: Match
    seat: int
    t: Translator
    seats: list[SeatInfo]
    chat_title: str
    deal_text: str | None  # the last finished deal's result, as the group read it
    match_text: str | None  # the match's result once it is over


def table_link(core: Core, table_id: int) -> str | None:
    """The Direct Link Mini App of a table (for the group: web_app buttons are private only)."""
    if not core.settings.public_url or not core.settings.webapp_name:
        return None
    return (
        f"https://t.me/{core.settings.bot_username}/{core.settings.webapp_name}?startapp={table_id}"
    )


def page_url(core: Core, table_id: int) -> str | None:
    """The page a private hand's web_app button opens."""
    if not core.settings.public_url:
        return None
    return f"{core.settings.public_url}/app?table={table_id}"


async def open_seat(core: Core, table_id: int, person: Person) -> SeatPage:
    """The person's seat at the table; raises NotSeated (with a translated text) otherwise."""
    user = await core.storage.users.get(person.user_id)
    t = user_t(user) if user else get_translator(negotiate(person.language_code))
    table = await core.storage.tables.get(table_id)
    seat = None if table is None else seat_of_user(table, person.user_id)
    if table is None or seat is None:
        raise NotSeated(t._("You have no seat at this table."))
    if table.match_state is None:
        raise NotSeated(t._("The match has not started yet."))
    match = core.match_of(table)
    seats = seat_infos(table, t)
    deal = match.deal_results[-1] if match.deal_results else None
    result = match.result
    return SeatPage(
        table=table,
        match=match,
        seat=seat,
        t=t,
        seats=seats,
        chat_title=await chat_title(core, table.chat_id),
        deal_text=feed.deal_text(t, match, deal, seats) if deal else None,
        match_text=(
            match_result_text(t, result=result, view=match.view(None), seats=seats)
            if result
            else None
        ),
    )


async def _never_admin() -> bool:
    return False


def _press(table_id: int, ply: int, op: Op, arg: str, person: Person) -> Press:
    # The page stands in for the player's private chat: the same checks apply to it.
    chat = ChatInfo(person.user_id, "", is_private=True)
    return Press(Callback(table_id, ply, op, arg), person, chat, _never_admin)


async def move(
    core: Core, table_id: int, person: Person, ply: int, verb: str, cards: Sequence[str]
) -> tuple[Reply, bool]:
    """A move chosen in the page: the one play command, as the hand's buttons use it; says
    whether it was made (a stale or refused move answers without an alert too)."""
    t = user_t(await remember(core, person, private=True))
    try:
        action = Action.make(0, Verb(verb), _cards(cards))
    except ValueError:
        return refusal(t, Refused.INVALID), False
    if not 1 <= len(action.cards) <= 4 or len(set(action.cards)) != len(action.cards):
        return refusal(t, Refused.INVALID), False
    outcome = await play(core, table_id, person.user_id, ply, action)
    return answer(t, outcome), outcome.made


@dataclass(frozen=True)
class Tapped:
    """What a tap in the page did: the tap rule's verdict, and the answer to show."""

    tap: Tap
    reply: Reply
    ok: bool = False  # selected, or played


async def tap_card(
    core: Core, table_id: int, person: Person, ply: int, card: str, chosen: Sequence[str]
) -> Tapped:
    """A tap on a card in the page, with the cards the page has chosen: the hand's own tap
    rule; a tap that plays goes through the one play command."""
    t = user_t(await remember(core, person, private=True))
    try:
        tapped, picked = Card.parse(card), _cards(chosen)
    except ValueError:
        return Tapped(Tap(refused=Refused.INVALID), refusal(t, Refused.INVALID))
    async with core.table_lock(table_id):
        found = await find_seat(core, table_id, person.user_id, ply)
    if isinstance(found, Refused):
        return Tapped(Tap(chosen=tuple(picked), refused=found), refusal(t, found))
    verdict = tap(found.match, found.seat, picked, tapped)
    if verdict.refused is not None:  # the page's selection stays as it was
        kept = Tap(chosen=tuple(picked), refused=verdict.refused)
        return Tapped(kept, refusal(t, verdict.refused, tapped))
    if verdict.play is None:
        return Tapped(verdict, Reply(), ok=True)
    outcome = await play(core, table_id, person.user_id, ply, verdict.play)
    return Tapped(verdict, answer(t, outcome), outcome.made)


def _cards(texts: Sequence[str]) -> tuple[Card, ...]:
    """Cards as the page writes them (ValueError for anything else, or more than a hand)."""
    if len(texts) > 4:
        raise ValueError("more cards than a hand holds")
    return parse_cards(texts)


@retry_stale
async def come_back(core: Core, table_id: int, person: Person) -> Reply:
    """The page's "I'm back": the hand's own use case."""
    return await moves.back(core, _press(table_id, 0, Op.BACK, "", person))


def is_playing(table: TableRecord) -> bool:
    return table.status == TableStatus.PLAYING
