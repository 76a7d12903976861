"""The Mini App's use cases: a seated player's own view of their table, a group member's
public view of it (a spectator), and moves and taps made from the page. Moves go through the
one play command the hand's buttons use (``play``), taps through the hand's tap rule (``tap``),
so the page gets the same checks, the same commit-before-tell and the same outbox.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from kozel_rules.action import Action, Verb
from kozel_rules.card import Card, parse_cards
from kozel_rules.errors import IllegalActionError, RecordError
from kozel_rules.match import Match
from kozel_rules.view import PlayView, TrickView

from ..callback import Callback, Op
from ..i18n import Translator, get_translator, negotiate
from ..render.labels import SeatInfo
from ..render.refusals import Refused
from ..storage import Priority, TableRecord, TableStatus
from . import awarding, feed, match_feed, moves
from .core import Core
from .errors import ServiceError
from .gate import AdminCache
from .people import chat_title, remember
from .play import answer, find_seat, play, refusal
from .ports import ChatInfo, Person
from .reply import IsMember, Press, Reply, nobody
from .retry import retry_stale
from .seat_lookup import seat_infos, seat_of_user
from .tap import Tap, tap
from .translators import user_t

GroupMember = Callable[[int, int], Awaitable[bool | None]]
"""Is the user (second) in the group (first)? None: Telegram could not say. A Telegram call."""
MEMBERS_TTL = 600.0  # seconds a spectator's membership is trusted before it is asked again


class Members:
    """Who may watch a group's tables: its members, as Telegram said lately. Asked once per
    person and group in ``ttl`` (however many pages open at once); never per move."""

    def __init__(self, ask: GroupMember, ttl: float = MEMBERS_TTL) -> None:
        self._ask = ask
        self._known = AdminCache(ttl=ttl)  # a yes/no per (chat, user), as for admins

    def of(self, user_id: int) -> IsMember:
        async def is_member(chat_id: int) -> bool:
            return await self._known.ask(chat_id, user_id, lambda: self._ask(chat_id, user_id))

        return is_member


class NotSeated(ServiceError):
    """The person has no seat at that table (or it has no match): a translated reason."""


@dataclass(frozen=True)
class SeatPage:
    """What one page shows, loaded from the committed state: a seat's own view, or the
    public view (``seat`` None) for a member of the group who does not play."""

    table: TableRecord
    match: Match
    seat: int | None
    t: Translator
    seats: list[SeatInfo]
    chat_title: str
    deal_text: str | None  # the last finished deal's result, as the group read it
    match_text: str | None  # the match's result once it is over
    # The finished deal's last trick, while the next deal has taken no trick yet (the
    # page shows the deal's result over it); None otherwise.
    deal_trick: TrickView | None = None

    @property
    def spectator(self) -> bool:
        return self.seat is None


def table_link(core: Core, table_id: int) -> str | None:
    """The Direct Link Mini App of a table (for the group: web_app buttons are private only)."""
    return feed.app_link(core, str(table_id))


def page_url(core: Core, table_id: int) -> str | None:
    """The page a private hand's web_app button opens."""
    if not core.settings.public_url:
        return None
    return f"{core.settings.public_url}/app?table={table_id}"


async def open_seat(
    core: Core, table_id: int, person: Person, is_member: IsMember = nobody
) -> SeatPage:
    """The person's seat at the table, or the public view when they have none but are in
    the table's group (``is_member``: a cached Telegram call, asked only then); raises
    NotSeated (with a translated text) otherwise. A stranger hears the same as for a table
    that does not exist, so ids tell strangers nothing."""
    user = await core.storage.users.get(person.user_id)
    t = user_t(user) if user else get_translator(negotiate(person.language_code))
    table = await core.storage.tables.get(table_id)
    seat = None if table is None else seat_of_user(table, person.user_id)
    if table is None or (seat is None and not await is_member(table.chat_id)):
        raise NotSeated(t._("You have no seat at this table."))
    if table.match_state is None:
        raise NotSeated(t._("The match has not started yet."))
    match = core.matches.of(table)
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
        deal_text=match_feed.deal_text(t, match, deal, seats) if deal else None,
        match_text=await _match_text(core, t, table, match, seats) if result else None,
        deal_trick=finished_deal_trick(match, seat) if _deal_is_young(match) else None,
    )


async def _match_text(
    core: Core, t: Translator, table: TableRecord, match: Match, seats: list[SeatInfo]
) -> str:
    """The match's result as the group read it: its moment and its 🏅 line too."""
    earned = await core.storage.awards.of_table(table.id)
    line = awarding.medal_line(t, awarding.table_names(table), earned)
    return match_feed.result_text(t, match, seats, awards=line)


def _deal_is_young(match: Match) -> bool:
    """A deal is over and the next has taken no trick yet (or the match is over)."""
    if not match.deal_results:
        return False
    view = match.view(None)
    return view.match_over or (view.last_trick is None and not any(view.tricks_by_seat))


def finished_deal_trick(match: Match, seat: int | None) -> TrickView | None:
    """The last trick of the deal that ended last, as ``seat`` saw it (face-down cards of
    other seats hidden). The next deal's view keeps no trace of it, so the record is
    replayed: up to the deal's last action, which completed that trick."""
    if not match.deal_results:
        return None
    result = match.deal_results[-1]
    record = match.to_json()
    actions: list[str] = record["actions"]
    try:
        replay = Match.from_json({**record, "actions": []})
        last = None
        for index, text in enumerate(actions):
            replay.apply(text)
            if replay.deal_number > result.number or replay.is_over:
                last = index
                break
        if last is None:
            return None
        before = Match.from_json({**record, "actions": actions[:last]}).view(seat)
        final = Action.parse(actions[last])
    except (RecordError, IllegalActionError, ValueError):
        return None  # a record the engine cannot replay shows no trick, not an error
    if before.trick is None:
        return None
    hidden = final.verb.is_face_down and final.seat != seat
    play = PlayView(final.seat, final.verb, () if hidden else final.cards, len(final.cards))
    taker = result.last_trick_seat
    return TrickView(
        leader=before.trick.leader,
        due_leader=before.trick.due_leader,
        plays=(*before.trick.plays, play),
        top_seat=taker,
        taker=taker,
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
    async with core.table_locks.hold(table_id):
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


async def page_gone(core: Core, table_id: int, seat: int | None) -> None:
    """A seat's page closed (or froze): its hand message, not edited while the page showed
    the hand, is brought up to date once."""
    if seat is None or not core.live.owed_hand(table_id, seat):
        return
    table = await core.storage.tables.get(table_id)
    if table is None or table.match_state is None or table.seats[seat].user_id is None:
        return
    await feed.owe(core, [feed.hand(core, table, seat, Priority.WAITING, delay=0.0)])


def is_playing(table: TableRecord) -> bool:
    return table.status == TableStatus.PLAYING
