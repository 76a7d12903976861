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
from . import achievements, feed, match_facts
from .people import seat_infos


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
        by_person: dict[int, list[str]] = {}
        for user_id, name in awards:
            by_person.setdefault(user_id, []).append(name)
        line = awards_line(
            self.t, [(self.names[user_id], earned) for user_id, earned in by_person.items()]
        )
        if line is None:
            return Awarding(awards, self.owe)
        plain = feed.result_text(self.t, self.match, self.seats)
        text = feed.result_text(self.t, self.match, self.seats, awards=line)
        owe = [
            replace(o, text=text) if o.kind is OutboxKind.POST and o.text == plain else o
            for o in self.owe
        ]
        return Awarding(awards, owe)


def awarder(t: Translator, table: TableRecord, match: Match, owe: Sequence[Owed]) -> MatchAwarder:
    facts = match_facts.seat_facts(table, match)
    names = {f.user_id: table.seats[f.seat].name for f in facts}
    return MatchAwarder(t, match, seat_infos(table, t), facts, names, owe)
