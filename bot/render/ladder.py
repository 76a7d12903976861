"""Pure rendering of the ladder: /top, /stats and /history (the /resetladder question is in
chat.py, with the other admin screens).

Input is storage records (standings, matches) and a translator; output is text or a Screen.
Ratings are shown rounded; times in UTC.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape

from kozel_rules.variant import VARIANTS, Variant, get_variant

from ..i18n import Translator
from ..screen import MAX_TEXT, Screen, shown_length
from ..storage.records import (
    LadderMatch,
    MatchPlayerRecord,
    PlayerResult,
    SeasonRecord,
    Standing,
    Tally,
)
from . import house_rules
from .labels import and_list, level_name
from .rules_text import variant_name

MEDALS = ("🥇", "🥈", "🥉")


@dataclass(frozen=True)
class Totals:
    """Summed lines: across seasons of a chat, or across chats."""

    tally: Tally
    chats: int


@dataclass(frozen=True)
class ChatLine:
    """A player's line for one chat in the private /stats."""

    title: str
    latest: Standing
    """The line of the newest season the player played in there (its rating is shown)."""
    tally: Tally
    """Every season in that chat."""


def player_name(t: Translator, *, name: str, ai_level: str | None) -> str:
    """A ladder name: people by name, computer players by level, marked 🤖."""
    if ai_level is not None:
        return "🤖 " + escape(level_name(t, ai_level))
    return escape(name)


def line_name(t: Translator, line: Standing) -> str:
    return player_name(t, name=line.name, ai_level=line.ai_level)


def rating_text(value: float) -> str:
    return str(round(value))


def delta_text(before: float, after: float) -> str:
    delta = round(after) - round(before)
    return f"+{delta}" if delta > 0 else ("±0" if delta == 0 else f"−{-delta}")


def scope_name(t: Translator, variant: Variant | None) -> str:
    return t._("all variants") if variant is None else variant_name(t, variant)


def when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M")


