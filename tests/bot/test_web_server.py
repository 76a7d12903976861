"""The shared web server: /healthz follows the health callable; routes added before start."""

from __future__ import annotations

import aiohttp
from aiohttp import web

from bot.web.server import WebServer


async def _get(port: int, path: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, await response.text()


async def test_healthz_answers_200_when_healthy_and_503_when_not() -> None:
    state = {"healthy": True}

    async def health() -> bool:
        return state["healthy"]

    server = WebServer("127.0.0.1", 0, health=health)
    await server.start()
    try:
        assert (await _get(server.bound_port, "/healthz"))[0] == 200
        state["healthy"] = False
        assert (await _get(server.bound_port, "/healthz"))[0] == 503
    finally:
        await server.stop()


async def test_healthz_is_503_when_the_check_raises() -> None:
    async def health() -> bool:
        raise OSError("database is gone")

    server = WebServer("127.0.0.1", 0, health=health)
    await server.start()
    try:
        assert (await _get(server.bound_port, "/healthz"))[0] == 503
    finally:
        await server.stop()


async def test_added_routes_are_served() -> None:
    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="hello")

    async def health() -> bool:
        return True

    server = WebServer("127.0.0.1", 0, health=health)
    server.add_routes([web.get("/hello", hello)])
    await server.start()
    try:
        assert await _get(server.bound_port, "/hello") == (200, "hello")
        assert (await _get(server.bound_port, "/nothing"))[0] == 404
    finally:
        await server.stop()
