"""Replays: a finished deal stepped through trick by trick, rebuilt from the stored match
record (``TableRecord.match_state``; nothing new is stored to have them).

Who may watch: the table's players, and once the match is over anyone in the table's group.
Only deals that are over are replayed: of a deal still being played a replay shows nothing.
The deal is over, so every hand is open and every face-down card is shown (marked as such).
For the viewer's own seat the coach's marks (from its stored answers) go with the tricks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kozel_rules.action import Action, Verb
from kozel_rules.card import Card
from kozel_rules.errors import IllegalActionError, RecordError
from kozel_rules.event import (
    CardsPlayed,
    CardsReturned,
    DealEnded,
    DealStarted,
    Event,
    TrickTaken,
)
from kozel_rules.match import Match
from kozel_rules.result import DealResult
from kozel_rules.view import SeatView

from ..i18n import Translator, get_translator, negotiate
from ..render.labels import SeatInfo
from ..storage import LogKind, TableRecord, TableStatus
from . import match_feed
from .core import Core
from .errors import ServiceError
from .people import chat_title
from .ports import Person
from .reply import IsMember, nobody
from .seat_lookup import seat_infos, seat_of_user
from .translators import user_t


class NoReplay(ServiceError):
    """The person may not see that replay (or there is none): a translated reason."""


@dataclass(frozen=True)
class Play:
    seat: int
    verb: Verb
    cards: tuple[Card, ...]  # all of them: the deal is over, face-down cards are turned
    ply: int  # the action's index in the match's history


@dataclass
class Trick:
    """One step of a replay: a trick as it was played, and the table as it stood before it."""

    number: int  # 1-based, in the deal
    hands: list[tuple[Card, ...]]  # each seat's hand before the trick
    stock: int
    trump_card: Card | None  # the shown card while it was still in the stock
    table: SeatView  # the public view before the trick (trump and stock as the table said)
    plays: list[Play] = field(default_factory=list)
    returned: list[Play] = field(default_factory=list)  # shown, then taken back by a special
    taker: int | None = None
    points: int = 0  # the card points the trick held
    card_points: tuple[int, ...] = ()  # per side, after the trick
    tricks: tuple[int, ...] = ()  # per side, after the trick
    plies: list[int] = field(default_factory=list)  # every action index in the trick


@dataclass(frozen=True)
class Mark:
    """The coach's judgement of one of the viewer's plays."""

    ply: int
    played: Action
    better: Action
    points_lost: float
    chance_before: int  # % to win the deal with the expert's play
    chance_after: int  # % with the play made


@dataclass(frozen=True)
class DealReplay:
    deal: int
    result: DealResult
    trump: Any  # Suit | None
    dealer: int
    tricks: list[Trick]
    sides: tuple[int, ...]  # each seat's side


@dataclass(frozen=True)
class ReplayPage:
    table: TableRecord
    t: Translator
    seat: int | None  # the viewer's seat (None: a member of the group watching)
    seats: list[SeatInfo]
    chat_title: str
    deals: int  # finished deals that can be replayed
    match_over: bool
    replay: DealReplay
    marks: list[Mark]
    coached: bool  # the viewer asked the coach about this deal (and was answered)
    result_text: str  # the deal's result as the group read it (HTML)


def build(record: dict[str, Any], deal: int) -> DealReplay | None:
    """Deal ``deal`` of the match ``record``, trick by trick (None: not a finished deal of
    it, or a record the engine cannot replay)."""
    try:
        match = Match.from_json({**record, "actions": []})
        actions: list[str] = list(record.get("actions", []))
        return _walk(match, actions, deal)
    except (RecordError, IllegalActionError, ValueError):
        return None


def _walk(match: Match, actions: list[str], deal: int) -> DealReplay | None:
    walk = _Walk(match, deal)
    for ply, text in enumerate(actions):
        walk.before(ply)
        for event in match.apply(text):
            done = walk.event(event, ply)
            if done is not None:
                return done
    return None


class _Walk:
    """A walk through a match's record up to the end of one deal, gathering its tricks."""

    def __init__(self, match: Match, deal: int) -> None:
        self.match, self.deal = match, deal
        self.sides = tuple(match.side_of(s) for s in range(match.players))
        self.on = deal == 1  # inside the deal
        self.trump, self.dealer = match.trump, match.dealer
        self.tricks: list[Trick] = []
        self.trick: Trick | None = None
        self.points = [0] * match.sides
        self.taken = [0] * match.sides

    def before(self, ply: int) -> None:
        """Before an action of the deal: a new trick starts from the table as it stands."""
        if not self.on:
            return
        if self.trick is None:
            match = self.match
            view = match.view(None)
            hands = [match.view(s).hand for s in range(match.players)]
            shown = view.trump_card if not view.trump_card_drawn else None
            self.trick = Trick(len(self.tricks) + 1, hands, view.stock, shown, view)
        self.trick.plies.append(ply)

    def event(self, event: Event, ply: int) -> DealReplay | None:
        """Follow one event; the replay once the deal ends."""
        if isinstance(event, DealStarted):
            if event.number == self.deal:
                self.on, self.trump, self.dealer = True, event.trump, event.dealer
        elif isinstance(event, DealEnded) and event.result.number == self.deal:
            trick = self.trick
            if trick is not None and (trick.plays or trick.returned):
                self.tricks.append(trick)
            return DealReplay(
                self.deal, event.result, self.trump, self.dealer, self.tricks, self.sides
            )
        elif self.on and self.trick is not None:
            self._in_trick(self.trick, event, ply)
        return None

    def _in_trick(self, trick: Trick, event: Event, ply: int) -> None:
        if isinstance(event, CardsPlayed):
            trick.plays.append(Play(event.seat, event.verb, event.cards, ply))
        elif isinstance(event, CardsReturned):
            trick.returned += trick.plays
            trick.plays = []
        elif isinstance(event, TrickTaken):
            trick.taker = event.seat
            trick.points = sum(c.points for p in trick.plays for c in p.cards)
            self.points[event.side] += trick.points
            self.taken[event.side] += 1
            trick.card_points, trick.tricks = tuple(self.points), tuple(self.taken)
            self.tricks.append(trick)
            self.trick = None


