"""The shared web server: /healthz follows the health callable; routes added before start."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from bot.web import server as server_module
from bot.web.server import WebServer


async def _get(port: int, path: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, await response.text()


@pytest.fixture
async def hello_server() -> AsyncIterator[WebServer]:
    """A healthy server with one added route, ``GET /hello``."""

    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="hello")

    async def health() -> bool:
        return True

    server = WebServer("127.0.0.1", 0, health=health)
    server.add_routes([web.get("/hello", hello)])
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


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


async def test_a_draining_server_says_unhealthy_and_still_serves_its_routes(
    hello_server: WebServer,
) -> None:
    """Before a stop, /healthz answers 503 for a while (a balancer takes the server out)
    while a request that still comes is answered as usual."""
    server = hello_server
    draining = asyncio.create_task(server.drain(0.5))
    await asyncio.sleep(0.1)
    assert await _get(server.bound_port, "/healthz") == (503, "stopping\n")
    assert await _get(server.bound_port, "/hello") == (200, "hello")
    assert not draining.done()  # it lasts the seconds asked for
    await asyncio.wait_for(draining, 2)


async def test_healthz_is_503_when_the_check_raises() -> None:
    async def health() -> bool:
        raise OSError("database is gone")

    server = WebServer("127.0.0.1", 0, health=health)
    await server.start()
    try:
        assert (await _get(server.bound_port, "/healthz"))[0] == 503
    finally:
        await server.stop()


async def test_added_routes_are_served(hello_server: WebServer) -> None:
    assert await _get(hello_server.bound_port, "/hello") == (200, "hello")
    assert (await _get(hello_server.bound_port, "/nothing"))[0] == 404


async def test_slow_and_idle_connections_are_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trickling requests and idle connections hold a descriptor each: they are closed after
    a while, so that many of them cannot exhaust the server."""
    monkeypatch.setattr(server_module, "IDLE_TIMEOUT", 1.0, raising=False)

    async def health() -> bool:
        return True

    server = WebServer("127.0.0.1", 0, health=health)
    await server.start()
    trickling: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    try:
        for number in range(40):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.bound_port)
            if number % 2:  # half of them send a request line and never finish it
                writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
                await writer.drain()
            trickling.append((reader, writer))
        await asyncio.sleep(0.2)
        for _, writer in trickling[1::2]:
            writer.write(b"X-Slow: a\r\n")  # a trickle: a byte now and then
        closed = 0
        async with asyncio.timeout(8):
            for reader, _ in trickling:
                if await reader.read() == b"":  # the server closed it
                    closed += 1
        assert closed == len(trickling)
        assert (await _get(server.bound_port, "/healthz"))[0] == 200  # still serving
    finally:
        for _, writer in trickling:
            writer.close()
        await server.stop()
