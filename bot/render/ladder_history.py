"""The ladder's /history: a chat's latest matches, or a player's own in a private chat,
each with a link to its replay when there is one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from kozel_rules.variant import Variant, get_variant

from ..i18n import Translator
from ..screen import MAX_TEXT, Screen, shown_length
from ..storage.records import (
    LadderMatch,
    MatchPlayerRecord,
)
from . import house_rules
from .labels import and_list
from .ladder_parts import (
    player_name,
    result_mark,
    scope_name,
    when,
)
from .ladder_stats import no_private_stats_text
from .rules_text import variant_name


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
        mark = result_mark(first.won, first.goat)
        names = and_list(t, [player_name(t, name=p.name, ai_level=p.ai_level) for p in members])
        parts.append(f"{mark} {names} <b>{first.defeat_points}</b>")
    body = " · ".join(parts)
    if record.goat_with_eggs:
        body += " · 🥚 " + t._("a goat with eggs")
    return head + "\n" + body
