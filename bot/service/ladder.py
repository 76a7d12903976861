"""Per-chat ladders: rating finished matches, and the /top, /stats, /history, /resetladder cases.

The model
---------
Ratings come from OpenSkill's Plackett-Luce model (``openskill``), with its default parameters
(a new player: mu 25, sigma 25/3). A match is one "game" between its sides, ranked by how they
finished: the winners first, then the sides that went out in reverse order (so with three
players in ``moscow`` the goat, the last one out, is second and the first one out third). With
four players the two teams are two teams of two; with two or three every player is a team.

Every chat has its own ladder: a player's rating in one chat knows nothing of other chats. In a
chat there are four ratings per player and season: one per variant (the variant's own ladder,
``/top street``) and one over every variant (``/top``, the chat's main ladder). Each match
updates its variant's rating and the overall one. ``/resetladder`` starts a new season: the new
season starts everyone afresh, the old seasons stay stored and can be shown (``/top s1``).

Computer players are rated like anyone, one identity per level ("🤖 strong"). When one level
holds several seats of a match (two "strong" computers), each seat is rated as a player with the
level's rating, and the level's new rating adds up the seats' changes of the mean (the smallest
new sigma is kept). They appear in the ladder, marked 🤖, but the champion's title goes to the
best human.

The ladder shows a conservative estimate, OpenSkill's ordinal mu - 3 sigma, scaled as
``1000 + 40 * (mu - 3 sigma)``: a newcomer shows 1000, and the number firms up with each match.

Matches are rated in the transaction that records them (``Storage.record_match`` with
``rate``). Matches stored without a rating (from schema version 1, or after a chat migration)
are rated, oldest first, the next time the chat's ladder is looked at.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from .. import render_ladder
from ..callback import Callback
from ..i18n import Translator, get_translator
from ..render import VARIANTS
from ..rules_text import variant_name
from ..screen import Screen
from ..storage import (
    ALL_VARIANTS,
    HistoryPage,
    LadderBoard,
    MatchRecord,
    Rating,
    RatingChange,
    Standing,
    UserRecord,
    player_key,
)
from .core import Core
from .ports import ChatInfo, Person, Reply

log = logging.getLogger(__name__)

IsAdmin = Callable[[], Awaitable[bool]]

MODEL = PlackettLuce()
DISPLAY_SCALE = 40.0  # openskill's ordinal alpha
DISPLAY_BASE = 1000.0  # ... and its target: a new player's displayed rating
TOP_SIZE = 10
HISTORY_SIZE = 10
FORM_SIZE = 10
PRIVATE_CHATS_SHOWN = 5
RESET_OP = "reset"
RESET_YES, RESET_NO = "yes", "no"


# ------------------------------------------------------------------ the rating model


def rating_of(mu: float, sigma: float) -> Rating:
    value = MODEL.rating(mu=mu, sigma=sigma).ordinal(alpha=DISPLAY_SCALE, target=DISPLAY_BASE)
    return Rating(mu, sigma, value)


def new_rating() -> Rating:
    fresh = MODEL.rating()
    return rating_of(fresh.mu, fresh.sigma)


def side_ranks(match: MatchRecord) -> dict[int, int]:
    """Side -> finishing place (1 = won). Taken from the engine's result (``winners`` and
    ``losers`` in the order they went out) when it is there and consistent, else from the
    seats' won/goat flags (winners 1, the goat 2, any other side 3)."""
    sides = sorted({p.side for p in match.players_list})
    winners = sorted({p.side for p in match.players_list if p.won})
    losers = match.result.get("losers")
    if (
        isinstance(losers, list)
        and all(isinstance(s, int) for s in losers)
        and sorted(losers) == sorted(set(sides) - set(winners))
        and len(set(losers)) == len(losers)
    ):
        ranks = {side: 1 for side in winners}
        for place, side in enumerate(reversed(losers), start=2):
            ranks[side] = place
        return ranks
    goats = {p.side for p in match.players_list if p.goat and not p.won}
    return {side: 1 if side in winners else (2 if side in goats else 3) for side in sides}


