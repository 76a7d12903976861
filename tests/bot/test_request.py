"""The bot's HTTP client to the Bot API (aiohttp under PTB's ``BaseRequest``), against a real
local server: parameters as Telegram reads them, files as a multipart form, and what the
reach watch hears for an answer, a refused connection and a timeout."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from fakebot.proxy import serve
from telegram import InputFile
from telegram.error import NetworkError, TimedOut
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter
from test_main import closed_port

from bot.telegram.request import WatchedRequest


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, list[dict[str, object]]]]:
    seen: list[dict[str, object]] = []

    async def method(request: web.Request) -> web.Response:
        if request.content_type.startswith("multipart/"):
            parts: dict[str, object] = {}
            async for part in await request.multipart():
                parts[part.name or ""] = (part.filename, await part.read())  # type: ignore[union-attr]
            seen.append(parts)
        else:
            seen.append(dict(await request.post()))
        if request.match_info["name"] == "slow":
            await asyncio.sleep(2)
        return web.json_response({"ok": True, "result": True})

    app = web.Application()
    app.router.add_post("/bot123:abc/{name}", method)
    runner, port = await serve(app)
    yield f"http://127.0.0.1:{port}/bot123:abc", seen
    await runner.cleanup()


@contextlib.asynccontextmanager
async def watched(**settings: Any) -> AsyncIterator[tuple[WatchedRequest, list[str]]]:
    """A client between ``initialize`` and ``shutdown``, and what the reach watch heard."""
    request = WatchedRequest(**settings)
    heard: list[str] = []
    request.on_answer = lambda: heard.append("answer")
    request.on_failure = lambda: heard.append("failure")
    await request.initialize()
    try:
        yield request, heard
    finally:
        await request.shutdown()


async def test_a_call_sends_its_parameters_as_a_form_and_counts_as_an_answer(
    server: tuple[str, list[dict[str, object]]],
) -> None:
    base, seen = server
    async with watched(connection_pool_size=4) as (request, heard):
        data = RequestData(
            [
                RequestParameter.from_input("chat_id", 7),
                RequestParameter.from_input("text", "9♠ K♠"),
            ]
        )
        code, body = await request.do_request(f"{base}/sendMessage", "POST", data)
        assert code == 200 and b'"ok": true' in body
        assert seen == [{"chat_id": "7", "text": "9♠ K♠"}]
        assert heard == ["answer"]

        upload = InputFile(b"hello", filename="notes.txt")
        files = RequestData(
            [
                RequestParameter.from_input("chat_id", 7),
                RequestParameter.from_input("document", upload),
            ]
        )
        assert (await request.do_request(f"{base}/sendDocument", "POST", files))[0] == 200
        assert seen[-1]["chat_id"] == (None, b"7")
        assert seen[-1][upload.attach_name or "document"] == ("notes.txt", b"hello")


async def test_no_answer_is_a_failure_the_reach_watch_hears() -> None:
    async with watched(connection_pool_size=1) as (request, heard):
        with pytest.raises(NetworkError):
            await request.do_request(f"http://127.0.0.1:{closed_port()}/bot1:x/getMe", "POST")
        assert heard == ["failure"]


async def test_a_late_answer_times_out(server: tuple[str, list[dict[str, object]]]) -> None:
    base, _ = server
    async with watched(connection_pool_size=1, read_timeout=0.2) as (request, heard):
        with pytest.raises(TimedOut):
            await request.do_request(f"{base}/slow", "POST")
        assert heard == ["failure"]
