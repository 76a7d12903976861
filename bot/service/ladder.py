"""The ladder's use cases: /top, /stats, /history and /resetladder (the model: ``rating``)."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from kozel_rules.variant import VARIANTS, Variant

from ..callback import Callback, Op
from ..i18n import Translator, get_translator
from ..render import ladder as render_ladder
from ..render.chat import reset_done_screen, reset_kept_screen, reset_screen, reset_stale_screen
from ..render.rules_text import variant_name
from ..screen import Screen
from ..storage import (
    ALL_VARIANTS,
    HistoryPage,
    LadderBoard,
    MatchRecord,
    PlayerCard,
    Standing,
    UserRecord,
    player_key,
)
from . import cup, feed, partners
from .core import Core
from .people import chat_record, remember
from .ports import ChatInfo, Person, Shared
from .rating import rate
from .reply import IsAdmin, Press, Reply
from .translators import chat_t, user_t

log = logging.getLogger(__name__)

TOP_SIZE = 10
HISTORY_SIZE = 10
FORM_SIZE = 10
PRIVATE_CHATS_SHOWN = 5
RESET_YES, RESET_NO = "yes", "no"


async def record(core: Core, match: MatchRecord) -> int:
    """Store a finished match and rate it, in one transaction (idempotent per table)."""
    return await core.storage.ladder.record(match, rate=rate)


# ------------------------------------------------------------------ arguments


@dataclass(frozen=True)
class LadderQuery:
    variant: Variant | None = None
    season: int | None = None


_SEASON_ARG = re.compile(r"^(?:s|season|#)?(\d{1,6})$", re.IGNORECASE)


def parse_query(t: Translator, args: Sequence[str]) -> LadderQuery | None:
    """``[variant] [season]`` in any order: a variant's code or (translated) name, and a
    season as ``2``, ``s2`` or ``#2``. None when an argument is neither."""
    variant: Variant | None = None
    season: int | None = None
    names = VARIANTS | {variant_name(t, v).lower(): v for v in VARIANTS.values()}
    for arg in args:
        word = arg.strip().lower()
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
    scope = query.variant.name if query.variant else ALL_VARIANTS
    me = player_key(person.user_id, None)

    async def read() -> LadderBoard:
        return await core.storage.ladder.board(
            chat.chat_id, season=query.season, variant=scope, player=me, limit=TOP_SIZE
        )

    board = await _rated(core, chat.chat_id, read)
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
    if person.shared is not None:
        return await _refuse_shared(core, chat, person.shared)
    t, user = await _translator(core, chat, person)
    if chat.is_private:
        return await _private_stats(core, t, user)
    who = await _resolve(core, t, person, target)
    if isinstance(who, Reply):
        return who
    key, name = who

    async def read() -> PlayerCard:
        return await core.storage.ladder.card(chat.chat_id, key, results=FORM_SIZE)

    return await _card_reply(core, t, chat, name, await _rated(core, chat.chat_id, read))


async def _card_reply(
    core: Core, t: Translator, chat: ChatInfo, name: str, card: PlayerCard
) -> Reply:
    """One player's /stats card in a group: this season by variant, or why there is none."""
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
        key=lambda line: _ORDER.get(line.variant, 99),
    )
    extra: list[str] = []
    if overall.user_id is not None:
        extra = await partners.stats_lines(core, t, chat.chat_id, overall.user_id)
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
            extra=extra,
        )
    )


async def _resolve(
    core: Core, t: Translator, caller: Person, target: StatsTarget
) -> tuple[str, str] | Reply:
    """(player key, name) of the /stats target."""
    if target.person is not None:
        return player_key(target.person.user_id, None), target.person.first_name
    if target.username:
        user = await core.storage.users.find_by_username(target.username)
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
    await core.storage.ladder.update(rate)
    lines = await core.storage.ladder.player_standings(key)
    totals = sum_lines(lines)
    if totals is None:
        return Reply(render_ladder.no_private_stats_text(t))
    by_chat: dict[int, list[Standing]] = {}
    for line in lines:
        by_chat.setdefault(line.chat_id, []).append(line)
    chats: list[render_ladder.ChatLine] = []
    for chat_id, chat_lines in by_chat.items():
        latest = max(chat_lines, key=lambda line: line.season)
        record = await core.storage.chats.get(chat_id)
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
            extra=await partners.private_lines(core, t, user.user_id),
        )
    )


# ------------------------------------------------------------------ /history


