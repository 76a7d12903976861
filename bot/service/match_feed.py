"""What a committed change of a running match owes: a deal's and the match's results, the
group's table, and each hand when it matters to its player (``feed`` makes the rows).

Hands are spent where players feel them: the player whose turn it is now, then the one who
just acted; a player who only waits hears again when their own cards change, later and merged;
nobody is told of every card the others play.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from kozel_rules.card import Card
from kozel_rules.event import DealEnded, MatchEnded, TrickTaken
from kozel_rules.match import Match
from kozel_rules.result import DealResult

from ..i18n import Translator
from ..render.achievements import MomentText, moment_line
from ..render.labels import SeatInfo
from ..render.ladder import replay_html
from ..render.next_table import result_buttons
from ..render.results import deal_result_text, match_result_text
from ..storage import Owed, SeatRecord, TableRecord
from . import match_facts, urgency
from .change import Change
from .core import Core
from .feed import group_table, hand, post, replay_link
from .post_buttons import encode
from .seat_lookup import seat_infos
from .translators import chat_t

# How many ``hand_interval``s the hand of a player who has just played waits at most for its
# next change when the bot is busy (about a trick at a human pace): one edit instead of two.
PLAYED_WAIT = 3.0


@dataclass(frozen=True)
class SeatState:
    """What a seat's hand message shows that matters to its player."""

    cards: tuple[Card, ...]
    specials: bool  # a special lead may be declared now
    to_move: bool


def seat_states(match: Match) -> list[SeatState]:
    states = []
    for seat in range(match.players):
        view = match.view(seat)
        specials = any(a.verb.is_special for a in view.legal)
        states.append(SeatState(view.hand, specials, view.to_move == seat))
    return states


async def after_change(
    core: Core,
    table: TableRecord,
    match: Match,
    change: Change,
    before: list[SeatState] | None = None,
) -> list[Owed]:
    """What a committed change of a running match owes: results, the table, the hands.
    A deal's result takes the place of its table (an edit); the next deal's table is a new
    message below it; the match's result is the last message."""
    t = await chat_t(core, table.chat_id)
    seats = seat_infos(table, t)
    owed: list[Owed] = []
    for event in change.events:
        if isinstance(event, DealEnded):
            text = deal_text(t, match, event.result, seats)
            text += replay_line(t, core, table.id, event.result.number)
            over = table.table_message_id
            table.table_message_id = None  # the next table is a new message
            owed.append(post(table.chat_id, text, table_id=table.id, notify=False, over=over))
        elif isinstance(event, MatchEnded):
            text = result_text(t, match, seats)
            # Its buttons cost no message: a rematch, or word of the next table.
            buttons = encode(result_buttons(t))
            owed.append(post(table.chat_id, text, table_id=table.id, buttons=buttons))
    trick_over = any(isinstance(event, TrickTaken) for event in change.events)
    # After a deal's result the table is a new message (``renew``): while that result waits
    # for a retry, nothing new may appear above it (``sender.heads``).
    deal_over = any(isinstance(event, DealEnded) for event in change.events)
    owed.append(group_table(core, table, renew=deal_over, urgent=trick_over))
    owed += _hands_after(core, table, match, change, before)
    return owed


def _hands_after(
    core: Core,
    table: TableRecord,
    match: Match,
    change: Change,
    before: list[SeatState] | None,
) -> list[Owed]:
    after = seat_states(match)
    to_move = None if match.is_over else match.to_move
    owed = []
    for record in table.seats:
        seat = record.seat
        if record.user_id is None:
            continue
        if change.started:
            # The match begins: every hand is a new message, with a sound (the start also
            # counts as their last press: the first turn needs no second sound).
            priority = urgency.seat_priority(started=True, to_move=seat == to_move)
            owed.append(hand(core, table, seat, priority, notify=not record.away))
        elif seat == to_move:
            owed.append(_turn_hand(core, table, record, change))
        else:
            owed += _other_hand(core, table, match, seat, change, before, after)
    return owed


