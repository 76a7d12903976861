"""A cup for four: ``/cup [variant] [house rules]`` signs four people up in one message; they
play three matches, each partnering each other once (``cup_rounds``); between matches that
one message shows the standings (an edit, never a new message); after the third it names the
winner(s). A person who leaves a cup's match forfeits the rest: a computer takes their seat
in the later matches, and the standings say so.

Every message owed is written in the transaction of the change that owes it: the sign-up with
the cup, a join with the player, each round's standings with the round's new table (or with
the cup's end).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import replace

from kozel_rules.options import Options
from kozel_rules.variant import VARIANTS, get_variant

from ..i18n import Translator
from ..render import cup as text
from ..render.house_rules import brief
from ..render.rules_text import variant_name
from ..storage import ActiveTableExistsError, Owed, SeatRecord, TableRecord, TableStatus
from ..storage.conn import Conn
from ..storage.cups import (
    PLAYERS,
    CupFullError,
    CupPlayer,
    CupRecord,
    cup_of_post,
    post_id,
)
from . import deadlines, feed, house_rules
from .core import Core
from .cup_rounds import ROUNDS, SEATINGS, RoundResult, round_result, standings, winners
from .people import chat_record, remember
from .ports import ChatInfo, Person
from .post_buttons import encode
from .reply import Press, Reply
from .translators import chat_t, user_t

log = logging.getLogger(__name__)


async def command(
    core: Core, chat: ChatInfo, person: Person, name: str | None, words: Sequence[str] = ()
) -> Reply:
    """/cup [variant] [key=value ...] in a group: a cup's sign-up, its creator the first in."""
    user = await remember(core, person)
    if chat.is_private:
        return Reply(user_t(user)._("Add me to a group and send /cup there to start a cup."))
    record = await chat_record(core, chat, creator=user)
    t = await chat_t(core, chat.chat_id)
    variant = core.settings.default_variant if name is None else VARIANTS.get(name)
    if variant is None:
        return Reply(t._("Unknown variant. Choose one of: {list}", list=", ".join(VARIANTS)))
    if PLAYERS not in variant.player_counts:
        names = ", ".join(v.name for v in VARIANTS.values() if PLAYERS in v.player_counts)
        return Reply(t._("A cup is played by four: choose one of: {list}", list=names))
    options = await house_rules.opening(core, t, record, variant, words)
    if isinstance(options, str):
        return Reply(options)
    cup = CupRecord(
        id=0,
        chat_id=chat.chat_id,
        thread_id=chat.thread_id,
        variant=variant.name,
        creator_id=person.user_id,
        options=options.to_json(),
    )
    if user.can_message:  # else they join with the button, once they have started me
        cup.players.append(CupPlayer(0, person.user_id, person.first_name))
    await core.storage.cups.create(cup, owe=[_signup_post(t, cup, new=True)])
    core.wake_sender()
    return Reply()


async def join(core: Core, press: Press) -> Reply:
    """The sign-up's button: one more player; the fourth opens the first match."""
    user = await remember(core, press.person)
    t = user_t(user)
    cup = await core.storage.cups.get(press.cb.table)
    if cup is None or cup.chat_id != press.chat.chat_id:
        return Reply(t._("This button does not belong to this chat."), alert=True)
    if cup.player(press.person.user_id) is not None:
        if len(cup.players) == PLAYERS and not cup.rounds:  # its first match waits: try again
            async with core.chat_locks.hold(cup.chat_id):
                if not await _open_round(core, await chat_t(core, cup.chat_id), cup, 1, []):
                    return Reply(_table_open(t), alert=True)
            core.wake_sender()
        return Reply(t._("You are in the cup already."))
    if len(cup.players) >= PLAYERS or cup.status.value != "signup":
        return Reply(t._("The cup is full."), alert=True)
    if not user.can_message:
        # Hands come in private: the private chat must be open first.
        return Reply(url=f"https://t.me/{core.settings.bot_username}")
    gt = await chat_t(core, cup.chat_id)
    player = CupPlayer(len(cup.players), press.person.user_id, press.person.first_name)
    async with core.chat_locks.hold(cup.chat_id):
        try:
            future = replace(cup, players=[*cup.players, player])
            owe = [] if len(future.players) == PLAYERS else [_signup_post(gt, future)]
            cup = await core.storage.cups.join(cup.id, player, owe=owe)
        except CupFullError:
            return Reply(t._("The cup is full."), alert=True)
        opened = len(cup.players) < PLAYERS or await _open_round(core, gt, cup, 1, [])
    core.wake_sender()
    if not opened:
        return Reply(_table_open(t), alert=True)
    return Reply(t._("You are in the cup."))


