"""The Docker HEALTHCHECK command asks /healthz when there is a web server, and only then."""

from __future__ import annotations

import asyncio

from fakebot.process import free_port

from bot.healthcheck import check
from bot.web.server import WebServer

BASE = {"KOZEL_BOT_TOKEN": "1:x", "KOZEL_PUBLIC_URL": "https://bot.example.org"}


async def test_it_follows_healthz() -> None:
    state = {"healthy": True}

    async def health() -> bool:
        return state["healthy"]

    server = WebServer("127.0.0.1", 0, health=health)
    await server.start()
    env = {**BASE, "KOZEL_LISTEN": f"127.0.0.1:{server.bound_port}"}
    try:
        assert await asyncio.to_thread(check, env) == 0
        state["healthy"] = False
        assert await asyncio.to_thread(check, env) == 1
    finally:
        await server.stop()


def test_nothing_listening_is_unhealthy() -> None:
    assert check({**BASE, "KOZEL_LISTEN": f"0.0.0.0:{free_port()}"}) == 1


def test_polling_without_a_web_server_has_nothing_to_ask() -> None:
    assert check({"KOZEL_BOT_TOKEN": "1:x"}) == 0