def _turn_hand(core: Core, table: TableRecord, record: SeatRecord, change: Change) -> Owed:
    """The hand of the seat to move: a player who has not pressed for a while gets it anew,
    with a sound."""
    assert record.user_id is not None
    asked = change.actor != record.seat  # (a start is told apart before)
    pressed = max(record.active_at or 0.0, core.presses.last_pressed(record.user_id) or 0.0)
    idle = time.time() - pressed > core.settings.active_for
    renew = asked and idle and not record.away
    return hand(core, table, record.seat, urgency.seat_priority(to_move=True), renew=renew)


def _other_hand(
    core: Core,
    table: TableRecord,
    match: Match,
    seat: int,
    change: Change,
    before: list[SeatState] | None,
    after: list[SeatState],
) -> list[Owed]:
    """The hand of a seat not to move (none if the change left it as it was)."""
    quiet = not match.is_over and before is not None
    priority = urgency.seat_priority(quiet=quiet)  # they wait, unless the match ended or is new
    if before is None or not quiet:
        return [hand(core, table, seat, priority)]
    if seat == change.actor and change.answered and core.budget.busy():
        # They just played, and their press's answer said what; the bot is busy: their
        # hand waits, and merges with the next change of their cards (a trick's end: a
        # draw) or their next turn. A tap on it meanwhile is answered with their play, and
        # shows the hand (``moves.toggle``). Cards they got with it (a draw, the next
        # deal) they have not been told of: those wait as any waiting player's do. On a
        # quiet evening the hand shows the play at once (below): no stale prompt.
        only_played = set(after[seat].cards) <= set(before[seat].cards)
        wait = core.settings.hand_interval * (PLAYED_WAIT if only_played else 1.0)
        return [hand(core, table, seat, priority, delay=wait)]
    if seat == change.actor or before[seat].to_move:
        # Their own play (the bot is not busy), or their turn played for them (a timer, a
        # computer): at once when the budget allows, else behind the turns, trick ends and
        # the group.
        return [hand(core, table, seat, priority, delay=0.0)]
    if before[seat] != after[seat]:
        return [hand(core, table, seat, priority)]
    return []


def replay_line(t: Translator, core: Core, table_id: int, deal: int) -> str:
    """The group's link to the deal's replay, under its result."""
    return replay_html(t, replay_link(core, table_id, deal))


def result_text(
    t: Translator, match: Match, seats: list[SeatInfo], awards: str | None = None
) -> str:
    """The finished match's result as the group reads it, with its house rules, its moment
    and (once the ladder's transaction knows them) the achievements it earned."""
    result = match.result
    assert result is not None
    view = match.view(None)
    found = match_facts.moment(match)
    moment = None
    if found is not None:
        shown = MomentText(
            str(found.kind), found.deal, found.seat, found.other, found.side, found.points
        )
        moment = moment_line(t, shown, seats, view.sides)
    return match_result_text(
        t,
        result=result,
        view=view,
        seats=seats,
        options=match.options,
        moment=moment,
        awards=awards,
    )


def deal_text(t: Translator, match: Match, result: DealResult, seats: list[SeatInfo]) -> str:
    """A finished deal's result as the group reads it (the Mini App shows it too)."""
    out_before = _out_before(match, result)
    return deal_result_text(
        t,
        result=result,
        view=match.view(None),
        seats=seats,
        totals=_totals_after(match, result.number),
        sides_in=[s for s in range(match.sides) if s not in out_before],
        options=match.options,
    )


def _out_before(match: Match, result: DealResult) -> set[int]:
    """Sides already out before the given deal was played."""
    out: set[int] = set()
    for earlier in match.deal_results:
        if earlier.number >= result.number:
            break
        out.update(earlier.out)
    return out


def _totals_after(match: Match, number: int) -> list[int]:
    totals = [0] * match.sides
    for result in match.deal_results:
        if result.number > number:
            break
        totals = [a + b for a, b in zip(totals, result.defeat_points, strict=True)]
    return totals
