"""The Mini App's match result reads as the group's: its moment and its 🏅 line too."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from service_fakes import GROUP, PEOPLE, FakeMessenger, reload, seat_four, settle
from test_api import Members, get_state, play_moves

from bot.screen import plain
from bot.service.core import Core
from bot.web.mini_app import MiniApp

TOKEN = "42:TEST-TOKEN"


@pytest.fixture
async def client(core: Core) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    app = web.Application()
    mini_app = MiniApp(core, TOKEN, members=Members())
    app.add_routes(mini_app.routes())
    async with TestClient(TestServer(app)) as client:
        yield client
        await mini_app.close()


async def test_the_match_result_has_the_groups_moment_and_medals(
    core: Core, client: TestClient[web.Request, web.Application], messenger: FakeMessenger
) -> None:
    table = await seat_four(core)
    for _ in range(2000):
        if core.matches.of(table).is_over:
            break
        table = await play_moves(core, table, 1, face_down=True)
    table = await reload(core, table)
    assert core.matches.of(table).is_over
    await settle(core)
    group = [
        plain(m.screen.text)
        for m in messenger.messages.values()
        if m.chat_id == GROUP.chat_id and "The match is over!" in m.screen.text
    ]
    assert len(group) == 1
    medals = [line for line in group[0].splitlines() if line.startswith("🏅")]
    assert len(medals) == 1
    assert all(f"{p.first_name}: First match" in medals[0] for p in PEOPLE)
    for person in PEOPLE:
        state = (await get_state(client, table, person.user_id))["state"]
        assert state["match_text"] == group[0]
        assert "\n✨ Moment of the match: " in state["match_text"]
