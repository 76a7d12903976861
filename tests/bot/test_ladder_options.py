"""A match played with house rules on the ladder: rated as any other, named in /history and
counted apart in /stats."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from ladder_fixtures import teams
from test_ladder_service import CLUB, OTHER, Quiet, person, plain

from bot.service import ladder
from bot.service.core import Core
from bot.service.ladder import StatsTarget
from bot.service.running_settings import Settings
from bot.storage import SqliteStorage


@pytest.fixture
async def ladder_core(tmp_path: Path) -> AsyncIterator[Core]:
    storage = await SqliteStorage.open(str(tmp_path / "kozel.sqlite3"))
    quiet = Quiet()
    yield Core(storage, quiet, quiet, Settings())
    await storage.close()


async def test_a_match_with_options_is_rated_as_any_and_named_in_history(ladder_core: Core) -> None:
    core = ladder_core
    plain_match = teams(1, OTHER.chat_id, [1, 2], [3, 4])
    ruled = teams(2, CLUB.chat_id, [1, 2], [3, 4])
    ruled.options = {"goat_at": 6, "eggs": "double"}
    await ladder.record(core, plain_match)
    await ladder.record(core, ruled)

    history = plain(await ladder.history(core, CLUB, person(1), []))
    assert "Street Kozel · 4 deals · ⚙️ match to 6 · eggs double the next deal" in history
    other = plain(await ladder.history(core, OTHER, person(1), []))
    assert "⚙️" not in other and "Street Kozel · 4 deals" in other

    # The same result in two chats, one with house rules: the same rating, the same counts.
    here = plain(await ladder.stats(core, CLUB, person(1), StatsTarget()))
    there = plain(await ladder.stats(core, OTHER, person(1), StatsTarget()))
    rating = [line for line in here.splitlines() if "rating" in line]
    assert rating and rating == [line for line in there.splitlines() if "rating" in line]
    assert "Last match: 1000 → 1097 (+97)" in here  # rated: a win moved it up
    assert "⚙️ 1 of them with house rules." in here
    assert "house rules" not in there
