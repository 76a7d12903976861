"""Being "watched" takes a page that shows signs of life: a frozen page (it stopped reading,
its connection half open) must not keep the player from their turn notices, and a stream ends
when the ``initData`` it was opened with expires."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from initdata import telegram_init_data
from service_fakes import PEOPLE, FakeMessenger, make_core, seat_four

from bot.service import live
from bot.service.core import Core
from bot.storage import SqliteStorage
from bot.web import auth as web_auth
from bot.web import mini_app
from bot.web.mini_app import HEADER, MiniApp

TOKEN = "42:TEST-TOKEN"


@pytest.fixture
def core(storage: SqliteStorage, messenger: FakeMessenger) -> Core:
    core = make_core(storage, messenger)
    core.settings = dataclasses.replace(core.settings, public_url="https://kozel.example")
    return core


@pytest.fixture
async def client(core: Core) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    app = web.Application()
    page = MiniApp(core, TOKEN)
    app.add_routes(page.routes())
    async with TestClient(TestServer(app)) as client:
        yield client
        await page.close()


def auth(user_id: int, **kwargs: Any) -> dict[str, str]:
    return {mini_app.HEADER: telegram_init_data(TOKEN, user_id, **kwargs)}


async def test_a_page_that_stops_showing_signs_of_life_is_no_longer_watching(
    core: Core, client: TestClient[web.Request, web.Application], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "FRESH", 0.5)
    table = await seat_four(core)
    anna = PEOPLE[0].user_id
    params = {"table": table.id}
    stream = await client.get("/api/events", params=params, headers=auth(anna))
    assert stream.status == 200
    assert core.live.is_watched(table.id, 0)
    # The page froze: its connection is open, nothing reads it, no heartbeat comes.
    await asyncio.sleep(0.7)
    assert not core.live.is_watched(table.id, 0)
    # Its heartbeat says it is there again.
    alive = await client.post("/api/alive", params=params, headers=auth(anna))
    assert alive.status == 204
    assert core.live.is_watched(table.id, 0) and not core.live.is_watched(table.id, 1)
    # Somebody else's heartbeat makes nobody else watched.
    other = await client.post("/api/alive", params=params, headers=auth(PEOPLE[1].user_id))
    assert other.status == 204 and not core.live.is_watched(table.id, 1)
    forged = {HEADER: telegram_init_data("43:OTHER", anna)}
    assert (await client.post("/api/alive", params=params, headers=forged)).status == 401
    stream.close()


async def test_a_stream_ends_when_its_init_data_expires(
    core: Core, client: TestClient[web.Request, web.Application], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mini_app, "RECHECK", 0.2)
    table = await seat_four(core)
    anna = PEOPLE[0].user_id
    # Signed almost an hour ago: good for two more seconds.
    old = auth(anna, auth_date=time.time() - web_auth.MAX_AGE + 2)
    stream = await client.get("/api/events", params={"table": table.id}, headers=old)
    assert stream.status == 200
    started = time.monotonic()
    rest = await asyncio.wait_for(stream.content.read(), 10)  # returns once the stream is over
    assert b"state" in rest
    assert time.monotonic() - started < 5
    assert not core.live.is_watched(table.id, 0)


async def test_a_forged_hash_of_any_characters_gets_401_not_an_error(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    table = await seat_four(core)
    raw = telegram_init_data(TOKEN, PEOPLE[0].user_id)
    forged = raw.split("hash=")[0] + "hash=" + quote("é" * 64)
    for path in ("/api/state", "/api/events"):
        response = await client.get(path, params={"table": table.id}, headers={HEADER: forged})
        assert response.status == 401, path
