"""The group's table message: who holds what, the trick on the table, the standings."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from kozel_rules.action import Verb
from kozel_rules.variant import get_variant
from kozel_rules.view import PlayView, SeatView, TrickView

from ..i18n import Translator
from ..screen import Button, Screen
from .labels import SeatInfo, cards_text, seat_label, side_name
from .rules_text import variant_name


def title_line(t: Translator, view: SeatView, where: str) -> str:
    """``🐐 <variant> · <where>``: the first line of the table and of a hand (the variant's
    name already says it is Kozel)."""
    return "🐐 <b>" + escape(variant_name(t, get_variant(view.variant))) + "</b> · " + where


def trump_line(t: Translator, view: SeatView) -> str:
    if view.trump is None:
        return t._("Trumps: all queens, all jacks, all clubs (7♣ highest)")
    text = t._("Trump: {suit}", suit=f"<b>{view.trump.symbol}</b>")
    if view.trump_card is not None and not view.trump_card_drawn:
        # TRANSLATORS: the card whose suit is trump, shown to everyone (it is still in the
        # stock, and will be drawn in its turn).
        text += " · " + t._("trump card shown: {card}", card=str(view.trump_card))
    return text


def trump_stock_line(t: Translator, view: SeatView) -> str:
    stock = t.n_("{n} card left in the stock", "{n} cards left in the stock", view.stock)
    return trump_line(t, view) + " · " + stock


def standings_line(t: Translator, view: SeatView, seats: Sequence[SeatInfo]) -> str:
    out_at = get_variant(view.variant).out_at
    parts = []
    for side, points in enumerate(view.defeat_points):
        mark = " ❌" if side in view.out else ""
        parts.append(f"{side_name(seats, view.sides, side)} <b>{points}</b>/{out_at}{mark}")
    return "🐐 " + t._("Defeat points: {list}", list=" · ".join(parts))


def phase_line(t: Translator, view: SeatView, seats: Sequence[SeatInfo]) -> str:
    if view.to_move is None:
        return ""
    name = seats[view.to_move].label
    phase_texts = {
        "lead": t._("{name} leads.", name=name),
        "respond": t._("{name} to answer.", name=name),
        "give": t._("{name} holds only trumps and gives one to the partner.", name=name),
        "return": t._("{name} gives a plain card back.", name=name),
        "forced-lead": t._("{name} leads the card from the partner.", name=name),
    }
    return "➡️ " + phase_texts.get(view.phase, t._("{name} to play.", name=name))


def _play_line(t: Translator, seats: Sequence[SeatInfo], play: PlayView) -> str:
    name = seats[play.seat].label
    if play.verb is Verb.DISCARD:
        return (
            t.n_(
                "{name}: {n} card face down",
                "{name}: {n} cards face down",
                play.count,
                name=name,
            )
            + " "
            + "🂠" * play.count
        )
    verb_marks = {
        Verb.BEAT: "⚔️ ",
        Verb.MOLODKA: "🔥 " + t._("Molodka") + ": ",
        Verb.MOSCOW: "🏛 " + t._("Moscow") + ": ",
    }
    return f"{name}: {verb_marks.get(play.verb, '')}{cards_text(play.cards)}"


def _trick_lines(t: Translator, seats: Sequence[SeatInfo], trick: TrickView) -> list[str]:
    lines = [_play_line(t, seats, p) for p in trick.plays]
    if trick.taker is None and trick.top_seat is not None:
        # Mark the cards an answer has to beat: the top seat's latest face-up play.
        for i in range(len(trick.plays) - 1, -1, -1):
            play = trick.plays[i]
            if play.seat == trick.top_seat and play.verb is not Verb.DISCARD:
                lines[i] += " ⬅️"
                break
    return lines


def trick_section(t: Translator, view: SeatView, seats: Sequence[SeatInfo]) -> list[str]:
    """The trick being played, or else the last one taken; empty before the first trick."""
    if view.trick is not None and view.trick.plays:
        return ["<b>" + t._("On the table") + "</b>", *_trick_lines(t, seats, view.trick)]
    last = view.last_trick
    if last is not None and last.taker is not None:
        return [
            t._("Last trick taken by {name}:", name=seats[last.taker].label),
            *_trick_lines(t, seats, last),
        ]
    return []


def table_screen(
    t: Translator,
    *,
    view: SeatView,
    seats: Sequence[SeatInfo],
    deal_lines: Sequence[str] = (),
    cancelled: bool = False,
    app_link: str | None = None,
) -> Screen:
    """The group's table message. Uses the public view only (view.seat must be None).
    ``app_link``: the Mini App's direct link (groups may not have web_app buttons)."""
    assert view.seat is None, "the group table is rendered from the public view only"
    lines = [
        title_line(t, view, t._("deal {n}", n=view.deal_number)),
        trump_stock_line(t, view),
        "",
    ]
    for seat, info in enumerate(seats):
        if not view.in_game[seat]:
            lines.append(f"<s>{info.label}</s> ❌")
            continue
        marks = "🎴" if seat == view.dealer else ""
        lines.append(
            f"{marks}{seat_label(t, info)} · "
            + t.n_("{n} card", "{n} cards", view.hand_sizes[seat])
            + " · "
            + t.n_("{n} trick", "{n} tricks", view.tricks_by_seat[seat])
        )
    lines.append("")
    lines += trick_section(t, view, seats)
    line = phase_line(t, view, seats)
    if line:
        lines += ["", line]
    lines += ["", standings_line(t, view, seats)]
    lines += deal_lines
    if cancelled:
        lines += ["", "✖️ " + t._("The table was cancelled.")]
    if app_link is None or cancelled or view.match_over:
        return Screen.of("\n".join(lines))
    return Screen.of("\n".join(lines), [[Button("🃏 " + t._("Open the table"), url=app_link)]])