def rate(match: MatchRecord, before: Sequence[Rating | None]) -> list[RatingChange]:
    """The ``Rater`` the storage calls: every seat's rating change in one scope."""
    seats = match.players_list
    start = [b if b is not None else new_rating() for b in before]
    ranks = side_ranks(match)
    sides = sorted(ranks)
    if len(sides) < 2:  # nobody to be measured against: counted, not rated
        return [RatingChange(rank=1, before=b, after=b) for b in start]
    members = {side: [i for i, p in enumerate(seats) if p.side == side] for side in sides}
    teams = [
        [MODEL.rating(mu=start[i].mu, sigma=start[i].sigma) for i in members[side]]
        for side in sides
    ]
    rated: list[list[PlackettLuceRating]] = MODEL.rate(
        teams, ranks=[float(ranks[side]) for side in sides]
    )
    after: dict[int, PlackettLuceRating] = {}
    for side, team in zip(sides, rated, strict=True):
        for index, new in zip(members[side], team, strict=True):
            after[index] = new
    # One identity in several seats (computer players of one level): combine the seats.
    keys = [player_key(p.user_id, p.ai_level) for p in seats]
    combined: dict[str, Rating] = {}
    for key in set(keys):
        indexes = [i for i, k in enumerate(keys) if k == key]
        first = start[indexes[0]]
        mu = first.mu + sum(after[i].mu - first.mu for i in indexes)
        sigma = min(after[i].sigma for i in indexes)
        combined[key] = rating_of(mu, sigma)
    return [
        RatingChange(rank=ranks[p.side], before=start[i], after=combined[keys[i]])
        for i, p in enumerate(seats)
    ]


async def record(core: Core, match: MatchRecord) -> int:
    """Store a finished match and rate it, in one transaction (idempotent per table)."""
    return await core.storage.record_match(match, rate=rate)


# ------------------------------------------------------------------ arguments


@dataclass(frozen=True)
class LadderQuery:
    variant: str | None = None
    season: int | None = None


_SEASON_ARG = re.compile(r"^(?:s|season|#)?(\d{1,6})$", re.IGNORECASE)


def parse_query(t: Translator, args: Sequence[str]) -> LadderQuery | None:
    """``[variant] [season]`` in any order: a variant's code or (translated) name, and a
    season as ``2``, ``s2`` or ``#2``. None when an argument is neither."""
    variant: str | None = None
    season: int | None = None
    for arg in args:
        word = arg.strip().lower()
        names = {v: v for v in VARIANTS} | {variant_name(t, v).lower(): v for v in VARIANTS}
        if word in names and variant is None:
            variant = names[word]
            continue
        found = _SEASON_ARG.match(word)
        if found and season is None:
            season = int(found.group(1))
            continue
        return None
    return LadderQuery(variant, season)


@dataclass(frozen=True)
class StatsTarget:
    """Whose /stats: a replied-to or mentioned person, or an @username as typed."""

    person: Person | None = None
    username: str | None = None


# ------------------------------------------------------------------ /top


async def top(core: Core, chat: ChatInfo, person: Person, args: Sequence[str]) -> Reply:
    t, _user = await _translator(core, chat, person)
    if chat.is_private:
        return Reply(
            t._(
                "Ladders live in group chats: send /top there. "
                "Here, /stats shows your totals across all chats."
            )
        )
    query = parse_query(t, args)
    if query is None:
        return Reply(render_ladder.usage_text(t, "top"))
    scope = query.variant or ALL_VARIANTS
    me = player_key(person.user_id, None)

    async def read() -> LadderBoard:
        return await core.storage.ladder_board(
            chat.chat_id, season=query.season, variant=scope, player=me, limit=TOP_SIZE
        )

    board = await read()
    if board.pending:
        await core.storage.update_ladder(rate, chat.chat_id)
        board = await read()
    if not 1 <= board.season.season <= board.current.season:
        return Reply(render_ladder.no_season_text(t, board.season.season, board.current.season))
    return Reply(
        screen=render_ladder.top_screen(
            t,
            chat_title=chat.title,
            season=board.season,
            current_season=board.current.season,
            variant=query.variant,
            lines=board.lines,
            caller=board.caller,
            me=me,
            size=board.size,
        )
    )