def marks_of(entries: list[dict[str, Any]], user_id: int, deal: int) -> list[Mark]:
    """The coach's marks for ``user_id`` in ``deal``, from its log lines' data."""
    found: list[Mark] = []
    for data in entries:
        if data.get("user") != user_id or data.get("deal") != deal:
            continue
        for mark in data.get("marks") or []:
            try:
                found.append(
                    Mark(
                        int(mark["ply"]),
                        Action.parse(mark["played"]),
                        Action.parse(mark["better"]),
                        float(mark["points_lost"]),
                        int(mark["chance_before"]),
                        int(mark["chance_after"]),
                    )
                )
            except (KeyError, TypeError, ValueError):
                continue  # a line written by another release: no mark rather than an error
    return found


async def open_replay(
    core: Core, table_id: int, person: Person, deal: int, is_member: IsMember = nobody
) -> ReplayPage:
    """Deal ``deal`` of the table's match for ``person``, or NoReplay (translated)."""
    t, table, seat = await _viewer(core, table_id, person, is_member)
    if table.match_state is None:
        raise NoReplay(t._("The record of that match is no longer kept."))
    match = core.matches.of(table)
    if not 1 <= deal <= len(match.deal_results):
        raise NoReplay(t._("That deal is not over yet."))
    replay = build(dict(table.match_state), deal)
    if replay is None:
        raise NoReplay(t._("The record of that match is no longer kept."))
    mine = await _coach_answers(core, table_id, seat, person.user_id, deal)
    seats = seat_infos(table, t)
    return ReplayPage(
        table=table,
        t=t,
        seat=seat,
        seats=seats,
        chat_title=await chat_title(core, table.chat_id),
        deals=len(match.deal_results),
        match_over=match.is_over,
        replay=replay,
        marks=marks_of(mine, person.user_id, deal),
        coached=bool(mine),
        result_text=match_feed.deal_text(t, match, replay.result, seats),
    )


async def _viewer(
    core: Core, table_id: int, person: Person, is_member: IsMember
) -> tuple[Translator, TableRecord, int | None]:
    """The person's language, the table and their seat at it (None: a member of the group
    once the match is over); NoReplay for anyone else."""
    user = await core.storage.users.get(person.user_id)
    t = user_t(user) if user else get_translator(negotiate(person.language_code))
    table = await core.storage.tables.get(table_id)
    if table is None:
        raise NoReplay(t._("You have no seat at this table."))
    seat = seat_of_user(table, person.user_id)
    if seat is None:
        if not await is_member(table.chat_id):
            raise NoReplay(t._("You have no seat at this table."))
        if table.status != TableStatus.FINISHED:
            raise NoReplay(t._("The group can watch replays once the match is over."))
    return t, table, seat


async def _coach_answers(
    core: Core, table_id: int, seat: int | None, user_id: int, deal: int
) -> list[dict[str, Any]]:
    """The coach's stored answers to this player about this deal (none for a watcher)."""
    if seat is None:
        return []
    logged = await core.storage.tables.log(table_id, LogKind.COACH)
    answers = [e.data or {} for e in logged]
    return [a for a in answers if a.get("user") == user_id and a.get("deal") == deal]
