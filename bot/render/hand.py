"""A player's private messages: the hand with its buttons, and what it turns into."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from kozel_rules.action import Action, Verb
from kozel_rules.card import Card
from kozel_rules.options import Options
from kozel_rules.variant import TrickKind, get_variant
from kozel_rules.view import Phase, SeatView

from ..callback import Callback, Op, encode_action, encode_card
from ..i18n import Translator
from ..screen import Button, Screen, Style
from ..turn_clock import HURRY
from .choice import (
    POINT_CARD,
    asking_verbs,
    chosen_label,
    confirm_order,
    partner_on_top,
    selection_hint,
    set_size,
)
from .labels import SeatInfo, action_label, card_label, cards_text, side_members
from .table import (
    current_trick_lines,
    header_lines,
    last_trick_line,
    phase_line,
    standings_line,
    trump_stock_line,
)


def is_trump(view: SeatView, card: Card) -> bool:
    """Marked with a star in the hand: the variant's rules decide (fixed trumps, top card)."""
    variant = get_variant(view.variant)
    return card.suit is view.trump or card in variant.fixed_trumps or card == variant.top_card


def _card_button(
    t: Translator, view: SeatView, card: Card, *, chosen: bool, playable: bool, beats: bool
) -> tuple[str, Style | None]:
    text = card_label(t, card)
    if is_trump(view, card):
        text = "★" + text
    if chosen:
        return "✅" + text, None
    if not playable:
        return f"({text})", None
    return text, Style.SUCCESS if beats else Style.PRIMARY


def hand_prompt(
    t: Translator, view: SeatView, legal: Sequence[Action], selection: Sequence[Card] = ()
) -> str:
    """What the player is asked to do, and what their next tap does."""
    if view.match_over:
        return t._("The match is over.")
    if view.to_move != view.seat:
        if any(a.verb.is_special for a in legal):
            return t._("Not your turn — but you may declare your special lead at any moment.")
        return t._("Waiting for the others…")
    if selection:
        return "👉 " + selection_hint(t, view, selection)
    return "👉 " + _turn_prompt(t, view)


def _turn_prompt(t: Translator, view: SeatView) -> str:
    """The seat's turn before any card is chosen: what a tap on a card does now."""
    variant = get_variant(view.variant)
    if view.phase == Phase.RESPOND:
        if variant.trick_kind is TrickKind.FOLLOW:
            return t._("Your turn: a tap on a card plays it.")
        return _answer_prompt(t, view)
    if view.phase == Phase.LEAD and variant.trump_lead_ban:
        return t._("Your lead: a tap on a plain card leads it (no trump leads).")
    prompts = {
        Phase.LEAD: t._(
            "Your lead: a tap leads a card that is alone in its suit; for a card with more "
            "of its suit, tap the cards to lead, then ▶️."
        ),
        Phase.GIVE: t._("You hold only trumps: a tap on a trump gives it to your partner."),
        Phase.RETURN: t._("Your partner holds only trumps: a tap on a plain card gives it back."),
        Phase.FORCED_LEAD: t._("A tap on the card your partner gave you leads it."),
    }
    return prompts.get(view.phase, t._("Your turn."))


def _answer_prompt(t: Translator, view: SeatView) -> str:
    """An answer to a lead where a card may beat or go face down."""
    size = set_size(view)
    if size > 1:
        return t.n_(
            "Your answer: tap {n} card, then ⚔️ beats with it or 🂠 throws it face down.",
            "Your answer: tap {n} cards, then ⚔️ beats with them or 🂠 throws them face down.",
            size,
        )
    if partner_on_top(view):
        return t._(
            "Your partner holds the trick: a tap throws a card face down (an A, 10 or K "
            "asks first); a card that could beat asks what to do."
        )
    if not any(action.verb is Verb.BEAT for action in view.legal):
        return t._(
            "Nothing in your hand beats this trick: a tap throws a card face down (an A, 10 "
            "or K asks first)."
        )
    return t._(
        "Your answer: a tap on a card that can beat (green) beats with it; a tap on "
        "another throws it face down (an A, 10 or K asks first)."
    )


def _partners(view: SeatView) -> list[int]:
    assert view.seat is not None
    return [s for s in side_members(view.sides, view.sides[view.seat]) if s != view.seat]


def _trick_lines(t: Translator, view: SeatView, seats: Sequence[SeatInfo]) -> list[str]:
    """The current trick on the player's turn; else the last trick taken (one line)."""
    lines: list[str] = []
    if view.to_move == view.seat and view.trick is not None and view.trick.plays:
        lines += current_trick_lines(t, view.trick, seats)
    elif view.last_trick is not None:
        lines.append(last_trick_line(t, view.last_trick, seats))
    return lines


def _confirm(t: Translator, action: Action, data: str) -> Button:
    style = None
    if action.verb is Verb.BEAT:
        style = Style.SUCCESS
    elif action.verb is Verb.DISCARD and any(c.points >= POINT_CARD for c in action.cards):
        style = Style.DANGER
    return Button(action_label(t, action), data, style=style)