# ------------------------------------------------------------------ /stats


async def stats(core: Core, chat: ChatInfo, person: Person, target: StatsTarget) -> Reply:
    t, user = await _translator(core, chat, person)
    if chat.is_private:
        return await _private_stats(core, t, user)
    who = await _resolve(core, t, person, target)
    if isinstance(who, Reply):
        return who
    key, name = who
    card = await core.storage.player_card(chat.chat_id, key, results=FORM_SIZE)
    if card.pending:
        await core.storage.update_ladder(rate, chat.chat_id)
        card = await core.storage.player_card(chat.chat_id, key, results=FORM_SIZE)
    season = card.current.season
    current = [line for line in card.lines if line.season == season]
    overall = next((line for line in current if line.variant == ALL_VARIANTS), None)
    every_season = [line for line in card.lines if line.variant == ALL_VARIANTS]
    if overall is None:
        return Reply(
            render_ladder.no_stats_text(
                t, name=name, season=season, earlier=sum_lines(every_season)
            )
        )
    by_variant = sorted(
        (line for line in current if line.variant != ALL_VARIANTS),
        key=lambda line: VARIANTS.index(line.variant) if line.variant in VARIANTS else 99,
    )
    return Reply(
        screen=render_ladder.stats_screen(
            t,
            chat_title=chat.title,
            season=season,
            overall=overall,
            rank=card.rank or 0,
            size=card.size,
            by_variant=by_variant,
            results=card.results,
            every_season=sum_lines(every_season) if len(every_season) > 1 else None,
        )
    )


async def _resolve(
    core: Core, t: Translator, caller: Person, target: StatsTarget
) -> tuple[str, str] | Reply:
    """(player key, name) of the /stats target."""
    if target.person is not None:
        return player_key(target.person.user_id, None), target.person.first_name
    if target.username:
        user = await core.storage.find_user(target.username)
        if user is None:
            return Reply(render_ladder.unknown_user_text(t, target.username))
        return player_key(user.user_id, None), user.first_name
    return player_key(caller.user_id, None), caller.first_name


def sum_lines(lines: Sequence[Standing]) -> render_ladder.Totals | None:
    if not lines:
        return None
    tally = lines[0].tally
    for line in lines[1:]:
        tally = tally + line.tally
    return render_ladder.Totals(tally=tally, chats=len({line.chat_id for line in lines}))


async def _private_stats(core: Core, t: Translator, user: UserRecord) -> Reply:
    key = player_key(user.user_id, None)
    await core.storage.update_ladder(rate)
    lines = await core.storage.player_standings(key)
    totals = sum_lines(lines)
    if totals is None:
        return Reply(render_ladder.no_private_stats_text(t))
    by_chat: dict[int, list[Standing]] = {}
    for line in lines:
        by_chat.setdefault(line.chat_id, []).append(line)
    chats: list[render_ladder.ChatLine] = []
    for chat_id, chat_lines in by_chat.items():
        latest = max(chat_lines, key=lambda line: line.season)
        record = await core.storage.get_chat(chat_id)
        summed = sum_lines(chat_lines)
        assert summed is not None
        chats.append(
            render_ladder.ChatLine(
                title=record.title if record else "",
                latest=latest,
                tally=summed.tally,
            )
        )
    chats.sort(key=lambda c: (-c.tally.matches, c.title))
    return Reply(
        screen=render_ladder.private_stats_screen(
            t,
            name=user.first_name,
            totals=totals,
            chats=chats[:PRIVATE_CHATS_SHOWN],
            more=max(0, len(chats) - PRIVATE_CHATS_SHOWN),
        )
    )


# ------------------------------------------------------------------ /history


