"""What the group reads when a deal or the match ends."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kozel_rules.options import Options
from kozel_rules.result import DealResult, MatchResult
from kozel_rules.variant import get_variant
from kozel_rules.view import SeatView, TrickView

from ..i18n import Translator
from .house_rules import goat_total, header_line
from .labels import SeatInfo, and_list, people_count, side_name
from .table import last_trick_line

MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


def deal_result_text(
    t: Translator,
    *,
    result: DealResult,
    view: SeatView,
    seats: Sequence[SeatInfo],
    totals: Sequence[int],
    sides_in: Sequence[int],
    options: Options | None = None,
) -> str:
    """``view``: the match's public view (its variant and sides). ``sides_in``: the sides
    that played this deal (3-player eliminations drop sides). The deal's last trick and who
    took it, and who caught the queen of clubs, come with the result."""
    out_at = goat_total(get_variant(view.variant), options)

    def side(number: int) -> str:
        return side_name(seats, view.sides, number, t)

    lines = ["🏁 <b>" + t._("Deal {n} is over", n=result.number) + "</b>"]
    if len(result.trick_seats) > 1:
        # Every taker of the deal: the table's last edits before the end may never have been
        # shown (group edits are spaced out under Telegram's limits).
        names = " · ".join(seats[seat].label for seat in result.trick_seats)
        lines.append(t._("Tricks in order: {names}", names=names))
    taker = result.last_trick_seat
    if result.last_trick and taker is not None:
        last = TrickView(taker, taker, result.last_trick, None, taker)
        lines.append(last_trick_line(t, last, seats))
    if result.queen_caught and result.queen_side is not None:
        lines.append("👑 " + _queen_text(t, result, result.queen_side, seats, side))
    else:
        lines.extend(_points_lines(t, result, sides_in, side))
    lines.extend(_eggs_lines(t, result))
    parts = [
        f"{side_name(seats, view.sides, s, t, notes=False)} {p}/{out_at}"
        for s, p in enumerate(totals)
    ]
    lines.append("🐐 " + t._("Defeat points: {list}", list=" · ".join(parts)))
    if result.out:
        names = and_list(t, [side(number) for number in result.out])
        people = people_count(view.sides, result.out)
        # TRANSLATORS: {names} is one player, two partners, or two players out at once; the
        # form follows how many people that is.
        out = t.n_(
            "{names} is out of the match.", "{names} are out of the match.", people, names=names
        )
        lines.append("❌ " + out)
    return "\n".join(lines)


def _queen_text(
    t: Translator,
    result: DealResult,
    queen_side: int,
    seats: Sequence[SeatInfo],
    side: Callable[[int], str],
) -> str:
    """The queen of clubs caught by the seven: who caught whose, and the side's award."""
    award = result.defeat_points[queen_side]
    if result.queen_seats is not None:
        queen, seven = result.queen_seats
        return t._(
            "{catcher} caught {owner}'s queen of clubs with the seven! "
            "Defeat points for {side}: +{n}.",
            catcher=seats[seven].label,
            owner=seats[queen].label,
            side=side(queen_side),
            n=award,
        )
    return t._(
        "The queen of clubs was caught by the seven! Defeat points for {side}: +{n}.",
        side=side(queen_side),
        n=award,
    )


def _points_lines(
    t: Translator, result: DealResult, sides_in: Sequence[int], side: Callable[[int], str]
) -> list[str]:
    """One line per side that played the deal: card points, tricks and any award."""
    lines = []
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
    return lines


def _eggs_lines(t: Translator, result: DealResult) -> list[str]:
    """Eggs (60 to 60) in this deal, or the eggs before it that multiplied its points."""
    if result.multiplier > 1 and not result.eggs:
        # TRANSLATORS: {n} is 2, 4, 8...: the eggs before this deal multiplied its points.
        return ["✖️ " + t._("After the eggs this deal counted ×{n}.", n=result.multiplier)]
    if result.eggs and result.next_multiplier > 1:
        if result.next_multiplier == 2:
            return ["🥚 " + t._("Eggs! 60 to 60 — the next deal counts double.")]
        return [
            "🥚 "
            + t._(
                "Eggs! 60 to 60 — the next deal counts ×{n}.",
                n=result.next_multiplier,
            )
        ]
    if result.eggs:
        return ["🥚 " + t._("Eggs! 60 to 60.")]
    return []


def match_result_text(
    t: Translator,
    *,
    result: MatchResult,
    view: SeatView,
    seats: Sequence[SeatInfo],
    options: Options | None = None,
    moment: str | None = None,
    awards: str | None = None,
) -> str:
    """``view``: the match's public view (its sides); ``options``: its house rules, named.
    ``moment`` and ``awards``: a line each, the match's most striking moment and the
    achievements it earned (no message of their own)."""

    def side(number: int) -> str:
        return side_name(seats, view.sides, number, t, over=True)

    def names(sides: Sequence[int]) -> str:
        return and_list(t, [side(s) for s in sides])

    winners = people_count(view.sides, result.winners)
    goats = people_count(view.sides, result.goats)
    lines = ["🏆 <b>" + t._("The match is over!") + "</b>"]
    if len(result.places) > 2:
        # Every player for themselves: the placings, the last one in first.
        for number in sorted(range(len(result.places)), key=lambda s: (result.places[s], s)):
            place = result.places[number]
            mark = "🐐" if number in result.goats else MEDALS.get(place, f"{place}.")
            points = result.defeat_points[number]
            lines.append(
                f"{mark} {place}. "
                + t.n_(
                    "{name}: {n} defeat point",
                    "{name}: {n} defeat points",
                    points,
                    name=side(number),
                )
            )
    else:
        lines.append(
            t.n_("Winner: {names}", "Winners: {names}", winners, names=names(result.winners))
        )
    lines.append(
        "🐐 " + t.n_("The goat: {names}", "The goats: {names}", goats, names=names(result.goats))
    )
    if result.goat_with_eggs:
        lines.append("🥚 " + t.n_("…and a goat with eggs!", "…and goats with eggs!", goats))
    played = t.n_("{n} deal played.", "{n} deals played.", result.deals)
    if len(result.places) > 2:
        lines.append(played)
    else:
        parts = [
            f"{side_name(seats, view.sides, s, t, notes=False)} {p}"
            for s, p in enumerate(result.defeat_points)
        ]
        lines.append(played + " " + t._("Defeat points: {list}", list=" · ".join(parts)))
    rules = header_line(t, options) if options is not None else ""
    if rules:
        lines.append(rules)
    lines += [line for line in (moment, awards) if line]
    lines.append(t._("Play again with /newgame · the ladder: /top"))
    return "\n".join(lines)
