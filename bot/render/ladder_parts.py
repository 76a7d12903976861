"""What the ladder's screens share: names, ratings, dates, a season's line, a player's counts,
and the short answers to a wrong /top or /history (times in UTC, ratings rounded)."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from kozel_rules.variant import VARIANTS, Variant

from ..i18n import Translator
from ..storage.records import (
    SeasonRecord,
    Standing,
    Tally,
)
from .labels import level_name
from .rules_text import variant_name


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


def result_mark(won: bool, goat: bool) -> str:
    return "🏆" if won else ("🐐" if goat else "❌")


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