async def history(core: Core, chat: ChatInfo, person: Person, args: Sequence[str]) -> Reply:
    if person.shared is not None:
        return await _refuse_shared(core, chat, person.shared)
    t, user = await _translator(core, chat, person)
    if chat.is_private:
        matches = await core.storage.ladder.history(user_id=user.user_id, limit=HISTORY_SIZE)
        titles: dict[int, str] = {}
        for match in matches:
            chat_id = match.record.chat_id
            if chat_id not in titles:
                record = await core.storage.chats.get(chat_id)
                titles[chat_id] = record.title if record else ""
        return Reply(screen=render_ladder.private_history_screen(t, matches, titles, _replay(core)))
    query = parse_query(t, args)
    if query is None:
        return Reply(render_ladder.usage_text(t, "history"))

    async def read() -> HistoryPage:
        return await core.storage.ladder.history_page(
            chat.chat_id,
            season=query.season,
            variant=query.variant.name if query.variant else None,
            limit=HISTORY_SIZE,
        )

    page = await _rated(core, chat.chat_id, read)
    if not 1 <= page.season <= page.current.season:
        return Reply(render_ladder.no_season_text(t, page.season, page.current.season))
    screen = render_ladder.history_screen(
        t,
        chat_title=chat.title,
        season=page.season,
        current_season=page.current.season,
        variant=query.variant,
        matches=page.matches,
        replay=_replay(core),
    )
    cups = await cup.history_lines(core, t, chat.chat_id)  # the chat's last cups, below
    if cups:
        screen = replace(screen, text="\n\n".join([screen.text, *cups]))
    return Reply(screen=screen)


def _replay(core: Core) -> Callable[[int], str | None]:
    """A match's replay link, from its first deal (the Mini App's Direct Link)."""
    return lambda table_id: feed.replay_link(core, table_id, 1)


# ------------------------------------------------------------------ /resetladder


async def reset_command(core: Core, chat: ChatInfo, person: Person, is_admin: IsAdmin) -> Reply:
    t, _user = await _translator(core, chat, person)
    if chat.is_private:
        return Reply(t._("Ladders belong to group chats: send /resetladder in the group."))
    if not await is_admin():
        return Reply(t._("Only chat admins can reset the ladder."))
    season = await core.storage.ladder.season(chat.chat_id)

    def data(answer: str) -> str:
        return Callback(0, season.season, Op.RESET, answer).encode()

    return Reply(
        screen=reset_screen(t, season=season.season, yes=data(RESET_YES), no=data(RESET_NO))
    )


async def reset_press(core: Core, press: Press) -> Reply:
    """A press on the confirmation. ``cb.version`` is the season the question was about, so a
    second press, or one on an old question, changes nothing."""
    cb, chat, person = press.cb, press.chat, press.person
    user = await remember(core, person)
    ut = user_t(user)
    if chat.is_private or cb.table != 0 or cb.arg not in (RESET_YES, RESET_NO):
        return Reply(ut._("This button is not valid."), alert=True)
    t = await chat_t(core, chat.chat_id)
    current = await core.storage.ladder.season(chat.chat_id)
    if cb.version != current.season:  # before asking Telegram for rights
        return _stale(ut, reset_stale_screen(t, season=current.season))
    if not await press.is_admin():
        return Reply(ut._("Only chat admins can reset the ladder."), alert=True)
    if cb.arg == RESET_NO:
        kept = reset_kept_screen(t, season=current.season)
        return Reply(ut._("The ladder stays as it is."), screen=kept)
    started = await core.storage.ladder.start_season(
        chat.chat_id, after=cb.version, by=person.user_id
    )
    if started is None:
        current = await core.storage.ladder.season(chat.chat_id)
        return _stale(ut, reset_stale_screen(t, season=current.season))
    log.info(
        "ladder of chat %s: season %s started by %s", chat.chat_id, started.season, user.user_id
    )
    done = reset_done_screen(t, old=cb.version, new=started.season, by=person.first_name)
    return Reply(ut._("A new season has started."), screen=done)


def _stale(ut: Translator, screen: Screen) -> Reply:
    text = ut._("This question is out of date: the season has changed.")
    return Reply(text, alert=True, screen=screen)


# ------------------------------------------------------------------ helpers


async def _refuse_shared(core: Core, chat: ChatInfo, shared: Shared) -> Reply:
    """A message sent as a channel, or as the group by an anonymous admin, is nobody's: the
    ladder answers people (and stores no user for a sender id many share)."""
    t = await chat_t(core, chat.chat_id)
    if shared is Shared.CHANNEL:
        return Reply(
            t._("You are writing as a channel: the ladder answers people. Write as yourself.")
        )
    return Reply(
        t._(
            "You are writing anonymously (as the group): I cannot tell who asks. Write as yourself."
        )
    )


async def _translator(core: Core, chat: ChatInfo, person: Person) -> tuple[Translator, UserRecord]:
    """Groups speak the chat's language; private chats the user's own."""
    user = await remember(core, person, private=chat.is_private)
    if chat.is_private:
        return user_t(user), user
    record = await chat_record(core, chat, creator=user)
    return get_translator(record.language), user


Read = TypeVar("Read", LadderBoard, PlayerCard, HistoryPage)


async def _rated(core: Core, chat_id: int, read: Callable[[], Awaitable[Read]]) -> Read:
    """Read; if matches wait to be rated, rate them first and read again."""
    page = await read()
    if page.pending:
        await core.storage.ladder.update(rate, chat_id)
        page = await read()
    return page


_ORDER = {name: i for i, name in enumerate(VARIANTS)}
