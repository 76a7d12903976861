"""What a finished match says about each person in it, and its most striking moment: pure
functions of the engine's facts (its deal results, its result and its actions), for the
achievements and the match result's "moment" line."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from kozel_rules.action import Action, Verb
from kozel_rules.match import Match
from kozel_rules.result import DealResult

from ..storage import TableRecord


def goat_at(match: Match) -> int:
    """The defeat points that make a side the goat: the match's house rule ``goat_at``."""
    return match.goat_at


@dataclass(frozen=True)
class SeatFacts:
    """One person's share of a finished match: their side's facts, and their own plays."""

    user_id: int
    seat: int
    won: bool
    goat: bool
    goat_with_eggs: bool
    """The goat of a match in which eggs fell."""
    defeat_points: int
    eggs: int
    """Deals their side ended 60 to 60."""
    queens: int
    """Queens of clubs their own seven caught."""
    molodkas: int
    moscows: int
    clean_deals: int
    """Deals their side won while every other side in the deal took no trick."""
    comeback: bool
    """Won the match after their side stood at ``goat_at - 2`` or more."""
    partner: int | None
    """Their partner (a person) in a four-player match of two sides."""


def seat_facts(table: TableRecord, match: Match) -> list[SeatFacts]:
    """The facts of every person's seat (a computer's seat earns nothing)."""
    result = match.result
    assert result is not None
    deals = match.deal_results
    specials = _specials(match)
    peak = _peaks(match)
    facts = []
    for record in table.seats:
        user_id = record.person_id
        if user_id is None:
            continue
        seat = record.seat
        side = match.side_of(seat)
        won = side in result.winners
        facts.append(
            SeatFacts(
                user_id=user_id,
                seat=seat,
                won=won,
                goat=side in result.goats,
                goat_with_eggs=result.goat_with_eggs and side in result.goats,
                defeat_points=result.defeat_points[side],
                eggs=sum(1 for d in deals if d.eggs and d.card_points[side] == 60),
                queens=sum(1 for d in deals if _caught_by(d) == seat),
                molodkas=specials.get((seat, Verb.MOLODKA), 0),
                moscows=specials.get((seat, Verb.MOSCOW), 0),
                clean_deals=sum(1 for d in deals if _clean(d, side, _out_before(deals, d))),
                comeback=won and peak[side] >= goat_at(match) - 2,
                partner=_partner(table, match, seat),
            )
        )
    return facts


def _caught_by(deal: DealResult) -> int | None:
    """The seat whose seven caught the queen of clubs in the deal."""
    if deal.queen_caught and deal.queen_seats is not None:
        return deal.queen_seats[1]
    return None


def _clean(deal: DealResult, side: int, out: set[int]) -> bool:
    if deal.queen_caught or deal.defeat_points[side] > 0 or not any(deal.defeat_points):
        return False
    others = [s for s in range(len(deal.tricks)) if s != side and s not in out]
    return bool(others) and all(deal.tricks[s] == 0 for s in others)


def _out_before(deals: list[DealResult], deal: DealResult) -> set[int]:
    out: set[int] = set()
    for earlier in deals:
        if earlier.number >= deal.number:
            break
        out.update(earlier.out)
    return out


def _peaks(match: Match) -> list[int]:
    """Each side's highest defeat points before it went out or the match ended."""
    totals = [0] * match.sides
    peak = [0] * match.sides
    for deal in match.deal_results:
        totals = [a + b for a, b in zip(totals, deal.defeat_points, strict=True)]
        peak = [max(p, t) for p, t in zip(peak, totals, strict=True)]
    return peak


def _specials(match: Match) -> dict[tuple[int, Verb], int]:
    counts: dict[tuple[int, Verb], int] = {}
    for text in match.history:
        action = Action.parse(text)
        if action.verb.is_special:
            key = (action.seat, action.verb)
            counts[key] = counts.get(key, 0) + 1
    return counts


def _partner(table: TableRecord, match: Match, seat: int) -> int | None:
    if match.players != 4 or match.sides != 2:
        return None
    side = match.side_of(seat)
    for other in match.seats_of(side):
        if other != seat:
            return table.seats[other].person_id
    return None


# ------------------------------------------------------------------ the moment


class MomentKind(StrEnum):
    COMEBACK = "comeback"
    QUEEN = "queen"
    MOSCOW = "moscow"
    MOLODKA = "molodka"
    EGGS = "eggs"
    BIG_DEAL = "big_deal"


@dataclass(frozen=True)
class Moment:
    """The match's most striking moment, from the strongest kind down."""

    kind: MomentKind
    deal: int | None = None
    seat: int | None = None
    """Who: the seven that caught the queen, the declarer of a special lead."""
    other: int | None = None
    """The queen's owner."""
    side: int | None = None
    """The side of a comeback, or the side a big deal cost."""
    points: int = 0
    """A comeback's peak, a big deal's defeat points."""


def moment(match: Match) -> Moment | None:
    """A comeback beats a caught queen beats a Moscow beats a molodka beats eggs beats the
    deal that cost most."""
    result = match.result
    deals = match.deal_results
    if result is None or not deals:
        return None
    peak = _peaks(match)
    for side in result.winners:
        if peak[side] >= goat_at(match) - 2:
            return Moment(MomentKind.COMEBACK, side=side, points=peak[side])
    for deal in deals:
        if deal.queen_caught and deal.queen_seats is not None:
            queen, seven = deal.queen_seats
            return Moment(MomentKind.QUEEN, deal=deal.number, seat=seven, other=queen)
    for verb, kind in ((Verb.MOSCOW, MomentKind.MOSCOW), (Verb.MOLODKA, MomentKind.MOLODKA)):
        for text in match.history:
            action = Action.parse(text)
            if action.verb is verb:
                return Moment(kind, seat=action.seat)
    for deal in deals:
        if deal.eggs:
            return Moment(MomentKind.EGGS, deal=deal.number)
    biggest = max(deals, key=lambda d: (max(d.defeat_points), -d.number))
    points = max(biggest.defeat_points)
    if points == 0:
        return None
    side = biggest.defeat_points.index(points)
    return Moment(MomentKind.BIG_DEAL, deal=biggest.number, side=side, points=points)
