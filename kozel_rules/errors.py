"""Errors: each names the seat, the action and the rule it breaks."""

from __future__ import annotations


class KozelError(Exception):
    """Base of every error the engine raises."""


class RecordError(KozelError):
    """A game record or saved state is wrong in itself (variant, players, deck, JSON)."""


class IllegalActionError(KozelError):
    """The action is not allowed now; the state is unchanged.

    ``rule`` is a short stable id (e.g. ``"not-your-turn"``, ``"must-follow-suit"``,
    ``"trump-lead-banned"``, ``"does-not-beat"``, ``"override-not-nearer"``,
    ``"match-over"``) the bot maps to a translated message; ``str(err)`` reads well in English.
    """

    def __init__(self, message: str, *, rule: str, action: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.action = action
