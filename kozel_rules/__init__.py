"""kozel_rules: a pure rules engine for the card game Kozel (ziege, street, moscow).

See ``kozel_rules/README.md`` for the API and for every choice made where RULES.md is silent.
"""

from . import event, result, view
from .action import Action, Verb
from .card import CARDS, Card, Rank, Suit, format_cards, parse_cards
from .errors import IllegalActionError, KozelError, RecordError, Rule
from .event import (
    CardGiven,
    CardsPlayed,
    CardsReturned,
    DealEnded,
    DealStarted,
    Event,
    ExchangeMade,
    MatchEnded,
    QueenCaught,
    TrickTaken,
    event_for_seat,
    public_event,
)
from .match import Match
from .options import Options
from .replay import replay
from .result import DealResult, MatchResult
from .state import GameState
from .variant import VARIANTS, Special, Variant, get_variant
from .view import Phase, PlayView, SeatView, Seen, TrickView

__all__ = [
    "CARDS",
    "VARIANTS",
    "Action",
    "Card",
    "CardGiven",
    "CardsPlayed",
    "CardsReturned",
    "DealEnded",
    "DealResult",
    "DealStarted",
    "Event",
    "ExchangeMade",
    "GameState",
    "IllegalActionError",
    "KozelError",
    "Match",
    "MatchEnded",
    "MatchResult",
    "Options",
    "Phase",
    "PlayView",
    "QueenCaught",
    "Rank",
    "RecordError",
    "Rule",
    "SeatView",
    "Seen",
    "Special",
    "Suit",
    "TrickTaken",
    "TrickView",
    "Variant",
    "Verb",
    "event",
    "event_for_seat",
    "format_cards",
    "get_variant",
    "parse_cards",
    "public_event",
    "replay",
    "result",
    "view",
]
