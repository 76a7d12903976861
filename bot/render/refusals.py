"""Why a play is refused, in the player's words: every rule of the engine
(``kozel_rules.errors.Rule``) and the bot's own reasons (:class:`Refused`)."""

from __future__ import annotations

from enum import StrEnum

from kozel_rules.card import Card
from kozel_rules.errors import Rule

from ..i18n import N_, Translator
from .labels import card_label


class Refused(StrEnum):
    """Why the bot itself, before or beside the engine, refuses a seated player's press."""

    GONE = "gone"  # the table has no running match (over, cancelled, or none at all)
    NOT_SEATED = "not-seated"  # the presser has no seat at the table
    AWAY = "away"  # a computer plays the seat until its player is back
    STALE = "stale"  # pressed on an older state of the match
    INVALID = "invalid"  # malformed or forged data
    NOT_YET = "not-yet"  # the seat has nothing of its own to play now (a special lead aside)
    CANNOT_NOW = "cannot-now"  # the card goes into no play now, and no rule says more
    NOTHING_CHOSEN = "nothing-chosen"  # a confirm button pressed before any card was chosen


Reason = Rule | Refused

# One text a rule, as a card player would say it to the player who broke it.
RULE_TEXTS: dict[Rule, str] = {
    Rule.MATCH_OVER: N_("The match is over."),
    Rule.NO_SUCH_SEAT: N_("There is no such seat at this table."),
    Rule.SEAT_OUT: N_("You are out of the match."),
    Rule.MALFORMED: N_("That is not a move."),
    Rule.DUPLICATE_CARD: N_("The same card was chosen twice."),
    Rule.VERB_NOT_IN_VARIANT: N_("That kind of move is not part of this variant."),
    Rule.NO_CARDS: N_("Choose at least one card."),
    Rule.NOT_YOUR_TURN: N_("It is not your turn."),
    Rule.NOT_IN_HAND: N_("That card is not in your hand."),
    Rule.MUST_EXCHANGE: N_("You hold only trumps: first give one trump to your partner."),
    Rule.GIVE_ONE_TRUMP: N_("Give your partner exactly one trump."),
    Rule.MUST_RETURN: N_("Your partner gave you a trump: first give back one plain card."),
    Rule.RETURN_MUST_BE_PLAIN: N_("Give back a plain card, not a trump."),
    Rule.RETURN_ONE_CARD: N_("Give back exactly one plain card."),
    Rule.MUST_LEAD_RETURNED_CARD: N_("Lead the card your partner gave you."),
    Rule.MUST_LEAD: N_("It is your lead: start the trick."),
    Rule.LEAD_ONE_CARD: N_("Lead exactly one card."),
    Rule.TRUMP_LEAD_BANNED: N_("Trumps may not be led."),
    Rule.LEAD_ONE_SUIT: N_("A lead is one card or several cards of one suit."),
    Rule.LEAD_TOO_MANY: N_("Too many cards for one lead."),
    Rule.SPECIAL_IS_NOT_A_LEAD: N_("These four cards make a special lead: declare it instead."),
    Rule.MUST_PLAY: N_("Play one card to the trick."),
    Rule.PLAY_ONE_CARD: N_("Play exactly one card."),
    Rule.MUST_FOLLOW_SUIT: N_("You must follow the suit that was led."),
    Rule.MUST_PLAY_TRUMP: N_("You must play a trump."),
    Rule.MUST_RESPOND: N_("Answer the lead: beat it, or discard as many cards face down."),
    Rule.WRONG_CARD_COUNT: N_("Answer with as many cards as were led."),
    Rule.DOES_NOT_BEAT: N_("Those cards do not beat the cards on the table."),
    Rule.NOT_A_SPECIAL: N_("Those cards do not make that special lead."),
    Rule.OVERRIDE_NOT_NEARER: N_(
        "Only a seat nearer to the leader may override that special lead."
    ),
    Rule.MOLODKA_CANNOT_OVERRIDE_MOSCOW: N_("A molodka cannot override a Moscow."),
    Rule.ILLEGAL: N_("That move is not allowed now."),
}

REFUSED_TEXTS: dict[Refused, str] = {
    Refused.GONE: N_("This match is over or was cancelled."),
    Refused.NOT_SEATED: N_("These are not your cards."),
    Refused.AWAY: N_("A computer plays for you now. Press “I'm back” first."),
    Refused.STALE: N_("That button is out of date — your cards have been updated."),
    Refused.INVALID: N_("This button is not valid."),
    Refused.NOT_YET: N_("Not your turn yet."),
    Refused.CANNOT_NOW: N_("{card} cannot be played now."),
    Refused.NOTHING_CHOSEN: N_("First tap the cards to play, then this button."),
}

# Said without an alert: nothing went wrong, the player only has to look again or wait.
GENTLE = frozenset({Refused.STALE, Refused.NOT_YET, Refused.NOTHING_CHOSEN})


def refusal_text(t: Translator, reason: Reason, card: Card | None = None) -> str:
    """Why the press did nothing; ``card`` is the card tapped, where the reason names it."""
    if isinstance(reason, Refused):
        return t._(REFUSED_TEXTS[reason], card=card_label(t, card) if card else "")
    return t._(RULE_TEXTS[reason])
