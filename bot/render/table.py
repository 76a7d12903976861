"""The group's table message: who holds what, the trick on the table, the standings."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from kozel_rules.action import Verb
from kozel_rules.options import Options
from kozel_rules.variant import get_variant
from kozel_rules.view import PlayView, SeatView, TrickView

from ..i18n import Translator
from ..screen import Button, Screen
from .house_rules import factor_line, goat_total, header_line
from .labels import SeatInfo, card_label, cards_text, seat_label, side_name
from .rules_text import suit_name, variant_name


def title_line(t: Translator, view: SeatView, where: str) -> str:
    """``🐐 <variant> · <where>``: the first line of the table and of a hand (the variant's
    name already says it is Kozel)."""
    return "🐐 <b>" + escape(variant_name(t, get_variant(view.variant))) + "</b> · " + where


def _header(t: Translator, view: SeatView, options: Options | None) -> list[str]:
    """The house rules in a few words, and a deal that counts more after eggs (if any)."""
    lines = [header_line(t, options) if options is not None else ""]
    if view.multiplier > 1 and not view.match_over:
        lines.append(factor_line(t, view.multiplier))
    return [line for line in lines if line]


def header_lines(t: Translator, view: SeatView, where: str, options: Options | None) -> list[str]:
    """The title line, and under it the house rules in a few words (if any)."""
    return [title_line(t, view, where), *_header(t, view, options)]


def trump_line(t: Translator, view: SeatView) -> str:
    if view.trump is None:
        return t._("Trumps: all queens, all jacks, all clubs (7♣ highest)")
    symbol = view.trump.symbol
    # TRANSLATORS: {suit} is the symbol, {name} the suit's name ("Trump: ♠ spades").
    text = t._("Trump: {suit} {name}", suit=f"<b>{symbol}</b>", name=suit_name(t, symbol))
    if view.trump_card is not None and not view.trump_card_drawn:
        # TRANSLATORS: the card whose suit is trump, shown to everyone (it is still in the
        # stock, and will be drawn in its turn).
        text += " · " + t._("trump card shown: {card}", card=card_label(t, view.trump_card))
    return text


def trump_stock_line(t: Translator, view: SeatView) -> str:
    stock = t.n_("{n} card left in the stock", "{n} cards left in the stock", view.stock)
    return trump_line(t, view) + " · " + stock


def standings_line(
    t: Translator, view: SeatView, seats: Sequence[SeatInfo], options: Options | None = None
) -> str:
    """``🐐 Defeat points: Anna 3/12 · Boris 5/12`` (``/6`` in a match to 6)."""
    out_at = goat_total(get_variant(view.variant), options)
    parts = []
    for side, points in enumerate(view.defeat_points):
        mark = " ❌" if side in view.out else ""
        name = side_name(seats, view.sides, side, t, notes=False)
        parts.append(f"{name} <b>{points}</b>/{out_at}{mark}")
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
    return f"{name}: {_verb_mark(t, play.verb)}{cards_text(t, play.cards)}"


def _verb_mark(t: Translator, verb: Verb) -> str:
    marks = {
        Verb.BEAT: "⚔️ ",
        Verb.MOLODKA: "🔥 " + t._("Molodka") + ": ",
        Verb.MOSCOW: "🏛 " + t._("Moscow") + ": ",
    }
    return marks.get(verb, "")


def _top_index(trick: TrickView) -> int | None:
    """The play an answer has to beat: the top seat's latest face-up play."""
    if trick.taker is not None or trick.top_seat is None:
        return None
    for i in range(len(trick.plays) - 1, -1, -1):
        play = trick.plays[i]
        if play.seat == trick.top_seat and play.verb is not Verb.DISCARD:
            return i
    return None


def current_trick_lines(t: Translator, trick: TrickView, seats: Sequence[SeatInfo]) -> list[str]:
    """The trick being played, a line a play, the cards to beat marked ⬅️."""
    lines = [_play_line(t, seats, p) for p in trick.plays]
    top = _top_index(trick)
    if top is not None:
        lines[top] += " ⬅️"
    return ["<b>" + t._("On the table") + "</b>", *lines]


def trick_brief(t: Translator, trick: TrickView, seats: Sequence[SeatInfo]) -> str:
    """A trick on one line: ``Anna K♠ 9♠ · Boris ⚔️ 10♠ A♠ · Vera 🂠🂠``."""
    parts = []
    for play in trick.plays:
        if play.verb is Verb.DISCARD:
            shown = "🂠" * play.count
        else:
            shown = _verb_mark(t, play.verb) + cards_text(t, play.cards)
        parts.append(f"{seats[play.seat].label} {shown}")
    return " · ".join(parts)


def last_trick_line(t: Translator, trick: TrickView, seats: Sequence[SeatInfo]) -> str:
    """Who took the last trick, and what it held, on one line."""
    assert trick.taker is not None
    return "✋ " + t._(
        "Last trick taken by {name}: {trick}",
        name=seats[trick.taker].label,
        trick=trick_brief(t, trick, seats),
    )


def trick_section(t: Translator, view: SeatView, seats: Sequence[SeatInfo]) -> list[str]:
    """The trick being played (if any) and the last one taken (its taker, whatever edit of
    the table one sees); empty before the first trick."""
    lines = []
    last = view.last_trick
    if last is not None and last.taker is not None:
        if len(view.trick_takers) > 1:
            # Every taker of the deal so far, in order: whichever edit the group sees (they
            # are spaced out under Telegram's limits), no trick goes unnamed.
            names = " · ".join(seats[seat].label for seat in view.trick_takers)
            lines.append(t._("Tricks so far: {names}", names=names))
        lines += [last_trick_line(t, last, seats), ""]
    if view.trick is not None and view.trick.plays:
        lines += current_trick_lines(t, view.trick, seats)
    return lines


def table_screen(
    t: Translator,
    *,
    view: SeatView,
    seats: Sequence[SeatInfo],
    deal_lines: Sequence[str] = (),
    cancelled: bool = False,
    app_link: str | None = None,
    options: Options | None = None,
) -> Screen:
    """The group's table message. Uses the public view only (view.seat must be None).
    ``app_link``: the Mini App's direct link (groups may not have web_app buttons)."""
    assert view.seat is None, "the group table is rendered from the public view only"
    lines = [
        title_line(t, view, t._("deal {n}", n=view.deal_number)),
        *_header(t, view, options),
        trump_stock_line(t, view),
        "",
    ]
    for seat, info in enumerate(seats):
        if not view.in_game[seat]:
            lines.append(f"<s>{info.label}</s> ❌")
            continue
        marks = "🎴 " if seat == view.dealer else ""
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
        lines += ["", line] if lines[-1] else [line]
    lines += ["", standings_line(t, view, seats, options)]
    lines += deal_lines
    if cancelled:
        lines += ["", "✖️ " + t._("The table was cancelled.")]
    if app_link is None or cancelled or view.match_over:
        return Screen.of("\n".join(lines))
    return Screen.of("\n".join(lines), [[Button("🃏 " + t._("Open the table"), url=app_link)]])
