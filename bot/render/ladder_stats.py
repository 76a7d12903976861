"""The ladder's /stats: a player's card in a group, and across chats in a private chat."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from kozel_rules.variant import get_variant

from ..i18n import Translator
from ..screen import Screen
from ..storage.records import (
    PlayerResult,
    Standing,
    Tally,
)
from . import house_rules
from .ladder_parts import (
    delta_text,
    line_name,
    matches_wins_goats,
    rating_text,
    result_mark,
    tally_lines,
)
from .rules_text import variant_name


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
        marks = "".join(result_mark(r.won, r.goat) for r in results)
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
