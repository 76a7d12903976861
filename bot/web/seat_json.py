"""What the page gets: one seat's view as JSON, with every text already translated.

Built from the engine's per-seat view only (``Match.view(seat)``): the seat's own hand and
legal actions, the public facts about the others (hand sizes, face-up cards, face-down
counts), never another hand, a face-down card of another seat, or a running card-point total.
A spectator's page gets the public view (``Match.view(None)``): no hand, no face-down card.
Texts are plain (the page puts them in as text, never as markup).
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from html import unescape
from typing import Any

from kozel_rules.action import Action, Verb
from kozel_rules.variant import get_variant
from kozel_rules.view import PlayView, SeatView, TrickView

from ..i18n import Translator
from ..render import house_rules
from ..render.hand import hand_prompt, is_trump
from ..render.labels import action_label, side_members
from ..render.ladder import replay_label
from ..render.rules_text import variant_name
from ..render.table import phase_line, standings_line, trump_stock_line
from ..service import coach
from ..service.webapp import SeatPage
from ..storage import TableStatus

_TAG = re.compile(r"<[^>]+>")


def plain(html: str) -> str:
    """Our screens' HTML as text: every name in it was escaped, so no tag comes from a user."""
    return unescape(_TAG.sub("", html))


def _play(view: SeatView, play: PlayView, top: bool) -> dict[str, Any]:
    return {
        "seat": play.seat,
        "verb": str(play.verb),
        "cards": [str(c) for c in play.cards],  # empty for another seat's face-down play
        "trumps": [is_trump(view, c) for c in play.cards],
        "count": play.count,
        "face_down": play.verb.is_face_down,
        "top": top,
    }


def _trick(view: SeatView, trick: TrickView | None) -> dict[str, Any] | None:
    """``top`` marks the cards an answer has to beat, or on a taken trick the taker's."""
    if trick is None:
        return None
    top_index = None
    if trick.top_seat is not None:
        for i in range(len(trick.plays) - 1, -1, -1):
            play = trick.plays[i]
            if play.seat == trick.top_seat and not play.verb.is_face_down:
                top_index = i
                break
    return {
        "leader": trick.leader,
        "taker": trick.taker,
        "plays": [_play(view, p, i == top_index) for i, p in enumerate(trick.plays)],
    }


def _action(t: Translator, action: Action) -> dict[str, Any]:
    return {
        "verb": str(action.verb),
        "cards": [str(c) for c in action.cards],
        "special": action.verb.is_special,
        "label": action_label(t, action),
    }


def _seats(page: SeatPage, view: SeatView) -> list[dict[str, Any]]:
    t, me = page.t, page.seat
    mine = side_members(view.sides, view.sides[me]) if me is not None else ()
    seats = []
    for seat, info in enumerate(page.seats):
        seats.append(
            {
                "seat": seat,
                "name": info.name,
                "computer": info.ai_level is not None,
                "away": info.away,
                "me": seat == me,
                "partner": seat != me and seat in mine,
                "in_game": view.in_game[seat],
                "dealer": seat == view.dealer,
                "to_move": seat == view.to_move,
                "cards": view.hand_sizes[seat],
                "cards_text": t.n_("{n} card", "{n} cards", view.hand_sizes[seat]),
                "tricks": view.tricks_by_seat[seat],
                "tricks_text": t.n_("{n} trick", "{n} tricks", view.tricks_by_seat[seat]),
            }
        )
    return seats


def _sides(page: SeatPage, view: SeatView) -> list[dict[str, Any]]:
    t = page.t
    sides = []
    for side, points in enumerate(view.defeat_points):
        members = side_members(view.sides, side)
        sides.append(
            {
                "names": " & ".join(page.seats[s].name for s in members),
                "mine": page.seat is not None and page.seat in members,
                "tricks": view.tricks_by_side[side],
                "tricks_text": t.n_("{n} trick", "{n} tricks", view.tricks_by_side[side]),
                "defeat_points": points,
                "out": side in view.out,
            }
        )
    return sides


