"""A player's private messages: the hand with its buttons, and what it turns into."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from kozel_rules.action import Action
from kozel_rules.card import Card
from kozel_rules.variant import TrickKind, get_variant
from kozel_rules.view import SeatView

from ..callback import Callback, Op, encode_action, encode_card
from ..i18n import Translator
from ..screen import Button, Screen
from .labels import SeatInfo, action_label, cards_text, side_members
from .table import phase_line, standings_line, title_line, trick_section, trump_stock_line


def is_trump(view: SeatView, card: Card) -> bool:
    """Marked with a star in the hand: the variant's rules decide (fixed trumps, top card)."""
    variant = get_variant(view.variant)
    return card.suit is view.trump or card in variant.fixed_trumps or card == variant.top_card


def _card_button_text(card: Card, *, trump: bool, selected: bool, playable: bool) -> str:
    text = str(card)
    if trump:
        text = "★" + text
    if selected:
        return "✅" + text
    return text if playable else f"({text})"


def hand_prompt(t: Translator, view: SeatView, legal: Sequence[Action]) -> str:
    if view.match_over:
        return t._("The match is over.")
    if view.to_move != view.seat:
        if any(a.verb.is_special for a in legal):
            return t._("Not your turn — but you may declare your special lead at any moment.")
        return t._("Waiting for the others…")
    variant = get_variant(view.variant)
    if variant.trick_kind is TrickKind.FOLLOW and view.phase == "respond":
        return "👉 " + t._("Your turn: play a card.")
    if variant.trump_lead_ban and view.phase == "lead":
        return "👉 " + t._("Your lead: play a plain card (no trump leads).")
    prompts = {
        "lead": t._("Your lead: choose the cards, then confirm."),
        "respond": t._("Your answer: beat with as many cards, or discard as many face down."),
        "give": t._("You hold only trumps: give one trump to your partner."),
        "return": t._("Your partner holds only trumps: give back one plain card."),
        "forced-lead": t._("Lead the card your partner gave you."),
    }
    return "👉 " + prompts.get(view.phase, t._("Your turn."))


def _partners(view: SeatView) -> list[int]:
    assert view.seat is not None
    return [s for s in side_members(view.sides, view.sides[view.seat]) if s != view.seat]


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
    page_url: str | None = None,
) -> Screen:
    """A player's private hand: cards as buttons, legal choices live, confirm buttons; with
    ``page_url`` a last button opens the Mini App."""
    assert view.seat is not None
    legal = list(view.legal)
    lines = [title_line(t, view, escape(chat_title)), trump_stock_line(t, view)]
    lines += [t._("Your partner: {name}", name=seats[s].label) for s in _partners(view)]
    trick = trick_section(t, view, seats)
    if trick:
        lines += ["", *trick]
    lines.append("")
    if away:
        lines.append(
            "💤 " + t._("A computer player is playing for you. Press “I'm back” to play again.")
        )
    else:
        lines.append(hand_prompt(t, view, legal))
    if view.to_move is not None and view.to_move != view.seat:
        lines.append(phase_line(t, view, seats))

    def cb(op: Op, arg: str = "") -> str:
        return Callback(table_id, ply, op, arg).encode()

    rows: list[list[Button]] = []
    lines += ["", standings_line(t, view, seats)]
    if away:
        rows.append([Button("🙋 " + t._("I'm back"), cb(Op.BACK))])
        lines += ["", t._("Your cards: {cards}", cards=cards_text(view.hand))]
        return Screen.of("\n".join(lines), [*rows, open_table_row(t, page_url)])
    playable = {c for a in legal if not a.verb.is_special for c in a.cards}
    chosen = set(selection)
    rows.append(
        [
            Button(
                _card_button_text(
                    c, trump=is_trump(view, c), selected=c in chosen, playable=c in playable
                ),
                cb(Op.TOGGLE, encode_card(c)),
            )
            for c in view.hand
        ]
    )
    if chosen:
        matching = [a for a in legal if set(a.cards) == chosen and not a.verb.is_special]
        rows += [[Button(action_label(t, a), cb(Op.ACT, encode_action(a)))] for a in matching]
        # TRANSLATORS: a button under the hand: unselect the chosen cards. Not the word used
        # for discarding cards face down, which is on a button next to it.
        rows.append([Button("↺ " + t._("Clear selection"), cb(Op.CLEAR))])
    rows += [
        [Button(action_label(t, a), cb(Op.ACT, encode_action(a)))]
        for a in legal
        if a.verb.is_special
    ]
    return Screen.of("\n".join(lines), [*rows, open_table_row(t, page_url)])


def open_table_row(t: Translator, page_url: str | None) -> list[Button]:
    """The Mini App's button: a web_app button in private chats (empty without a page)."""
    if page_url is None:
        return []
    return [Button("🃏 " + t._("Open the table"), web_app=page_url)]


def hand_closed_screen(t: Translator, chat_title: str) -> Screen:
    """What a hand turns into when its table is cancelled (the keyboard goes)."""
    return Screen.of(t._("The table in {chat} was cancelled.", chat=escape(chat_title)))


def removed_screen(t: Translator) -> Screen:
    return Screen.of(t._("You were removed from the table."))
