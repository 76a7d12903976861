"""What a tap on a card means (the tap rule's core) and the buttons that confirm a choice.

``service.tap`` and the hand's prompt both read :func:`sensible_plays`, so that what a prompt
promises and what a tap does cannot drift apart. The confirm buttons drawn before any choice
(:func:`asking_verbs`) let a player play without waiting for the hand's edit that shows their
selection: the press's answer says the selection (:func:`selection_hint`), and on a busy
evening that edit waits (``service.moves``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from enum import Enum

from kozel_rules.action import Action, Verb
from kozel_rules.card import Card
from kozel_rules.view import Phase, SeatView

from ..i18n import Translator
from .labels import cards_text

POINT_CARD = 4  # card points from which a card is not thrown away face down on one tap (K)


def partner_on_top(view: SeatView) -> bool:
    """Whether the cards an answer would beat are the seat's partner's."""
    trick = view.trick
    if trick is None or trick.top_seat is None or view.seat is None:
        return False
    top = trick.top_seat
    return top != view.seat and view.sides[top] == view.sides[view.seat]


def sensible_plays(view: SeatView, card: Card) -> list[Action]:
    """The plays a first tap on ``card`` may mean; exactly one is played on that tap (the tap
    rule, ``service.tap``). None where the card may go into a set (it is being built), where
    it would go face down with points, or where it could beat the partner or be thrown away."""
    plays = [a for a in view.legal if not a.verb.is_special and card in a.cards]
    if any(len(a.cards) > 1 for a in plays):
        return []
    beats = [a for a in plays if a.verb is Verb.BEAT]
    if beats:
        return [] if partner_on_top(view) else beats
    if len(plays) == 1 and plays[0].verb is Verb.DISCARD and card.points >= POINT_CARD:
        return []
    return plays


def set_size(view: SeatView) -> int:
    """How many cards an answer holds now (the lead's)."""
    trick = view.trick
    return trick.plays[0].count if trick is not None and trick.plays else 1


def confirm_order(verb: Verb) -> int:
    """Confirm buttons from the boldest: beat above discard."""
    return {Verb.BEAT: 0, Verb.DISCARD: 2}.get(verb, 1)


def asking_verbs(view: SeatView) -> list[Verb]:
    """The verbs of the plays that a tap cannot make alone on the seat's turn: the ones its
    confirm buttons need (empty where every playable card is one tap)."""
    if view.to_move != view.seat:
        return []
    plays = [a for a in view.legal if not a.verb.is_special]
    asking = {c for a in plays for c in a.cards if len(sensible_plays(view, c)) != 1}
    verbs = {a.verb for a in plays if asking & set(a.cards)}
    return sorted(verbs, key=confirm_order)


def chosen_label(t: Translator, verb: Verb) -> str:
    """A confirm button drawn before any choice: it plays whatever is chosen by then."""
    # TRANSLATORS: buttons under a player's hand before they chose cards: they play the
    # cards the player taps first ("the chosen cards").
    labels = {
        Verb.LEAD: "▶️ " + t._("Lead the chosen cards"),
        Verb.BEAT: "⚔️ " + t._("Beat with the chosen cards"),
        Verb.DISCARD: "🂠 " + t._("Discard the chosen cards face down"),
    }
    return labels.get(verb, "▶️ " + t._("Play the chosen cards"))


class Choice(Enum):
    """What the chosen cards make now (the hand's prompt and a tap's answer both say it)."""

    DISCARD = "discard"  # a play face down only
    BEAT_OR_DISCARD = "beat-or-discard"
    PLAY = "play"  # a play of another verb
    MORE = "more"  # part of an answer: more cards to choose
    NONE = "none"  # no play: the choice must change


def judge(view: SeatView, chosen: Collection[Card]) -> tuple[Choice, int]:
    """What ``chosen`` makes, and how many cards an answer still needs."""
    picked = set(chosen)
    verbs = {a.verb for a in view.legal if not a.verb.is_special and set(a.cards) == picked}
    missing = set_size(view) - len(picked)
    if verbs == {Verb.DISCARD}:
        return Choice.DISCARD, missing
    if verbs == {Verb.BEAT, Verb.DISCARD}:
        return Choice.BEAT_OR_DISCARD, missing
    if verbs:
        return Choice.PLAY, missing
    if view.phase == Phase.RESPOND and missing > 0:
        return Choice.MORE, missing
    return Choice.NONE, missing


def selection_hint(t: Translator, view: SeatView, chosen: Sequence[Card]) -> str:
    """The selection and what the buttons and a tap do with it: the answer to a tap that
    selects and the hand's prompt say it in the same words."""
    if not chosen:
        return t._("Nothing selected.")
    cards = cards_text(t, chosen)
    choice, missing = judge(view, chosen)
    n = len(set(chosen))
    if choice is Choice.DISCARD:
        # TRANSLATORS: the answer to a tap on a card and the hand's prompt; {cards} is the
        # selection, such as "9♠".
        return t.n_(
            "Selected: {cards} — cannot beat: 🂠 below throws it face down; a tap on it "
            "takes it back.",
            "Selected: {cards} — cannot beat: 🂠 below throws them face down; a tap on a "
            "card takes it back.",
            n,
            cards=cards,
        )
    if choice is Choice.BEAT_OR_DISCARD:
        return t._(
            "Selected: {cards} — ⚔️ below beats, 🂠 throws face down; a tap on a card takes it back.",
            cards=cards,
        )
    if choice is Choice.PLAY:
        return t.n_(
            "Selected: {cards} — the button below plays it; a tap on a card adds it or "
            "takes it back.",
            "Selected: {cards} — the button below plays them; a tap on a card adds it or "
            "takes it back.",
            n,
            cards=cards,
        )
    if choice is Choice.MORE:
        return t.n_(
            "Selected: {cards} — choose {n} more card.",
            "Selected: {cards} — choose {n} more cards.",
            missing,
            cards=cards,
        )
    return t._("Selected: {cards} — tap a card to change the selection.", cards=cards)
