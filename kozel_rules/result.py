"""Outcomes as data. Lists indexed by side keep their length (0 for a side that is out)."""

from __future__ import annotations

from dataclasses import dataclass

from .card import Suit


@dataclass(frozen=True)
class DealResult:
    number: int  # 1-based deal number in the match
    dealer: int
    trump: Suit | None  # None in ziege
    first_leader: int
    tricks: tuple[int, ...]  # per side, tricks completed
    card_points: tuple[int, ...]  # per side; all 0 when the queen was caught
    defeat_points: tuple[int, ...]  # per side: this deal's award
    eggs: bool  # two sides played the deal and both have 60
    queen_caught: bool
    queen_side: int | None  # ziege: the side that played the caught Q♣
    last_trick_seat: int | None
    out: tuple[int, ...]  # sides that went out after this deal


@dataclass(frozen=True)
class MatchResult:
    defeat_points: tuple[int, ...]  # per side, final totals
    winners: tuple[int, ...]  # sides still in at the end (one side)
    losers: tuple[int, ...]  # sides that went out, in the order they went out
    goat: int  # the side that lost the last: with two sides the loser; with 3 the last one out
    goat_with_eggs: bool  # eggs fell in this match (RULES.md: "the goat with eggs")
    deals: int
