"""Errors: each names the seat, the action and the rule it breaks."""

from __future__ import annotations

from enum import StrEnum


class KozelError(Exception):
    """Base of every error the engine raises."""


class RecordError(KozelError):
    """A game record or saved state is wrong in itself (variant, players, deck, JSON)."""


class Rule(StrEnum):
    """Why an action is refused: a stable id the bot maps to a translated text."""

    MATCH_OVER = "match-over"
    NO_SUCH_SEAT = "no-such-seat"
    SEAT_OUT = "seat-out"
    MALFORMED = "malformed"
    DUPLICATE_CARD = "duplicate-card"
    VERB_NOT_IN_VARIANT = "verb-not-in-variant"
    NO_CARDS = "no-cards"
    NOT_YOUR_TURN = "not-your-turn"
    NOT_IN_HAND = "not-in-hand"
    MUST_EXCHANGE = "must-exchange"
    GIVE_ONE_TRUMP = "give-one-trump"
    MUST_RETURN = "must-return"
    RETURN_MUST_BE_PLAIN = "return-must-be-plain"
    RETURN_ONE_CARD = "return-one-card"
    MUST_LEAD_RETURNED_CARD = "must-lead-returned-card"
    MUST_LEAD = "must-lead"
    LEAD_ONE_CARD = "lead-one-card"
    TRUMP_LEAD_BANNED = "trump-lead-banned"
    LEAD_ONE_SUIT = "lead-one-suit"
    LEAD_TOO_MANY = "lead-too-many"
    SPECIAL_IS_NOT_A_LEAD = "special-is-not-a-lead"
    MUST_PLAY = "must-play"
    PLAY_ONE_CARD = "play-one-card"
    MUST_FOLLOW_SUIT = "must-follow-suit"
    MUST_PLAY_TRUMP = "must-play-trump"
    MUST_RESPOND = "must-respond"
    WRONG_CARD_COUNT = "wrong-card-count"
    DOES_NOT_BEAT = "does-not-beat"
    NOT_A_SPECIAL = "not-a-special"
    OVERRIDE_NOT_NEARER = "override-not-nearer"
    MOLODKA_CANNOT_OVERRIDE_MOSCOW = "molodka-cannot-override-moscow"
    ILLEGAL = "illegal"  # the fallback: no more precise reason applies


class IllegalActionError(KozelError):
    """The action is not allowed now; the state is unchanged.

    ``rule`` says which rule it breaks (a :class:`Rule`, equal to its id string, e.g.
    ``"must-follow-suit"``); the bot maps it to a translated message; ``str(err)`` reads well
    in English.
    """

    def __init__(self, message: str, *, rule: Rule, action: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.action = action
