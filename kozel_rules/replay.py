"""The replay contract of DESIGN.md: ``replay(record) -> result``, both plain JSON data."""

from __future__ import annotations

from typing import Any

from .action import Action
from .errors import IllegalActionError, KozelError, RecordError, Rule
from .match import Match
from .result import DealResult


def _deal_json(r: DealResult) -> dict[str, Any]:
    return {
        "dealer": r.dealer,
        "trump": r.trump.symbol if r.trump is not None else None,
        "first_leader": r.first_leader,
        "tricks": list(r.tricks),
        "card_points": list(r.card_points),
        "defeat_points": list(r.defeat_points),
        "eggs": r.eggs,
        "queen_caught": r.queen_caught,
        "last_trick_seat": r.last_trick_seat,
    }


def _record_error(reason: str) -> dict[str, Any]:
    return {
        "ok": False,
        "error": {"index": None, "action": None, "reason": reason},
        "legal": None,
        "deals": [],
        "defeat_points": [],
        "match_over": False,
        "out": [],
    }


def _start(record: Any) -> Match:
    if not isinstance(record, dict):
        raise RecordError("a record is a JSON object")
    if "variant" not in record:
        raise RecordError("the record names no variant")
    players = record.get("players", 4)
    if not isinstance(players, int) or isinstance(players, bool):
        raise RecordError(f"players must be a number, not {players!r}")
    decks = record.get("decks") or []
    if not isinstance(decks, list) or not all(isinstance(d, list) for d in decks):
        raise RecordError("decks must be a list of lists of cards")
    seed = record.get("seed", 0)
    if seed is None:
        seed = 0
    dealer = record.get("dealer")
    if dealer is not None and (not isinstance(dealer, int) or isinstance(dealer, bool)):
        raise RecordError(f"dealer must be a seat number, not {dealer!r}")
    actions = record.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise RecordError("actions must be a list of strings")
    return Match.new(
        record["variant"],
        players=players,
        seed=seed,
        dealer=dealer,
        decks=decks,
        options=record.get("options"),  # absent, null or {}: the defaults
    )


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Replay a game record (DESIGN.md "The engine contract") and report the outcome."""
    try:
        match = _start(record)
    except (KozelError, ValueError, TypeError) as e:
        return _record_error(str(e))
    with_legal = bool(record.get("with_legal", False))
    legal: list[list[str]] | None = [] if with_legal else None
    error: dict[str, Any] | None = None
    for i, text in enumerate(record.get("actions", [])):
        if legal is not None:
            legal.append([str(a) for a in match.legal_actions()])
        try:
            if match.is_over:
                raise IllegalActionError("the match is over", rule=Rule.MATCH_OVER, action=text)
            match.apply(Action.parse(text))
        except ValueError as e:
            error = {"index": i, "action": text, "reason": f"malformed action: {e}"}
            break
        except IllegalActionError as e:
            error = {"index": i, "action": text, "reason": str(e)}
            break
    if legal is not None and error is None:
        legal.append([str(a) for a in match.legal_actions()])
    return {
        "ok": error is None,
        "error": error,
        "legal": legal,
        "deals": [_deal_json(r) for r in match.deal_results],
        "defeat_points": list(match.defeat_points),
        "match_over": match.is_over,
        "out": list(match.out),
    }
