"""The loaded-match cache: a use case gets a private copy, a finished table is dropped, and
a stored state it has not seen is loaded anew."""

from __future__ import annotations

import pytest

from bot.service.match_cache import MatchCache
from bot.storage import TableRecord, TableStatus
from kozel_rules.match import Match


def playing(match: Match, table_id: int = 1) -> TableRecord:
    return TableRecord(
        table_id, -100, TableStatus.PLAYING, "street", 1, 7, match_state=match.to_json()
    )


def fresh_match() -> Match:
    return Match.new("street", players=4, seed=7)


def test_a_caller_changes_its_copy_never_the_cached_match() -> None:
    cache = MatchCache()
    table = playing(fresh_match())
    mine = cache.of(table)
    mine.apply(mine.legal_actions()[0])
    assert cache.of(table).to_json() == table.match_state
    assert cache.of(table) is not cache.of(table)


def test_a_kept_match_is_a_copy_of_what_was_saved() -> None:
    cache = MatchCache()
    match = fresh_match()
    table = playing(match)
    cache.keep(table, match)
    match.apply(match.legal_actions()[0])  # the caller plays on: the kept one does not
    assert cache.of(table).to_json() == table.match_state


def test_the_same_state_is_replayed_once_a_new_one_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loads: list[int] = []
    real = Match.from_json

    def counted(state: dict[str, object]) -> Match:
        loads.append(1)
        return real(state)

    monkeypatch.setattr(Match, "from_json", staticmethod(counted))
    cache = MatchCache()
    match = fresh_match()
    table = playing(match)
    cache.of(table)
    cache.of(table)
    assert len(loads) == 1
    match.apply(match.legal_actions()[0])
    moved = playing(match)  # another worker saved a move: the stored state changed
    assert cache.of(moved).ply == 1 and len(loads) == 2


def test_a_finished_table_is_dropped() -> None:
    cache = MatchCache()
    match = fresh_match()
    table = playing(match)
    cache.keep(table, match)
    assert len(cache) == 1
    table.status = TableStatus.FINISHED
    cache.keep(table, match)
    assert len(cache) == 0


def test_only_the_newest_matches_are_kept() -> None:
    cache = MatchCache(size=2)
    for table_id in (1, 2, 3):
        cache.of(playing(fresh_match(), table_id))
    assert len(cache) == 2