@dataclass(frozen=True)
class HandMessage:
    """What a player's hand message is drawn from. ``page_url``: a last button opens the
    Mini App; ``seconds_left``: on the turn timer; ``coach``: the last deal the player played
    and its "How did I play?" button's data."""

    view: SeatView
    seats: Sequence[SeatInfo]
    chat_title: str
    table_id: int
    ply: int
    selection: Sequence[Card]
    away: bool = False
    page_url: str | None = None
    seconds_left: float | None = None
    coach: tuple[int, str] | None = None
    options: Options | None = None

    def callback(self, op: Op, arg: str = "") -> str:
        return Callback(self.table_id, self.ply, op, arg).encode()


def hand_screen(t: Translator, hand: HandMessage) -> Screen:
    """A player's private hand: cards as buttons, legal choices live, confirm buttons."""
    view = hand.view
    assert view.seat is not None
    chosen = set(hand.selection) & set(view.hand)
    lines = _top_lines(t, hand)
    lines += _prompt_lines(t, hand, chosen)
    if view.to_move is not None and view.to_move != view.seat:
        lines.append(phase_line(t, view, hand.seats))
    lines += ["", standings_line(t, view, hand.seats, hand.options)]
    last = [coach_row(t, hand.coach), open_table_row(t, hand.page_url)]
    if hand.away:
        lines += ["", t._("Your cards: {cards}", cards=cards_text(t, view.hand))]
        back = [Button("🙋 " + t._("I'm back"), hand.callback(Op.BACK))]
        return Screen.of("\n".join(lines), [back, *last])
    return Screen.of("\n".join(lines), [*_play_rows(t, hand, chosen), *last])


def _top_lines(t: Translator, hand: HandMessage) -> list[str]:
    """The table's header, the trump, the partners and the trick in view."""
    view = hand.view
    lines = [
        *header_lines(t, view, escape(hand.chat_title), hand.options),
        trump_stock_line(t, view),
    ]
    lines += [t._("Your partner: {name}", name=hand.seats[s].label) for s in _partners(view)]
    trick = _trick_lines(t, view, hand.seats)
    if trick:
        lines += ["", *trick]
    lines.append("")
    return lines


def _prompt_lines(t: Translator, hand: HandMessage, chosen: set[Card]) -> list[str]:
    """What the player is asked to do, with the turn timer when it runs short."""
    if hand.away:
        return [
            "💤 " + t._("A computer player is playing for you. Press “I'm back” to play again.")
        ]
    view = hand.view
    lines = [hand_prompt(t, view, list(view.legal), sorted(chosen))]
    left = hand.seconds_left
    if view.to_move == view.seat and left is not None and 0 < left <= HURRY:
        n = max(1, round(left))
        lines.append("⏳ " + t.n_("{n} second left to move.", "{n} seconds left to move.", n))
    return lines


def _play_rows(t: Translator, hand: HandMessage, chosen: set[Card]) -> list[list[Button]]:
    """The cards as buttons, the confirm buttons and the special leads."""
    view = hand.view
    plays = [a for a in view.legal if not a.verb.is_special]
    playable = {c for a in plays for c in a.cards}
    beating = {c for a in plays if a.verb is Verb.BEAT for c in a.cards}
    cards = []
    for c in view.hand:
        text, style = _card_button(
            t, view, c, chosen=c in chosen, playable=c in playable, beats=c in beating
        )
        cards.append(Button(text, hand.callback(Op.TOGGLE, encode_card(c)), style=style))
    rows = [cards, *_choice_rows(t, view, plays, chosen, hand.callback)]
    rows += [
        [Button(action_label(t, a), hand.callback(Op.ACT, encode_action(a)))]
        for a in view.legal
        if a.verb.is_special
    ]
    return rows


def _choice_rows(
    t: Translator,
    view: SeatView,
    plays: Sequence[Action],
    chosen: set[Card],
    cb: Callable[[Op, str], str],
) -> list[list[Button]]:
    """The confirm buttons: the plays of the chosen cards; before any choice, one a verb that
    plays whatever gets chosen (so a player need not wait for this message's edit)."""
    if not chosen:
        return [
            [Button(chosen_label(t, verb), cb(Op.CONFIRM, verb.value))]
            for verb in asking_verbs(view)
        ]
    matching = sorted(
        (a for a in plays if set(a.cards) == chosen), key=lambda a: confirm_order(a.verb)
    )
    rows = [[_confirm(t, a, cb(Op.ACT, encode_action(a)))] for a in matching]
    # TRANSLATORS: a button under the hand: unselect the chosen cards. Not the word used
    # for discarding cards face down, which is on a button next to it.
    rows.append([Button("↺ " + t._("Clear selection"), cb(Op.CLEAR, ""))])
    return rows


def coach_row(t: Translator, coach: tuple[int, str] | None) -> list[Button]:
    """ "How did I play?" about the last deal the player played (empty before the first)."""
    if coach is None:
        return []
    deal, data = coach
    # TRANSLATORS: a button under the hand: the coach looks at the player's play in a deal.
    return [Button("🎓 " + t._("How did I play in deal {n}?", n=deal), data)]


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
