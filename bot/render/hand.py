"""A player's private messages: the hand with its buttons, and what it turns into."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from kozel_rules.action import Action, Verb
from kozel_rules.card import Card
from kozel_rules.options import Options
from kozel_rules.variant import TrickKind, get_variant
from kozel_rules.view import Phase, SeatView

from ..callback import Callback, Op, encode_action, encode_card
from ..i18n import Translator
from ..screen import Button, Screen, Style
from .choice import (
    POINT_CARD,
    Choice,
    asking_verbs,
    chosen_label,
    confirm_order,
    judge,
    partner_on_top,
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

HURRY = 20  # seconds left on the turn timer from which the hand shows them


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
        return "👉 " + _chosen_prompt(t, view, selection)
    variant = get_variant(view.variant)
    follow = variant.trick_kind is TrickKind.FOLLOW
    if view.phase == Phase.RESPOND and follow:
        return "👉 " + t._("Your turn: a tap on a card plays it.")
    if view.phase == Phase.RESPOND:
        size = set_size(view)
        if size > 1:
            return "👉 " + t.n_(
                "Your answer: tap {n} card, then ⚔️ beats with it or 🂠 throws it face down.",
                "Your answer: tap {n} cards, then ⚔️ beats with them or 🂠 throws them face down.",
                size,
            )
        if partner_on_top(view):
            return "👉 " + t._(
                "Your partner holds the trick: a tap throws a card face down (an A, 10 or K "
                "asks first); a card that could beat asks what to do."
            )
        return "👉 " + t._(
            "Your answer: a tap on a card that can beat (green) beats with it; a tap on "
            "another throws it face down (an A, 10 or K asks first)."
        )
    if view.phase == Phase.LEAD and variant.trump_lead_ban:
        return "👉 " + t._("Your lead: a tap on a plain card leads it (no trump leads).")
    prompts = {
        Phase.LEAD: t._(
            "Your lead: a tap leads a card that is alone in its suit; for a card with more "
            "of its suit, tap the cards to lead, then ▶️."
        ),
        Phase.GIVE: t._("You hold only trumps: a tap on a trump gives it to your partner."),
        Phase.RETURN: t._("Your partner holds only trumps: a tap on a plain card gives it back."),
        Phase.FORCED_LEAD: t._("A tap on the card your partner gave you leads it."),
    }
    return "👉 " + prompts.get(view.phase, t._("Your turn."))


def _chosen_prompt(t: Translator, view: SeatView, selection: Sequence[Card]) -> str:
    cards = cards_text(t, sorted(set(selection)))
    choice, missing = judge(view, selection)
    n = len(set(selection))
    if choice is Choice.MORE:
        return t.n_(
            "Chosen: {cards} — choose {n} more card.",
            "Chosen: {cards} — choose {n} more cards.",
            missing,
            cards=cards,
        )
    if choice is Choice.NONE:
        return t._("Chosen: {cards} — tap a card to change the choice.", cards=cards)
    if choice is Choice.DISCARD:
        return t.n_(
            "{cards} cannot beat: 🂠 below throws it face down; a tap on it takes it back.",
            "{cards} cannot beat: 🂠 below throws them face down; a tap on a card takes it back.",
            n,
            cards=cards,
        )
    if choice is Choice.BEAT_OR_DISCARD:
        return t._(
            "{cards}: ⚔️ below beats, 🂠 throws face down; a tap on a card takes it back.",
            cards=cards,
        )
    return t.n_(
        "Chosen: {cards} — the button below plays it; a tap on a card adds it or takes it back.",
        "Chosen: {cards} — the button below plays them; a tap on a card adds it or takes it back.",
        n,
        cards=cards,
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
    seconds_left: float | None = None,
    coach: tuple[int, str] | None = None,
    options: Options | None = None,
) -> Screen:
    """A player's private hand: cards as buttons, legal choices live, confirm buttons; with
    ``page_url`` a last button opens the Mini App. ``seconds_left``: on the turn timer.
    ``coach``: the last deal the player played and its "How did I play?" button's data."""
    assert view.seat is not None
    legal = list(view.legal)
    chosen = set(selection) & set(view.hand)
    lines = [*header_lines(t, view, escape(chat_title), options), trump_stock_line(t, view)]
    lines += [t._("Your partner: {name}", name=seats[s].label) for s in _partners(view)]
    trick = _trick_lines(t, view, seats)
    if trick:
        lines += ["", *trick]
    lines.append("")
    if away:
        lines.append(
            "💤 " + t._("A computer player is playing for you. Press “I'm back” to play again.")
        )
    else:
        lines.append(hand_prompt(t, view, legal, sorted(chosen)))
        my_turn = view.to_move == view.seat
        if my_turn and seconds_left is not None and 0 < seconds_left <= HURRY:
            left = max(1, round(seconds_left))
            lines.append(
                "⏳ " + t.n_("{n} second left to move.", "{n} seconds left to move.", left)
            )
    if view.to_move is not None and view.to_move != view.seat:
        lines.append(phase_line(t, view, seats))

    def cb(op: Op, arg: str = "") -> str:
        return Callback(table_id, ply, op, arg).encode()

    rows: list[list[Button]] = []
    lines += ["", standings_line(t, view, seats, options)]
    if away:
        rows.append([Button("🙋 " + t._("I'm back"), cb(Op.BACK))])
        lines += ["", t._("Your cards: {cards}", cards=cards_text(t, view.hand))]
        return Screen.of(
            "\n".join(lines), [*rows, coach_row(t, coach), open_table_row(t, page_url)]
        )
    plays = [a for a in legal if not a.verb.is_special]
    playable = {c for a in plays for c in a.cards}
    beating = {c for a in plays if a.verb is Verb.BEAT for c in a.cards}
    cards = []
    for c in view.hand:
        text, style = _card_button(
            t, view, c, chosen=c in chosen, playable=c in playable, beats=c in beating
        )
        cards.append(Button(text, cb(Op.TOGGLE, encode_card(c)), style=style))
    rows.append(cards)
    rows += _choice_rows(t, view, plays, chosen, cb)
    rows += [
        [Button(action_label(t, a), cb(Op.ACT, encode_action(a)))]
        for a in legal
        if a.verb.is_special
    ]
    return Screen.of("\n".join(lines), [*rows, coach_row(t, coach), open_table_row(t, page_url)])


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