def _table_open(t: Translator) -> str:
    return t._(
        "A table is open in this chat: the cup begins once it is over. Press Join again then."
    )


def cup_won(cup: CupRecord, won: Sequence[CupPlayer]) -> list[int]:
    """Who earns the cup's achievement: its winner(s) (a shared win names them all) who did
    not forfeit; stored with the cup's end, in its transaction."""
    return [p.user_id for p in won if not p.forfeited]


async def resume(core: Core) -> int:
    """After a start: a cup whose match ended just before a stop goes on (its standings, its
    next match or its end); ``after_match`` does each step once, whoever runs it."""
    stalled = await core.storage.cups.stalled()
    for table_id in stalled:
        table = await core.storage.tables.get(table_id)
        if table is not None:
            await after_match(core, table)
    return len(stalled)


async def after_match(core: Core, table: TableRecord) -> None:
    """A table's match ended (after its commit): if it was a cup's round, the standings
    message is edited and the next round opens, or the cup ends."""
    if table.status != TableStatus.FINISHED:
        return
    found = await core.storage.cups.of_table(table.id)
    if found is None:
        return
    cup, round_no = found
    if round_no != max(cup.rounds) or round_no + 1 in cup.rounds:
        return  # an older round, or the next one is open already
    t = await chat_t(core, cup.chat_id)
    results = await _results(core, cup)
    left = _left(cup, table, round_no)
    for player in cup.players:
        if player.user_id in left:
            player.forfeited = True
    async with core.chat_locks.hold(cup.chat_id):
        if round_no < ROUNDS:
            await _open_round(core, t, cup, round_no + 1, results, forfeited=left)
        else:
            won = [cup.players[p] for p in winners(results)]
            body = _standings(t, cup, results, winners=[p.name for p in won])
            if await core.storage.cups.update(
                cup.id,
                forfeited=left,
                finished=True,
                owe=[_over(cup, body)],
                winners=cup_won(cup, won),
            ):
                log.info("cup %s won by %s", cup.id, ", ".join(p.name for p in won))
    core.wake_sender()


# ------------------------------------------------------------------ inside


def _head(t: Translator, cup: CupRecord) -> str:
    variant = get_variant(cup.variant)
    rules = brief(t, Options.from_json(cup.options, cup.variant))
    return text.title(t, variant_name(t, variant), rules)


def _signup_post(t: Translator, cup: CupRecord, *, new: bool = False) -> Owed:
    """The sign-up message: a new one for a new cup, else an edit of it."""
    body = text.signup_text(t, _head(t, cup), [p.name for p in cup.players])
    return feed.post(
        cup.chat_id,
        body,
        table_id=0 if new else post_id(cup.id),
        over=None if new else cup.message_id,
        buttons=encode(text.join_buttons(t)),
        notify=new,
    )


def _over(cup: CupRecord, body: str) -> Owed:
    """The cup's message, edited (buttonless) to ``body``."""
    return feed.post(cup.chat_id, body, table_id=post_id(cup.id), over=cup.message_id)


async def _open_round(
    core: Core,
    t: Translator,
    cup: CupRecord,
    round_no: int,
    results: list[RoundResult],
    *,
    forfeited: Sequence[int] = (),
) -> bool:
    """Open the round's table, a lobby with the cup's players (computers for those who
    left) seated as ``SEATINGS`` says, and edit the cup's message, in one transaction."""
    seating = [cup.players[p] for p in SEATINGS[round_no]]
    seats = []
    for index, player in enumerate(seating):
        elsewhere = await core.storage.tables.active_for_user(player.user_id)
        if player.forfeited or elsewhere is not None:
            name = "🤖"
            seats.append(SeatRecord(index, None, name, ai_level=core.settings.default_ai_level))
        else:
            seats.append(SeatRecord(index, player.user_id, player.name))
    creator = next((s.user_id for s in seats if s.user_id is not None), cup.creator_id)
    table = TableRecord(
        id=0,
        chat_id=cup.chat_id,
        thread_id=cup.thread_id,
        status=TableStatus.LOBBY,
        variant=cup.variant,
        creator_id=creator,
        seed=random.SystemRandom().randrange(2**31),
        seats=seats,
        options=dict(cup.options),
    )
    pairing = text.pairing(t, round_no, [p.name for p in seating])
    if results:
        body = _standings(t, cup, results, next_pairing=pairing)
    else:
        body = "\n".join([_head(t, cup), "", "▶️ " + pairing])
    timers = deadlines.timer_rows(core, table)

    async def link(conn: Conn, table_id: int) -> None:
        await core.storage.cups.link_round(conn, cup.id, round_no, table_id, forfeited)

    try:
        await core.storage.tables.create(
            table,
            owe=[feed.lobby(table, renew=True), _over(cup, body)],
            timers=timers,
            also=link,
        )
    except ActiveTableExistsError:
        log.warning("cup %s: a table is open in its chat; round %s waits", cup.id, round_no)
        return False
    deadlines.wake(core, timers)
    return True


