"""A replay as the page gets it: every trick of a finished deal with all hands open, and
every text already translated (plain text: the page puts it in as text, never as markup)."""

from __future__ import annotations

from typing import Any

from kozel_rules.card import Card, Suit
from kozel_rules.variant import get_variant

from ..i18n import Translator
from ..render.coach import mark_lines
from ..render.labels import side_members
from ..render.rules_text import variant_name
from ..render.table import trump_stock_line
from ..service.replay import Mark, Play, ReplayPage, Trick
from .seat_json import plain


def _cards(cards: tuple[Card, ...], trump: Suit | None) -> list[dict[str, Any]]:
    return [{"card": str(c), "trump": c.suit == trump} for c in cards]


def _play(play: Play, trump: Suit | None) -> dict[str, Any]:
    return {
        "seat": play.seat,
        "verb": str(play.verb),
        "cards": _cards(play.cards, trump),
        "face_down": play.verb.is_face_down,
        "ply": play.ply,
    }


def _mark(t: Translator, mark: Mark, trick: int, *, team: bool) -> dict[str, Any]:
    lines = mark_lines(
        t,
        trick=trick,
        played=mark.played,
        better=mark.better,
        points_lost=mark.points_lost,
        mine=mark.chance_after,
        expert=mark.chance_before,
        team=team,
    )
    return {
        "ply": mark.ply,
        "seat_cards": [str(c) for c in mark.played.cards],
        "better": [str(c) for c in mark.better.cards],
        "text": " ".join(plain(line) for line in lines),
    }


def _trick(page: ReplayPage, trick: Trick, trump: Suit | None) -> dict[str, Any]:
    t = page.t
    mine = [m for m in page.marks if m.ply in trick.plies]
    names = [t._("You") if s == page.seat else info.name for s, info in enumerate(page.seats)]
    taker = None
    if trick.taker is not None:
        taker = t.n_(
            "Taken by {name}: {n} card point",
            "Taken by {name}: {n} card points",
            trick.points,
            name=names[trick.taker],
        )
    sides = side_list(page)
    points = " · ".join(
        f"{names_}: {p}" for names_, p in zip(sides, trick.card_points, strict=True)
    )
    return {
        "number": trick.number,
        "plays": [_play(p, trump) for p in trick.plays],
        "returned": [_play(p, trump) for p in trick.returned],
        "taker": trick.taker,
        "points": trick.points,
        "card_points": list(trick.card_points),
        "tricks": list(trick.tricks),
        "hands": [_cards(h, trump) for h in trick.hands],
        "stock": trick.stock,
        "trump_card": str(trick.trump_card) if trick.trump_card is not None else None,
        "marks": [_mark(t, m, trick.number, team=_has_partner(page)) for m in mine],
        "taker_text": taker,
        "stock_text": plain(trump_stock_line(t, trick.table)),
        "points_text": t._("Card points: {list}", list=points),
    }


def _has_partner(page: ReplayPage) -> bool:
    sides = page.replay.sides
    return page.seat is not None and list(sides).count(sides[page.seat]) > 1


def side_list(page: ReplayPage) -> list[str]:
    """Each side's players' names."""
    sides = page.replay.sides
    return [
        " & ".join(page.seats[s].name for s in side_members(sides, side))
        for side in range(max(sides) + 1)
    ]


def replay_state(page: ReplayPage) -> dict[str, Any]:
    """The page's whole replay of one deal."""
    t, replay = page.t, page.replay
    variant = get_variant(page.table.variant)
    trump = replay.trump
    sides = [
        {
            "names": names,
            "mine": page.seat is not None and replay.sides[page.seat] == side,
            "card_points": replay.result.card_points[side],
        }
        for side, names in enumerate(side_list(page))
    ]
    note = None
    if page.coached:
        note = "🎓 " + (
            t.n_(
                "The coach marked {n} play of yours in this deal.",
                "The coach marked {n} plays of yours in this deal.",
                len(page.marks),
            )
            if page.marks
            else t._(
                "No clear mistake: the expert would have played the same, or the difference "
                "was too small to matter."
            )
        )
    heading, *lines = plain(page.result_text).splitlines()
    return {
        "table": page.table.id,
        "deal": replay.deal,
        "deals": page.deals,
        "match_over": page.match_over,
        "seat": page.seat,
        "title": plain(variant_name(t, variant)) + " · " + page.chat_title,
        "heading": "▶️ " + t._("Replay of deal {n}", n=replay.deal),
        "trump": trump.symbol if trump is not None else None,
        "dealer": replay.dealer,
        "seats": [
            {
                "seat": s,
                "name": info.name,
                "me": s == page.seat,
                "side": replay.sides[s],
                "computer": info.ai_level is not None,
            }
            for s, info in enumerate(page.seats)
        ],
        "sides": sides,
        "tricks": [_trick(page, k, trump) for k in replay.tricks],
        "coached": page.coached,
        "coach_note": note,
        "result": {"heading": heading, "lines": lines},
    }
