"""Kozel's achievements: what each is and when a match earns it, as pure functions of a
person's facts in the match and their past in the chat. The ids are stored in the database:
never change one that has shipped (their names and "how"s are in ``render.achievements``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..storage import PlayerPast
from .match_facts import SeatFacts

Test = Callable[[SeatFacts, PlayerPast], bool]


@dataclass(frozen=True)
class Achievement:
    id: str
    earned: Test


def _streak(past: PlayerPast, length: int, good: Callable[[bool, bool], bool]) -> bool:
    """The ``length - 1`` matches before this one were all good."""
    before = past.recent[: length - 1]
    return len(before) == length - 1 and all(good(won, goat) for won, goat in before)


def _matches(n: int) -> Test:
    return lambda f, p: p.matches + 1 >= n


ACHIEVEMENTS: tuple[Achievement, ...] = (
    Achievement("first_match", lambda f, p: p.matches == 0),
    Achievement("first_win", lambda f, p: f.won and p.wins == 0),
    Achievement("dry_win", lambda f, p: f.won and f.defeat_points == 0),
    Achievement("comeback", lambda f, p: f.comeback),
    Achievement("wins_3", lambda f, p: f.won and _streak(p, 3, lambda won, goat: won)),
    Achievement("wins_5", lambda f, p: f.won and _streak(p, 5, lambda won, goat: won)),
    Achievement("wins_10", lambda f, p: f.won and p.wins + 1 >= 10),
    Achievement(
        "no_goat_10",
        lambda f, p: not f.goat and _streak(p, 10, lambda won, goat: not goat),
    ),
    Achievement("goat_5", lambda f, p: f.goat and p.goats + 1 >= 5),
    Achievement("goat_eggs", lambda f, p: f.goat_with_eggs),
    Achievement("eggs", lambda f, p: f.eggs > 0),
    Achievement("queen", lambda f, p: f.queens > 0),
    Achievement("two_queens", lambda f, p: f.queens >= 2),
    Achievement("molodka", lambda f, p: f.molodkas > 0),
    Achievement("moscow", lambda f, p: f.moscows > 0),
    Achievement("clean_deal", lambda f, p: f.clean_deals > 0),
    Achievement("matches_10", _matches(10)),
    Achievement("matches_50", _matches(50)),
    Achievement("matches_100", _matches(100)),
    Achievement(
        "partner_10",
        lambda f, p: f.partner is not None and p.partners.get(f.partner, 0) + 1 >= 10,
    ),
)

BY_ID: dict[str, Achievement] = {a.id: a for a in ACHIEVEMENTS}


def earned(facts: SeatFacts, past: PlayerPast) -> list[str]:
    """The achievements the match earns the person (those they hold already left out), in
    the order of ``ACHIEVEMENTS``."""
    return [a.id for a in ACHIEVEMENTS if a.id not in past.earned and a.earned(facts, past)]


def award_all(facts: Sequence[SeatFacts], pasts: Mapping[int, PlayerPast]) -> list[tuple[int, str]]:
    """(user id, achievement) of everybody in the match, in seat order."""
    awards: list[tuple[int, str]] = []
    for seat in facts:
        for name in earned(seat, pasts.get(seat.user_id, PlayerPast())):
            awards.append((seat.user_id, name))
    return awards