def _left(cup: CupRecord, table: TableRecord, round_no: int) -> list[int]:
    """Players who were to play this round and did not finish it in their seat (removed
    mid-match, or gone from its lobby): they forfeit the rest."""
    seated = {s.user_id for s in table.seats if s.user_id is not None}
    return [p.user_id for p in cup.players if not p.forfeited and p.user_id not in seated]


async def _results(core: Core, cup: CupRecord) -> list[RoundResult]:
    """The finished rounds' results, from their tables' matches."""
    out = []
    for round_no, table_id in sorted(cup.rounds.items()):
        table = await core.storage.tables.get(table_id)
        if table is None or table.status != TableStatus.FINISHED or table.match_state is None:
            continue
        match = core.matches.of(table)
        result = match.result
        if result is None:
            continue
        sides = [match.side_of(seat) for seat in range(match.players)]
        # By who sat where, not by the planned order: a lobby renumbers its seats.
        where = {s.user_id or s.left_user_id: s.seat for s in table.seats}
        seat_of = [where.get(p.user_id) for p in cup.players]
        out.append(round_result(round_no, result.defeat_points, sides, result.winners, seat_of))
    return out


def _standings(
    t: Translator,
    cup: CupRecord,
    results: list[RoundResult],
    *,
    next_pairing: str | None = None,
    winners: Sequence[str] = (),
) -> str:
    lines = []
    for s in standings(results):
        player = cup.players[s.player]
        who = text.CupLine(player.name, player.forfeited)
        lines.append(text.standing_line(t, s.place, who, s.taken, s.won))
    return text.standings_text(
        t,
        _head(t, cup),
        lines,
        len(results),
        next_pairing=next_pairing,
        winners=winners,
    )


async def sent(core: Core, item: Owed, message_id: int) -> None:
    """A cup's post went out as a new message: it is the cup's message from now on."""
    cup_id = cup_of_post(item.table_id)
    if cup_id is not None:
        await core.storage.cups.set_message(cup_id, message_id)


async def aimed(core: Core, item: Owed) -> Owed:
    """A cup's post is an edit of the cup's message once that is known: a change written
    while the first message was on its way (a quick press after it) edits it all the same."""
    cup_id = cup_of_post(item.table_id)
    if cup_id is None or item.message_id is not None:
        return item
    cup = await core.storage.cups.get(cup_id)
    if cup is None or cup.message_id is None:
        return item  # the first message: sent, and it becomes the cup's
    return replace(item, message_id=cup.message_id, notify=False)


async def thread_of(core: Core, table_id: int | None, chat_id: int) -> int | None:
    """The forum topic of a cup's post (None: not a cup's, or no topic)."""
    cup_id = cup_of_post(table_id)
    if cup_id is None:
        return None
    cup = await core.storage.cups.get(cup_id)
    return cup.thread_id if cup is not None and cup.chat_id == chat_id else None


async def history_lines(core: Core, t: Translator, chat_id: int) -> list[str]:
    """/history's lines of the chat's last finished cups: who won, and their matches."""
    lines = []
    for cup in await core.storage.cups.finished_in_chat(chat_id, limit=3):
        won = [cup.players[p].name for p in winners(await _results(core, cup))]
        variant = variant_name(t, get_variant(cup.variant))
        tables = [cup.rounds[r] for r in sorted(cup.rounds)]
        lines.append(text.history_line(t, variant, won, tables))
    return lines