async def history(core: Core, chat: ChatInfo, person: Person, args: Sequence[str]) -> Reply:
    t, user = await _translator(core, chat, person)
    if chat.is_private:
        matches = await core.storage.match_history(user_id=user.user_id, limit=HISTORY_SIZE)
        titles: dict[int, str] = {}
        for match in matches:
            chat_id = match.record.chat_id
            if chat_id not in titles:
                record = await core.storage.get_chat(chat_id)
                titles[chat_id] = record.title if record else ""
        return Reply(screen=render_ladder.private_history_screen(t, matches, titles))
    query = parse_query(t, args)
    if query is None:
        return Reply(render_ladder.usage_text(t, "history"))

    async def read() -> HistoryPage:
        return await core.storage.history_page(
            chat.chat_id, season=query.season, variant=query.variant, limit=HISTORY_SIZE
        )

    page = await read()
    if page.pending:
        await core.storage.update_ladder(rate, chat.chat_id)
        page = await read()
    if not 1 <= page.season <= page.current.season:
        return Reply(render_ladder.no_season_text(t, page.season, page.current.season))
    return Reply(
        screen=render_ladder.history_screen(
            t,
            chat_title=chat.title,
            season=page.season,
            current_season=page.current.season,
            variant=query.variant,
            matches=page.matches,
        )
    )


# ------------------------------------------------------------------ /resetladder


async def reset_command(core: Core, chat: ChatInfo, person: Person, is_admin: IsAdmin) -> Reply:
    t, _user = await _translator(core, chat, person)
    if chat.is_private:
        return Reply(t._("Ladders belong to group chats: send /resetladder in the group."))
    if not await is_admin():
        return Reply(t._("Only chat admins can reset the ladder."))
    season = await core.storage.ladder_season(chat.chat_id)

    def data(answer: str) -> str:
        return Callback(0, season.season, RESET_OP, answer).encode()

    return Reply(
        screen=render_ladder.reset_screen(
            t, season=season.season, yes=data(RESET_YES), no=data(RESET_NO)
        )
    )


async def reset_press(
    core: Core, cb: Callback, chat: ChatInfo, person: Person, is_admin: IsAdmin
) -> tuple[Reply, Screen | None]:
    """A press on the confirmation. ``cb.version`` is the season the question was about, so a
    second press, or one on an old question, changes nothing."""
    user = await core.remember(person)
    ut = core.user_t(user)
    if chat.is_private or cb.op != RESET_OP or cb.table != 0 or cb.arg not in (RESET_YES, RESET_NO):
        return Reply(ut._("This button is not valid."), alert=True), None
    if not await is_admin():
        return Reply(ut._("Only chat admins can reset the ladder."), alert=True), None
    t = await core.chat_t(chat.chat_id)
    current = await core.storage.ladder_season(chat.chat_id)
    if cb.version != current.season:
        return Reply(ut._("This question is out of date: the season has changed."), alert=True), (
            render_ladder.reset_stale_screen(t, season=current.season)
        )
    if cb.arg == RESET_NO:
        return Reply(ut._("The ladder stays as it is.")), render_ladder.reset_kept_screen(
            t, season=current.season
        )
    started = await core.storage.start_season(chat.chat_id, after=cb.version, by=person.user_id)
    if started is None:
        current = await core.storage.ladder_season(chat.chat_id)
        return Reply(ut._("This question is out of date: the season has changed."), alert=True), (
            render_ladder.reset_stale_screen(t, season=current.season)
        )
    log.info(
        "ladder of chat %s: season %s started by %s", chat.chat_id, started.season, user.user_id
    )
    return Reply(ut._("A new season has started.")), render_ladder.reset_done_screen(
        t, old=cb.version, new=started.season, by=person.first_name
    )


# ------------------------------------------------------------------ helpers


async def _translator(core: Core, chat: ChatInfo, person: Person) -> tuple[Translator, UserRecord]:
    """Groups speak the chat's language; private chats the user's own."""
    user = await core.remember(person, private=chat.is_private)
    if chat.is_private:
        return core.user_t(user), user
    record = await core.chat_record(chat, creator=user)
    return get_translator(record.language), user
