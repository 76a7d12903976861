"""Pure rendering of the ladder: /top here; /stats in ``ladder_stats``, /history in
``ladder_history``, their shared pieces in ``ladder_parts`` (all re-exported from here, so
``render.ladder`` stays the one name to import). The /resetladder question is in chat.py, with
the other admin screens.

Input is storage records (standings, matches) and a translator; output is text or a Screen.
Ratings are shown rounded; times in UTC.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from kozel_rules.variant import VARIANTS, Variant

from ..i18n import Translator
from ..screen import Screen
from ..storage.records import (
    SeasonRecord,
    Standing,
)
from .ladder_history import (
    LINK,
    history_screen,
    match_lines,
    private_history_screen,
    replay_html,
    replay_label,
    replay_line,
)
from .ladder_parts import (
    day,
    delta_text,
    line_name,
    matches_wins_goats,
    no_season_text,
    player_name,
    rating_text,
    result_mark,
    scope_name,
    season_line,
    tally_lines,
    unknown_user_text,
    usage_text,
    when,
)
from .ladder_stats import (
    ChatLine,
    Totals,
    no_private_stats_text,
    no_stats_text,
    private_stats_screen,
    stats_screen,
)

__all__ = [
    "LINK",
    "MEDALS",
    "ChatLine",
    "Totals",
    "day",
    "delta_text",
    "history_screen",
    "line_name",
    "match_lines",
    "matches_wins_goats",
    "no_private_stats_text",
    "no_season_text",
    "no_stats_text",
    "player_name",
    "private_history_screen",
    "private_stats_screen",
    "rating_text",
    "replay_html",
    "replay_label",
    "replay_line",
    "result_mark",
    "scope_name",
    "season_line",
    "stats_screen",
    "tally_lines",
    "top_screen",
    "unknown_user_text",
    "usage_text",
    "when",
]

MEDALS = ("🥇", "🥈", "🥉")


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