def _deal_end(page: SeatPage, view: SeatView) -> dict[str, Any] | None:
    """The finished deal's result and last trick, while the next deal is young."""
    if page.deal_text is None or page.deal_trick is None:
        return None
    result = page.match.deal_results[-1]
    heading, *lines = plain(page.deal_text).splitlines()
    seat, t = page.seat, page.t
    return {
        "number": result.number,
        # "How did I play?": for a player who played the deal
        "coach": seat is not None and coach.played(page.match, seat, result.number),
        # its replay: for the table's players, and for the group once the match is over
        "replay": replay_label(t) if seat is not None or view.match_over else None,
        "heading": heading,
        "lines": lines,
        # its trumps are the finished deal's
        "trick": _trick(replace(view, trump=result.trump), page.deal_trick),
    }


def seat_state(page: SeatPage, *, now: float | None = None) -> dict[str, Any]:
    """The page's whole state for one seat, or the public one for a spectator."""
    t, table, seat = page.t, page.table, page.seat
    view = page.match.view(seat)
    legal = list(view.legal)
    away = table.seats[seat].away if seat is not None else False
    return {
        "table": table.id,
        "version": table.version,
        "ply": page.match.ply,
        "status": str(table.status),
        "seat": seat,
        "spectator": page.spectator,
        "title": _title(page, view) + " · " + page.chat_title,
        "chat": page.chat_title,
        **_deal(page, view),
        "hand": _hand(view, legal),
        "actions": [_action(t, a) for a in legal],
        "away": away,
        "seats": _seats(page, view),
        "sides": _sides(page, view),
        "standings_text": plain(standings_line(t, view, page.seats, page.match.options)),
        "to_move": view.to_move,
        "my_turn": seat is not None and view.to_move == seat and not away,
        "prompt": plain(hand_prompt(t, view, legal)) if seat is not None else "",
        "phase_text": plain(phase_line(t, view, page.seats)),
        "trick": _trick(view, view.trick),
        "last_trick": _trick(view, view.last_trick),
        "timer": _timer(page, view, now),
        "deal_end": _deal_end(page, view),
        "match_text": plain(page.match_text) if page.match_text else None,
        "match_over": view.match_over,
        "closed_text": (
            "✖️ " + t._("The table was cancelled.")
            if table.status == TableStatus.CANCELLED
            else None
        ),
    }


def _title(page: SeatPage, view: SeatView) -> str:
    """The game's name, its house rules and what a deal after eggs counts."""
    t = page.t
    rules = house_rules.brief(t, page.match.options)
    info = plain(variant_name(t, get_variant(view.variant)))
    if rules:
        info += f" · {house_rules.MARK} {rules}"
    if view.multiplier > 1 and not view.match_over:  # a deal after eggs counts more
        info += f" · ✖️{view.multiplier}"
    return info


def _deal(page: SeatPage, view: SeatView) -> dict[str, Any]:
    """The deal's number, the score a side goes out at, the trump and the stock."""
    t = page.t
    shown = view.trump_card is not None and not view.trump_card_drawn
    return {
        "deal": view.deal_number,
        "deal_text": t._("deal {n}", n=view.deal_number),
        "out_at": house_rules.goat_total(get_variant(view.variant), page.match.options),
        "trump": view.trump.symbol if view.trump is not None else None,
        "trump_card": str(view.trump_card) if shown else None,
        "stock": view.stock,
        "trump_text": plain(trump_stock_line(t, view)),
    }


def _hand(view: SeatView, legal: list[Action]) -> list[dict[str, Any]]:
    """``beats``: the card can beat the trick (the answer's prompt calls such cards green,
    as the hand message's buttons are)."""
    playable = {c for a in legal if not a.verb.is_special for c in a.cards}
    beaters = {c for a in legal if a.verb is Verb.BEAT for c in a.cards}
    return [
        {
            "card": str(c),
            "trump": is_trump(view, c),
            "playable": c in playable,
            "beats": c in beaters,
        }
        for c in view.hand
    ]


def _timer(page: SeatPage, view: SeatView, now: float | None) -> float | None:
    """Seconds left on the turn timer of the seat to move."""
    if view.to_move is None:
        return None
    deadline = page.table.seats[view.to_move].deadline
    if deadline is None:
        return None
    now = time.time() if now is None else now
    return max(0.0, round(deadline - now, 1))