def day(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d")


def season_line(t: Translator, season: SeasonRecord, current: int) -> str:
    text = t._("Season {n}", n=season.season)
    if season.started_at is not None:
        text += " · " + t._("since {date}", date=day(season.started_at))
    if season.season < current:
        # TRANSLATORS: a season of the ladder that has ended ("Season 1 · closed").
        text += " · " + t._("closed")
    return text


def matches_wins_goats(t: Translator, tally: Tally) -> str:
    return " · ".join(
        [
            t.n_("{n} match", "{n} matches", tally.matches),
            t.n_("{n} win", "{n} wins", tally.wins),
            "🐐 " + t.n_("{n} goat", "{n} goats", tally.goats),
        ]
    )


def tally_lines(t: Translator, tally: Tally) -> list[str]:
    """The counts of a stats card."""
    share = round(100 * tally.wins / tally.matches) if tally.matches else 0
    return [
        # TRANSLATORS: {won} and {lost} count matches too; {percent} is the share won.
        t.n_(
            "{n} match played: {won} won, {lost} lost ({percent}% won)",
            "{n} matches played: {won} won, {lost} lost ({percent}% won)",
            tally.matches,
            won=tally.wins,
            lost=tally.losses,
            percent=share,
        ),
        "🐐 " + t.n_("Goat {n} time", "Goat {n} times", tally.goats),
        "🃏 " + t._("Deals: {won} won · {lost} lost", won=tally.deals_won, lost=tally.deals_lost),
        "⚖️ "
        # TRANSLATORS: {taken}: defeat points the player's side took; {given}: defeat points
        # the other sides took in the same matches.
        + t._(
            "Defeat points: {taken} taken · {given} handed out",
            taken=tally.defeat_points_taken,
            given=tally.defeat_points_given,
        ),
        "🥚 "
        + t.n_("{n} deal with eggs", "{n} deals with eggs", tally.eggs)
        + " · 👑 "
        # TRANSLATORS: how many times the player's side caught the opponents' queen of clubs
        # with the seven of clubs (Classic Kozel).
        + t.n_("{n} queen caught", "{n} queens caught", tally.queens_caught)
        + " · "
        + t.n_("{n} trick", "{n} tricks", tally.tricks),
    ]


def usage_text(t: Translator, command: str) -> str:
    variants = "|".join(VARIANTS)
    return t._(
        "Usage: /{command} [{variants}] [season number, e.g. s2]",
        command=command,
        variants=variants,
    )


def no_season_text(t: Translator, season: int, current: int) -> str:
    return t._(
        "There is no season {n} in this chat: the current season is {current}.",
        n=season,
        current=current,
    )


def unknown_user_text(t: Translator, username: str) -> str:
    return t._(
        "I don't know {name} yet: they show up here once they have played or talked to me.",
        name=escape("@" + username.removeprefix("@")),
    )


def top_screen(
    t: Translator,
    *,
    chat_title: str,
    season: SeasonRecord,
    current_season: int,
    variant: Variant | None,
    lines: Sequence[Standing],
    caller: tuple[int, Standing] | None,
    me: str,
    size: int,
) -> Screen:
    """The chat's ladder: the top lines, and the caller's own line below them if lower.
    The champion is the best human: computer players are ranked but never hold the title."""
    text = [
        "🏆 <b>" + t._("Ladder · {chat}", chat=escape(chat_title)) + "</b>",
        season_line(t, season, current_season) + " · " + scope_name(t, variant),
    ]
    if not lines:
        text += ["", t._("No matches in this ladder yet. Start one with /newgame.")]
        return Screen.of("\n".join(text))
    champion = next((line for line in lines if line.ai_level is None), None)
    if champion is not None:
        title = (
            t._("Champion: {name}", name=line_name(t, champion))
            if season.season == current_season
            else t._("Champion of the season: {name}", name=line_name(t, champion))
        )
        text.append("👑 " + title)
    text.append("")
    for rank, line in enumerate(lines, start=1):
        text.append(_top_line(t, rank, line, champion=line is champion, mine=line.player == me))
    if caller is not None:
        rank, line = caller
        if rank > len(lines) + 1:
            text.append("…")
        text.append(_top_line(t, rank, line, champion=False, mine=True))
    if size > len(lines) + (1 if caller else 0):
        text.append(t.n_("{n} player in this ladder.", "{n} players in this ladder.", size))
    text += [
        "",
        "<i>"
        + t._(
            "Rating: a cautious skill estimate (OpenSkill, μ − 3σ) — everybody starts at 1000, "
            "and it firms up with every match."
        )
        + "</i>",
    ]
    if variant is None:
        commands = " · ".join(f"/top {v}" for v in VARIANTS)  # i18n: ignore
        text.append(t._("By variant: {commands}", commands=commands))
    return Screen.of("\n".join(text))


def _top_line(t: Translator, rank: int, line: Standing, *, champion: bool, mine: bool) -> str:
    place = MEDALS[rank - 1] if rank <= len(MEDALS) else f"{rank}."
    name = line_name(t, line)
    if champion:
        name = "👑 " + name
    if mine:
        name = f"<u>{name}</u>"
    return f"{place} {name} — <b>{rating_text(line.rating.value)}</b> · " + matches_wins_goats(
        t, line.tally
    )


def stats_screen(
    t: Translator,
    *,
    chat_title: str,
    season: int,
    overall: Standing,
    rank: int,
    size: int,
    by_variant: Sequence[Standing],
    results: Sequence[PlayerResult],
    every_season: Totals | None,
    extra: Sequence[str] = (),
) -> Screen:
    text = [
        "📊 <b>" + line_name(t, overall) + "</b> · " + escape(chat_title),
        t._("Season {n}", n=season)
        + " · "
        + t._("rating <b>{rating}</b>", rating=rating_text(overall.rating.value))
        + " · "
        + t._("place {rank} of {size}", rank=rank, size=size),
    ]
    if overall.ai_level is not None:
        text.append("<i>" + t._("A computer player: rated, but never the champion.") + "</i>")
    text.append("")
    text += tally_lines(t, overall.tally)
    if by_variant:
        text += ["", "<b>" + t._("By variant") + "</b>"]
        text += [
            _rated_line(t, variant_name(t, get_variant(line.variant)), line) for line in by_variant
        ]
    if results:
        marks = "".join(_result_mark(r.won, r.goat) for r in results)
        text += ["", t._("Latest matches (newest first): {marks}", marks=marks)]
        text += house_rules.stats_lines(t, sum(1 for r in results if r.options))
        last = results[0].change
        text.append(
            t._(
                "Last match: {before} → {after} ({delta})",
                before=rating_text(last.before.value),
                after=rating_text(last.after.value),
                delta=delta_text(last.before.value, last.after.value),
            )
        )
    text += extra
    if every_season is not None:
        text += [
            "",
            t._("All seasons here: {counts}", counts=matches_wins_goats(t, every_season.tally)),
        ]
    return Screen.of("\n".join(text))


def _rated_line(t: Translator, label: str, line: Standing, tally: Tally | None = None) -> str:
    """``label: rating · matches · wins · goats``, the counts from ``tally`` if given."""
    counts = matches_wins_goats(t, tally or line.tally)
    return f"{label}: <b>{rating_text(line.rating.value)}</b> · {counts}"


def _result_mark(won: bool, goat: bool) -> str:
    return "🏆" if won else ("🐐" if goat else "❌")


def no_stats_text(t: Translator, *, name: str, season: int, earlier: Totals | None) -> str:
    text = t._("{name} has no matches in this chat's season {n} yet.", name=escape(name), n=season)
    if earlier is not None:
        text += "\n" + t._("Earlier seasons: {counts}", counts=matches_wins_goats(t, earlier.tally))
    return text


def no_private_stats_text(t: Translator) -> str:
    return t._("You have not finished a match yet. Add me to a group and send /newgame there.")


def private_stats_screen(
    t: Translator,
    *,
    name: str,
    totals: Totals,
    chats: Sequence[ChatLine],
    more: int,
    extra: Sequence[str] = (),
) -> Screen:
    text = [
        "📊 <b>" + escape(name) + "</b> · " + t._("all chats"),
        t.n_("Played in {n} chat.", "Played in {n} chats.", totals.chats),
        "",
    ]
    text += tally_lines(t, totals.tally)
    text += extra
    text += ["", "<b>" + t._("Chats") + "</b>"]
    text += [_rated_line(t, escape(chat.title or "?"), chat.latest, chat.tally) for chat in chats]
    if more:
        text.append(t.n_("…and {n} more chat.", "…and {n} more chats.", more))
    text += [
        "",
        "<i>" + t._("Ratings are per chat: from the latest season you played there.") + "</i>",
    ]
    return Screen.of("\n".join(text))


def history_screen(
    t: Translator,
    *,
    chat_title: str,
    season: int,
    current_season: int,
    variant: Variant | None,
    matches: Sequence[LadderMatch],
    replay: Callable[[int], str | None] = lambda _table: None,
) -> Screen:
    header = t._("Season {n}", n=season)
    if season < current_season:
        header += " · " + t._("closed")
    text = [
        "📜 <b>" + t._("Latest matches · {chat}", chat=escape(chat_title)) + "</b>",
        header + " · " + scope_name(t, variant),
    ]
    entries = [match_lines(t, match) + replay_line(t, replay, match) for match in matches]
    return _match_list(t, text, entries, empty=t._("No matches yet. Start one with /newgame."))


def private_history_screen(
    t: Translator,
    matches: Sequence[LadderMatch],
    titles: dict[int, str],
    replay: Callable[[int], str | None] = lambda _table: None,
) -> Screen:
    text = ["📜 <b>" + t._("Your latest matches") + "</b>"]
    entries = [
        f"<b>{escape(titles.get(match.record.chat_id) or '?')}</b> · "
        + match_lines(t, match)
        + replay_line(t, replay, match)
        for match in matches
    ]
    return _match_list(t, text, entries, empty=no_private_stats_text(t))


def replay_line(t: Translator, replay: Callable[[int], str | None], match: LadderMatch) -> str:
    """A match's "▶️ Replay" link (the Mini App, from its first deal), when there is one."""
    return replay_html(t, replay(match.record.table_id))


def replay_html(t: Translator, link: str | None) -> str:
    """A "▶️ Replay" link on a line of its own ("" without a link)."""
    return "" if link is None else "\n" + LINK.format(href=escape(link), text=replay_label(t))


LINK = '<a href="{href}">{text}</a>'


def replay_label(t: Translator) -> str:
    # TRANSLATORS: a link or button that opens a finished deal's replay in the Mini App.
    return "▶️ " + t._("Replay")


def _match_list(t: Translator, head: list[str], entries: list[str], *, empty: str) -> Screen:
    """``head``, then the matches a paragraph each (times in UTC), or ``empty``."""
    if not entries:
        return Screen.of("\n".join([*head, "", empty]))
    lines = [*head]
    tail = ["", "<i>" + t._("Times are UTC.") + "</i>"]
    # Long titles and names: the newest matches that fit in one message, and how many not.
    room = MAX_TEXT - shown_length("\n".join(tail)) - 100
    for shown, entry in enumerate(entries):
        if shown and shown_length("\n".join([*lines, "", entry])) > room:
            left = len(entries) - shown
            lines += ["", t.n_("…and {n} more match.", "…and {n} more matches.", left)]
            break
        lines += ["", entry]
    return Screen.of("\n".join(lines + tail))


def match_lines(t: Translator, match: LadderMatch) -> str:
    """One match: when, which variant, the sides in finishing order with their defeat points
    (🏆 won, 🐐 the goat: the first out; ❌ another side that went out, with three players).
    Matches stored before the goat was the first one out mark the last one out as the goat."""
    record = match.record
    head = (
        when(record.finished_at)
        + " · "
        + variant_name(t, get_variant(record.variant))
        + " · "
        + t.n_("{n} deal", "{n} deals", record.deals)
    )
    rules = house_rules.brief(t, house_rules.stored(record.options, record.variant))
    if rules:
        head += f" · {house_rules.MARK} {rules}"
    sides: dict[int, list[MatchPlayerRecord]] = {}
    for player in record.players_list:
        sides.setdefault(player.side, []).append(player)

    def place(side: int) -> tuple[int, int]:
        first = sides[side][0]
        change = match.changes.get(first.seat)
        rank = change.rank if change else (1 if first.won else (2 if first.goat else 3))
        return rank, side

    parts = []
    for side in sorted(sides, key=place):
        members = sides[side]
        first = members[0]
        mark = _result_mark(first.won, first.goat)
        names = and_list(t, [player_name(t, name=p.name, ai_level=p.ai_level) for p in members])
        parts.append(f"{mark} {names} <b>{first.defeat_points}</b>")
    body = " · ".join(parts)
    if record.goat_with_eggs:
        body += " · 🥚 " + t._("a goat with eggs")
    return head + "\n" + body
