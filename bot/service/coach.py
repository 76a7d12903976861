"""The coach: "How did I play?" about a finished deal, asked from the hand or the Mini App.

A press is checked at once (the table and its record still exist, the deal is over, the
presser sat in it, they have not asked about it before, nothing of theirs is under way) and
answered with a short note; the review itself (``kozel_rules.ai.coach.review_deal``: the
expert's judgement of each of the player's decisions from what they could see then) runs in
the background (``Analyses``). Its answer is posted to the player's private chat, in their
language, together with a log line on the table that says they were answered: a second
press, on any worker, is refused, and an answer is sent at most once.
"""

from __future__ import annotations

import logging
from typing import Any

from kozel_rules.ai.coach import DealReview, Mistake, review_deal
from kozel_rules.match import Match

from ..callback import Callback, Op
from ..render.coach import review_text
from ..storage import LogEntry, LogKind, Owed, TableRecord
from . import feed
from .core import Core
from .people import chat_title, remember
from .ports import Person
from .reply import Press, Reply
from .retry import retry_stale
from .seat_lookup import seat_of_user
from .translators import user_t, user_t_by_id

log = logging.getLogger(__name__)


async def press(core: Core, press: Press) -> Reply:
    """The hand's button: ``v1:<table>:<deal>:coach``."""
    return await ask(core, press.cb.table, press.person, press.cb.version)


async def ask(core: Core, table_id: int, person: Person, deal: int) -> Reply:
    """Start a review of ``person``'s play in ``deal`` of the table, or refuse (a translated
    alert; nothing changes)."""
    user = await remember(core, person, private=True)
    t = user_t(user)
    table = await core.storage.tables.get(table_id)
    if table is None or table.match_state is None:
        return Reply(t._("The record of that match is no longer kept."), alert=True)
    seat = seat_of_user(table, person.user_id)
    match = core.matches.of(table)
    if seat is not None and deal > len(match.deal_results):
        return Reply(t._("That deal is not over yet."), alert=True)
    if seat is None or not played(match, seat, deal):
        return Reply(t._("You did not play in that deal."), alert=True)
    if await _answered(core, table_id, person.user_id, deal):
        return Reply(
            t._("You already asked about deal {n}: the answer is in your private chat.", n=deal),
            alert=True,
        )
    key = (table_id, person.user_id, deal)
    if key in core.analyses.pending:
        return Reply(t._("The coach is already looking at deal {n}.", n=deal), alert=True)
    if core.analyses.busy:
        return Reply(t._("The coach is busy. Please ask again in a minute."), alert=True)
    record = dict(table.match_state)
    core.analyses.start(key, lambda: _review(core, table.id, seat, person.user_id, deal, record))
    return Reply(
        "🎓 "
        + t._(
            "The coach is looking at your play in deal {n}. The answer comes in your "
            "private chat in a moment.",
            n=deal,
        )
    )


def played(match: Match, seat: int, deal: int) -> bool:
    """Did ``seat`` play deal ``deal`` to its end (the deal is over, the seat was still in)?"""
    if not 1 <= deal <= len(match.deal_results):
        return False
    side = match.side_of(seat)
    return not any(side in r.out for r in match.deal_results[: deal - 1])


def coach_deal(match: Match, seat: int) -> int | None:
    """The deal a player may ask the coach about now: the last one they played."""
    for result in reversed(match.deal_results):
        if played(match, seat, result.number):
            return result.number
    return None


def coach_button(table_id: int, match: Match, seat: int) -> tuple[int, str] | None:
    """The hand's coach button: the last deal the seat played and the button's data (the
    callback's version field carries the deal), or None before the first deal is over."""
    deal = coach_deal(match, seat)
    if deal is None:
        return None
    return deal, Callback(table_id, deal, Op.COACH).encode()


async def _answered(core: Core, table_id: int, user_id: int, deal: int) -> bool:
    for entry in await core.storage.tables.log(table_id, LogKind.COACH):
        data = entry.data or {}
        if data.get("user") == user_id and data.get("deal") == deal:
            return True
    return False


async def _review(
    core: Core, table_id: int, seat: int, user_id: int, deal: int, record: dict[str, Any]
) -> None:
    try:
        review: DealReview = await core.analyses.compute(
            review_deal, record, seat, deal=deal, seed=f"{table_id}/{deal}/{seat}"
        )
    except Exception:  # a review that failed or took too long: say so, keep the bot going
        log.exception("coach: the review of table %s deal %s failed", table_id, deal)
        t = await user_t_by_id(core, user_id)
        text = "🎓 " + t._("The coach could not finish looking at deal {n}. Sorry!", n=deal)
        await feed.owe(core, [feed.post(user_id, text, table_id=table_id)])
        return
    await _deliver(core, table_id, user_id, review)


@retry_stale
async def _deliver(core: Core, table_id: int, user_id: int, review: DealReview) -> None:
    """Post the answer and log that it was given, in one save (at most once)."""
    async with core.table_locks.hold(table_id):
        table = await core.storage.tables.get(table_id)
        if table is None or await _answered(core, table_id, user_id, review.deal):
            return
        user = await core.storage.users.get(user_id)
        t = user_t(user)
        chat = user.private_chat_id if user and user.private_chat_id else user_id
        text = review_text(t, review, chat_title=await chat_title(core, table.chat_id))
        entry = LogEntry(
            LogKind.COACH,
            ply=None,
            seat=review.seat,
            text=f"coach deal {review.deal}: {len(review.mistakes)} mistakes",
            data={
                "user": user_id,
                "deal": review.deal,
                "mistakes": len(review.mistakes),
                "marks": [_mark(m) for m in review.mistakes],  # the replay shows them
            },
        )
        await _save(core, table, entry, feed.post(chat, text, table_id=table_id))


def _mark(m: Mistake) -> dict[str, Any]:
    """A mistake as the replay reads it (``replay.marks_of``): the play by its index in the
    match's history, what the expert would have played, and the cost."""
    return {
        "ply": m.ply,
        "played": str(m.played),
        "better": str(m.better),
        "points_lost": round(m.points_lost, 1),
        "chance_before": round(m.better_outlook.win_chance * 100),
        "chance_after": round(m.played_outlook.win_chance * 100),
    }


async def _save(core: Core, table: TableRecord, entry: LogEntry, post: Owed) -> None:
    await core.storage.tables.save(
        table, expected_version=table.version, log=[entry], owe=[post], timers=None
    )
    core.wake_sender()
