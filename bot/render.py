"""Pure rendering: engine views + a translator -> Screens. No Telegram, no storage.

Group screens are built from the public view only, so nothing private can reach a group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from kozel_rules.action import Action, Verb
from kozel_rules.card import Card
from kozel_rules.result import DealResult, MatchResult
from kozel_rules.variant import get_variant
from kozel_rules.view import PlayView, SeatView, TrickView

from .callback import Callback, encode_action, encode_card
from .i18n import Translator
from .rules_text import variant_name
from .screen import Button, Screen

MIN_PLAYERS = {"ziege": 4, "street": 4, "moscow": 2}
MAX_PLAYERS = {"ziege": 4, "street": 4, "moscow": 4}
VARIANTS = ("ziege", "street", "moscow")
AI_LEVELS = ("random", "basic", "strong")
TARGET = 12  # defeat points that put a side out


@dataclass(frozen=True)
class SeatInfo:
    """A seat as the screens show it."""

    name: str
    ai_level: str | None = None  # set for computer players
    away: bool = False  # a computer plays for this human for now

    @property
    def label(self) -> str:
        mark = "🤖 " if self.ai_level else ""
        return mark + escape(self.name)


def level_name(t: Translator, level: str) -> str:
    names = {"random": t._("easy"), "basic": t._("medium"), "strong": t._("strong")}
    return names.get(level, level)


def seat_label(t: Translator, seat: SeatInfo) -> str:
    text = seat.label
    if seat.ai_level:
        text += f" ({level_name(t, seat.ai_level)})"
    if seat.away:
        text += " 💤"
    return text


def side_label(seats: Sequence[SeatInfo], members: Sequence[int]) -> str:
    return " & ".join(seats[i].label for i in members)


def side_members(players: int, side: int) -> tuple[int, ...]:
    return (side, side + 2) if players == 4 else (side,)


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(str(c) for c in cards)


# ---------------------------------------------------------------- lobby


def lobby_screen(
    t: Translator,
    *,
    table_id: int,
    version: int,
    variant: str,
    seats: Sequence[SeatInfo],
    creator: str,
    start_key: str = "",
) -> Screen:
    """``start_key`` names the seating the Start button refers to (see ``seating_key``)."""
    players = len(seats)
    lines = [
        "🐐 <b>" + t._("Kozel — new table") + "</b>",
        t._("Variant: {variant}", variant=f"<b>{escape(variant_name(t, variant))}</b>"),
        t._("Opened by {name}", name=escape(creator)),
        "",
        "<b>" + t._("Seats") + "</b>",
    ]
    lines += [f"{i + 1}. {seat_label(t, s)}" for i, s in enumerate(seats)]
    if not seats:
        lines.append("—")
    lo, hi = MIN_PLAYERS[variant], MAX_PLAYERS[variant]
    if players == 4:
        lines += [
            "",
            t._(
                "Teams: {a} against {b}",
                a=side_label(seats, (0, 2)),
                b=side_label(seats, (1, 3)),
            ),
        ]
    lines.append("")
    if players < lo:
        lines.append(
            t.n_("Waiting for {n} more player.", "Waiting for {n} more players.", lo - players)
        )
    elif lo == hi:
        lines.append(t._("The table is full: the creator can start."))
    else:
        lines.append(
            t._(
                "{n} seated: the creator can start, or wait for more (up to {max}).",
                n=players,
                max=hi,
            )
        )

    def cb(op: str, arg: str = "") -> str:
        return Callback(table_id, version, op, arg).encode()

    rows: list[list[Button]] = [
        [Button("✋ " + t._("Join"), cb("join")), Button("🚪 " + t._("Leave"), cb("leave"))],
    ]
    if players < hi:
        rows.append([Button("🤖 " + level_name(t, lvl), cb("bot", lvl)) for lvl in AI_LEVELS])
    if any(s.ai_level for s in seats):
        rows.append([Button("➖🤖 " + t._("Remove a computer player"), cb("kick"))])
    rows.append(
        [
            Button(("✓ " if v == variant else "") + variant_name(t, v), cb("var", v))
            for v in VARIANTS
        ]
    )
    rows.append(
        [
            Button("▶️ " + t._("Start"), cb("start", start_key)),
            Button("✖️ " + t._("Cancel"), cb("cancel")),
        ]
    )
    return Screen.of("\n".join(lines), rows)


def lobby_closed_text(t: Translator, *, cancelled: bool) -> str:
    if cancelled:
        return "🐐 " + t._("This table was cancelled.")
    return "🐐 " + t._("The match has started — see the table below.")


# ---------------------------------------------------------------- table (group)


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


def trump_line(t: Translator, view: SeatView) -> str:
    if view.trump is None:
        return t._("Trumps: all queens, all jacks, all clubs (7♣ highest)")
    text = t._("Trump: {suit}", suit=f"<b>{view.trump.symbol}</b>")
    if view.trump_card is not None and not view.trump_card_drawn:
        text += " · " + t._("shown card {card}", card=str(view.trump_card))
    return text


def standings_line(t: Translator, view: SeatView, seats: Sequence[SeatInfo]) -> str:
    parts = []
    for side, points in enumerate(view.defeat_points):
        members = side_members(view.players, side)
        mark = " ❌" if side in view.out else ""
        parts.append(f"{side_label(seats, members)} <b>{points}</b>/{TARGET}{mark}")
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


def table_screen(
    t: Translator, *, view: SeatView, seats: Sequence[SeatInfo], deal_lines: Sequence[str] = ()
) -> Screen:
    """The group's table message. Uses the public view only (view.seat must be None)."""
    assert view.seat is None, "the group table is rendered from the public view only"
    lines = [
        "🐐 <b>"
        + t._("Kozel · {variant}", variant=escape(variant_name(t, view.variant)))
        + "</b> · "
        + t._("deal {n}", n=view.deal_number),
        trump_line(t, view) + " · " + t.n_("stock {n} card", "stock {n} cards", view.stock),
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
    if view.trick is not None and view.trick.plays:
        lines.append("<b>" + t._("On the table") + "</b>")
        lines += _trick_lines(t, seats, view.trick)
    elif view.last_trick is not None and view.last_trick.taker is not None:
        lines.append(t._("Last trick taken by {name}:", name=seats[view.last_trick.taker].label))
        lines += _trick_lines(t, seats, view.last_trick)
    line = phase_line(t, view, seats)
    if line:
        lines += ["", line]
    lines += ["", standings_line(t, view, seats)]
    lines += deal_lines
    return Screen.of("\n".join(lines))


# ---------------------------------------------------------------- hand (private)


def _card_button_text(card: Card, *, trump: bool, selected: bool, playable: bool) -> str:
    text = str(card)
    if trump:
        text = "★" + text
    if selected:
        return "✅" + text
    return text if playable else f"({text})"


def is_trump(view: SeatView, card: Card) -> bool:
    """Marked with a star in the hand: the variant's rules decide (fixed trumps, top card)."""
    variant = get_variant(view.variant)
    return card.suit is view.trump or card in variant.fixed_trumps or card == variant.top_card


def action_label(t: Translator, action: Action) -> str:
    cards = cards_text(action.cards)
    labels = {
        Verb.LEAD: "▶️ " + t._("Lead {cards}", cards=cards),
        Verb.BEAT: "⚔️ " + t._("Beat with {cards}", cards=cards),
        Verb.DISCARD: "🂠 "
        + t.n_("Discard {n} card face down", "Discard {n} cards face down", len(action.cards)),
        Verb.MOLODKA: "🔥 " + t._("Molodka {cards}", cards=cards),
        Verb.MOSCOW: "🏛 " + t._("Moscow {cards}", cards=cards),
        Verb.PLAY: "▶️ " + t._("Play {cards}", cards=cards),
        Verb.GIVE: "🎁 " + t._("Give {cards} to the partner", cards=cards),
        Verb.RETURN: "↩️ " + t._("Give {cards} back", cards=cards),
    }
    return labels[action.verb]


def hand_prompt(t: Translator, view: SeatView, legal: Sequence[Action]) -> str:
    if view.match_over:
        return t._("The match is over.")
    if view.to_move != view.seat:
        if any(a.verb.is_special for a in legal):
            return t._("Not your turn — but you may declare your special lead at any moment.")
        return t._("Waiting for the others…")
    prompts = {
        "lead": t._("Your lead: choose the cards, then confirm."),
        "respond": t._("Your answer: beat with as many cards, or discard as many face down."),
        "give": t._("You hold only trumps: give one trump to your partner."),
        "return": t._("Your partner holds only trumps: give back one plain card."),
        "forced-lead": t._("Lead the card your partner gave you."),
    }
    if view.variant == "ziege" and view.phase == "respond":
        return "👉 " + t._("Your turn: play a card.")
    if view.variant == "ziege" and view.phase == "lead":
        return "👉 " + t._("Your lead: play a plain card (no trump leads).")
    return "👉 " + prompts.get(view.phase, t._("Your turn."))


def hand_screen(
    t: Translator,
    *,
    view: SeatView,
    seats: Sequence[SeatInfo],
    chat_title: str,
    table_id: int,
    ply: int,
    selection: Sequence[Card],
    away: bool = False,
) -> Screen:
    """A player's private hand: cards as buttons, legal choices live, confirm buttons."""
    assert view.seat is not None
    legal = list(view.legal)
    lines = [
        "🐐 <b>"
        + t._("Kozel · {variant}", variant=escape(variant_name(t, view.variant)))
        + "</b> · "
        + escape(chat_title),
        trump_line(t, view) + " · " + t.n_("stock {n} card", "stock {n} cards", view.stock),
    ]
    if view.players == 4:
        partner = seats[(view.seat + 2) % 4]
        lines.append(t._("Your partner: {name}", name=partner.label))
    trick = view.trick
    if trick is not None and trick.plays:
        lines.append("")
        lines.append("<b>" + t._("On the table") + "</b>")
        lines += _trick_lines(t, seats, trick)
    elif view.last_trick is not None and view.last_trick.taker is not None:
        lines.append("")
        lines.append(t._("Last trick taken by {name}:", name=seats[view.last_trick.taker].label))
        lines += _trick_lines(t, seats, view.last_trick)
    lines.append("")
    if away:
        lines.append(
            "💤 " + t._("A computer player is playing for you. Press “I'm back” to play again.")
        )
    else:
        lines.append(hand_prompt(t, view, legal))
    if view.to_move is not None and view.to_move != view.seat:
        lines.append(phase_line(t, view, seats))

    def cb(op: str, arg: str = "") -> str:
        return Callback(table_id, ply, op, arg).encode()

    rows: list[list[Button]] = []
    lines += ["", standings_line(t, view, seats)]
    if away:
        rows.append([Button("🙋 " + t._("I'm back"), cb("back"))])
        lines += ["", t._("Your cards: {cards}", cards=cards_text(view.hand))]
        return Screen.of("\n".join(lines), rows)
    playable = {c for a in legal if not a.verb.is_special for c in a.cards}
    chosen = set(selection)
    rows.append(
        [
            Button(
                _card_button_text(
                    c, trump=is_trump(view, c), selected=c in chosen, playable=c in playable
                ),
                cb("tog", encode_card(c)),
            )
            for c in view.hand
        ]
    )
    if chosen:
        matching = [a for a in legal if set(a.cards) == chosen and not a.verb.is_special]
        rows += [[Button(action_label(t, a), cb("act", encode_action(a)))] for a in matching]
        rows.append([Button("↺ " + t._("Clear selection"), cb("clr"))])
    rows += [
        [Button(action_label(t, a), cb("act", encode_action(a)))]
        for a in legal
        if a.verb.is_special
    ]
    return Screen.of("\n".join(lines), rows)


# ---------------------------------------------------------------- results


def deal_result_text(
    t: Translator,
    *,
    result: DealResult,
    players: int,
    seats: Sequence[SeatInfo],
    totals: Sequence[int],
    sides_in: Sequence[int],
) -> str:
    """``sides_in``: the sides that played this deal (3-player eliminations drop sides)."""
    lines = ["🏁 <b>" + t._("Deal {n} is over", n=result.number) + "</b>"]
    if result.queen_caught and result.queen_side is not None:
        members = side_members(players, result.queen_side)
        lines.append(
            "👑 "
            + t._(
                "The queen of clubs was caught by the seven! Defeat points for {side}: +{n}.",
                side=side_label(seats, members),
                n=result.defeat_points[result.queen_side],
            )
        )
    else:
        for side, points in enumerate(result.card_points):
            if side not in sides_in:
                continue
            members = side_members(players, side)
            award = result.defeat_points[side]
            lines.append(
                t.n_(
                    "{side}: {n} card point",
                    "{side}: {n} card points",
                    points,
                    side=side_label(seats, members),
                )
                + " · "
                + t.n_("{n} trick", "{n} tricks", result.tricks[side])
                + (" · " + t.n_("+{n} defeat point", "+{n} defeat points", award) if award else "")
            )
    if result.eggs:
        lines.append("🥚 " + t._("Eggs! 60 to 60."))
    parts = [
        f"{side_label(seats, side_members(players, s))} {p}/{TARGET}" for s, p in enumerate(totals)
    ]
    lines.append("🐐 " + t._("Defeat points: {list}", list=" · ".join(parts)))
    for side in result.out:
        lines.append(
            "❌ "
            + t._(
                "Out of the match at {n} defeat points: {side}.",
                side=side_label(seats, side_members(players, side)),
                n=TARGET,
            )
        )
    return "\n".join(lines)


def match_result_text(
    t: Translator, *, result: MatchResult, players: int, seats: Sequence[SeatInfo]
) -> str:
    goat = side_label(seats, side_members(players, result.goat))
    winners = ", ".join(side_label(seats, side_members(players, s)) for s in result.winners)
    lines = [
        "🏆 <b>" + t._("The match is over!") + "</b>",
        t._("Winners: {names}", names=winners),
        "🐐 " + t._("The goat: {names}", names=goat),
    ]
    if result.goat_with_eggs:
        lines.append("🥚 " + t._("…and a goat with eggs!"))
    parts = [
        f"{side_label(seats, side_members(players, s))} {p}"
        for s, p in enumerate(result.defeat_points)
    ]
    lines.append(
        t.n_("{n} deal played.", "{n} deals played.", result.deals)
        + " "
        + t._("Defeat points: {list}", list=" · ".join(parts))
    )
    lines.append(t._("Play again with /newgame · the ladder: /top"))
    return "\n".join(lines)
