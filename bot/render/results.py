"""What the group reads when a deal or the match ends."""

from __future__ import annotations

from collections.abc import Sequence

from kozel_rules.result import DealResult, MatchResult
from kozel_rules.variant import get_variant
from kozel_rules.view import SeatView

from ..i18n import Translator
from .labels import SeatInfo, side_name


def deal_result_text(
    t: Translator,
    *,
    result: DealResult,
    view: SeatView,
    seats: Sequence[SeatInfo],
    totals: Sequence[int],
    sides_in: Sequence[int],
) -> str:
    """``view``: the match's public view (its variant and sides). ``sides_in``: the sides
    that played this deal (3-player eliminations drop sides)."""
    out_at = get_variant(view.variant).out_at

    def side(number: int) -> str:
        return side_name(seats, view.sides, number, t)

    lines = ["🏁 <b>" + t._("Deal {n} is over", n=result.number) + "</b>"]
    if result.queen_caught and result.queen_side is not None:
        lines.append(
            "👑 "
            + t._(
                "The queen of clubs was caught by the seven! Defeat points for {side}: +{n}.",
                side=side(result.queen_side),
                n=result.defeat_points[result.queen_side],
            )
        )
    else:
        for number, points in enumerate(result.card_points):
            if number not in sides_in:
                continue
            award = result.defeat_points[number]
            lines.append(
                t.n_("{side}: {n} card point", "{side}: {n} card points", points, side=side(number))
                + " · "
                + t.n_("{n} trick", "{n} tricks", result.tricks[number])
                + (" · " + t.n_("+{n} defeat point", "+{n} defeat points", award) if award else "")
            )
    if result.eggs:
        lines.append("🥚 " + t._("Eggs! 60 to 60."))
    parts = [f"{side(s)} {p}/{out_at}" for s, p in enumerate(totals)]
    lines.append("🐐 " + t._("Defeat points: {list}", list=" · ".join(parts)))
    for number in result.out:
        # TRANSLATORS: {n} is the number of defeat points that puts a side out (12); {side}
        # is a player, or two partners joined with "&".
        text = t.n_(
            "Out of the match at {n} defeat point: {side}.",
            "Out of the match at {n} defeat points: {side}.",
            out_at,
            side=side(number),
        )
        lines.append("❌ " + text)
    return "\n".join(lines)


def match_result_text(
    t: Translator, *, result: MatchResult, view: SeatView, seats: Sequence[SeatInfo]
) -> str:
    """``view``: the match's public view (its sides)."""

    def side(number: int) -> str:
        return side_name(seats, view.sides, number, t, over=True)

    lines = [
        "🏆 <b>" + t._("The match is over!") + "</b>",
        t._("Winners: {names}", names=", ".join(side(s) for s in result.winners)),
        "🐐 " + t._("The goat: {names}", names=side(result.goat)),
    ]
    if result.goat_with_eggs:
        lines.append("🥚 " + t._("…and a goat with eggs!"))
    parts = [f"{side(s)} {p}" for s, p in enumerate(result.defeat_points)]
    lines.append(
        t.n_("{n} deal played.", "{n} deals played.", result.deals)
        + " "
        + t._("Defeat points: {list}", list=" · ".join(parts))
    )
    lines.append(t._("Play again with /newgame · the ladder: /top"))
    return "\n".join(lines)
