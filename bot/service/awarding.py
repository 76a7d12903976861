"""The awarder a finished match's save hands the storage: inside the transaction that records
the match it learns each person's past, names what they earned, and puts that in the match
result's one 🏅 line (no message of its own)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from kozel_rules.match import Match

from ..i18n import Translator
from ..render.achievements import awards_line
from ..render.labels import SeatInfo
from ..storage import Awarding, OutboxKind, Owed, PlayerPast, TableRecord
from . import achievements, match_facts, match_feed
from .seat_lookup import seat_infos


@dataclass
class MatchAwarder:
    """``Awarder``: the facts of the match, and the owed rows whose result post it rewrites."""

    t: Translator
    match: Match
    seats: list[SeatInfo]
    facts: list[match_facts.SeatFacts]
    names: dict[int, str]
    owe: Sequence[Owed]

    def __call__(self, match_id: int, pasts: Mapping[int, PlayerPast]) -> Awarding:
        awards = achievements.award_all(self.facts, pasts)
        line = medal_line(self.t, self.names, awards)
        if line is None:
            return Awarding(awards, self.owe)
        plain = match_feed.result_text(self.t, self.match, self.seats)
        text = match_feed.result_text(self.t, self.match, self.seats, awards=line)
        owe = [
            replace(o, text=text) if o.kind is OutboxKind.POST and o.text == plain else o
            for o in self.owe
        ]
        return Awarding(awards, owe)


def medal_line(
    t: Translator, names: Mapping[int, str], awards: Sequence[tuple[int, str]]
) -> str | None:
    """The result's one 🏅 line: each person (in ``names``' order) with what they earned, in
    the order of ``ACHIEVEMENTS``."""
    order = {a.id: i for i, a in enumerate(achievements.ACHIEVEMENTS)}
    by_person: dict[int, list[str]] = {user_id: [] for user_id in names}
    for user_id, name in awards:
        by_person.setdefault(user_id, []).append(name)
    return awards_line(
        t,
        [
            (names.get(user_id, ""), sorted(earned, key=lambda a: order.get(a, len(order))))
            for user_id, earned in by_person.items()
        ],
    )


def table_names(table: TableRecord) -> dict[int, str]:
    """Each person of the table by name, in seat order."""
    return {s.person_id: s.name for s in table.seats if s.person_id is not None}


def awarder(t: Translator, table: TableRecord, match: Match, owe: Sequence[Owed]) -> MatchAwarder:
    facts = match_facts.seat_facts(table, match)
    return MatchAwarder(t, match, seat_infos(table, t), facts, table_names(table), owe)
