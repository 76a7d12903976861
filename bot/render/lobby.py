"""The lobby message: seats, teams, and the buttons that fill and start a table."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from kozel_rules.ai import OFFERED_LEVELS
from kozel_rules.match import Match
from kozel_rules.options import Options
from kozel_rules.variant import VARIANTS, Variant

from ..callback import Callback, Op
from ..i18n import Translator
from ..screen import Button, Screen
from . import house_rules
from .labels import SeatInfo, checked, level_name, rows_of, seat_label, side_name
from .rules_text import variant_name, variant_short_name


def _team_sides(variant: Variant, players: int) -> tuple[int, ...] | None:
    """The side of each seat when this many players make two teams, else None."""
    if players != variant.team_players or players not in variant.player_counts:
        return None
    # The engine seats the teams; no match exists yet, so ask a fresh one.
    return Match.new(variant, players=players, seed=0).view(None).sides


def _status_line(t: Translator, variant: Variant, players: int) -> str:
    lo, hi = min(variant.player_counts), max(variant.player_counts)
    if players < lo:
        return t.n_("Waiting for {n} more player.", "Waiting for {n} more players.", lo - players)
    if lo == hi:
        return t._("The table is full: the player who opened it can start.")
    return t.n_(
        "{n} player seated: the player who opened the table can start, or wait for more "
        "(up to {max}).",
        "{n} players seated: the player who opened the table can start, or wait for more "
        "(up to {max}).",
        players,
        max=hi,
    )


def lobby_screen(
    t: Translator,
    *,
    table_id: int,
    version: int,
    variant: Variant,
    seats: Sequence[SeatInfo],
    creator: str,
    join_url: str,
    start_key: str = "",
    options: Options | None = None,
    group_default: bool = False,
) -> Screen:
    """``start_key`` names the seating the Start button refers to (see ``seating_key``);
    ``join_url`` opens the private chat the cards come to. ``options``: the house rules, which
    the opener may change with the buttons (``group_default``: they are the chat's own)."""
    options = options or Options()
    players = len(seats)
    lines = [
        "🐐 <b>" + t._("Kozel — new table") + "</b>",
        t._("Variant: {variant}", variant=f"<b>{escape(variant_name(t, variant))}</b>"),
        house_rules.lobby_line(t, options, group_default=group_default),
        t._("Opened by {name}", name=escape(creator)),
        "",
        "<b>" + t._("Seats") + "</b>",
    ]
    lines += [f"{i + 1}. {seat_label(t, s)}" for i, s in enumerate(seats)]
    if not seats:
        lines.append("—")
    sides = _team_sides(variant, players)
    if sides is not None:
        lines += [
            "",
            t._(
                "Teams: {a} against {b}",
                a=side_name(seats, sides, 0, t),
                b=side_name(seats, sides, 1, t),
            ),
        ]
    lines += ["", _status_line(t, variant, players)]

    def cb(op: Op, arg: str = "") -> str:
        return Callback(table_id, version, op, arg).encode()

    rows: list[list[Button]] = [
        [
            # TRANSLATORS: a button: take a seat at this table.
            Button("✋ " + t._("Join"), cb(Op.JOIN)),
            # TRANSLATORS: a button: give up your seat at this table.
            Button("🚪 " + t._("Leave"), cb(Op.LEAVE)),
        ],
    ]
    if players < max(variant.player_counts):
        # Adds a computer player of that strength ("➕🤖 weak").
        # Only the levels the arena tells apart (kozel_rules/README.md, "Levels that differ").
        levels = OFFERED_LEVELS
        buttons = [Button("➕🤖 " + level_name(t, lvl), cb(Op.ADD_COMPUTER, lvl)) for lvl in levels]
        rows += rows_of(buttons, 2)  # two short rows fit a phone
    if any(s.ai_level for s in seats):
        rows.append([Button("➖🤖 " + t._("Remove a computer player"), cb(Op.REMOVE_COMPUTER))])
    rows.append(
        [
            Button(checked(variant_short_name(t, v), v == variant), cb(Op.VARIANT, v.name))
            for v in VARIANTS.values()
        ]
    )
    rows += house_rules.option_rows(t, options, variant, lambda arg: cb(Op.OPTION, arg))
    rows.append(
        [
            # TRANSLATORS: a button: start the match with the players seated.
            Button("▶️ " + t._("Start"), cb(Op.START, start_key)),
            # TRANSLATORS: a button: call the table off (the lobby closes for good).
            Button("✖️ " + t._("Cancel"), cb(Op.CANCEL)),
        ]
    )
    rows.append([Button("💬 " + t._("Open my chat to get your cards"), url=join_url)])
    return Screen.of("\n".join(lines), rows)


def seated_screen(t: Translator, text: str, *, table_id: int, version: int) -> Screen:
    """The private answer to a deep link: the seat, and a way to give it up from here
    (someone who left the group since cannot press the lobby's buttons)."""
    leave = Button("🚪 " + t._("Leave"), Callback(table_id, version, Op.LEAVE).encode())
    return Screen.of(text, [[leave]])


def lobby_closed_text(t: Translator) -> str:
    """A lobby that never started (a started one became the table)."""
    return "🐐 " + t._("This table was cancelled.")


def players_needed_text(t: Translator, variant: Variant) -> str:
    """Why Start cannot start: the variant's numbers of players."""
    counts = variant.player_counts
    lo, hi = min(counts), max(counts)
    name = variant_name(t, variant)
    if lo == hi:
        return t.n_(
            "{variant} needs exactly {n} player.",
            "{variant} needs exactly {n} players.",
            lo,
            variant=name,
        )
    # TRANSLATORS: {lo} is the fewest players, {n} the most.
    return t.n_(
        "{variant} needs {lo} to {n} player.",
        "{variant} needs {lo} to {n} players.",
        hi,
        variant=name,
        lo=lo,
    )
