"""The test load balancer: requests go to the workers in turn, a worker that is down is skipped."""

from __future__ import annotations

import aiohttp
from aiohttp import web
from fakebot.process import free_port
from fakebot.proxy import RoundRobinProxy, serve


async def worker(name: str) -> tuple[web.AppRunner, str]:
    async def answer(request: web.Request) -> web.Response:
        body = await request.text()
        secret = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "")
        return web.json_response({"worker": name, "body": body, "secret": secret}, status=200)

    app = web.Application()
    app.router.add_post("/hook", answer)
    runner, port = await serve(app)
    return runner, f"http://127.0.0.1:{port}"


def closed_port() -> str:
    return f"http://127.0.0.1:{free_port()}"  # nobody listens once closed


async def test_requests_alternate_and_a_worker_that_is_down_is_skipped() -> None:
    (one, one_url), (two, two_url) = await worker("one"), await worker("two")
    down = closed_port()
    try:
        async with (
            RoundRobinProxy([one_url, down, two_url]) as proxy,
            aiohttp.ClientSession() as http,
        ):
            seen = []
            for n in range(6):
                headers = {"X-Telegram-Bot-Api-Secret-Token": "s3"}
                async with http.post(proxy.url + "/hook", data=f"u{n}", headers=headers) as r:
                    assert r.status == 200
                    got = await r.json()
                    assert got["body"] == f"u{n}" and got["secret"] == "s3"
                    seen.append(got["worker"])
            # The turn that falls on the worker that is down goes on to the next one.
            assert seen == ["one", "two", "two", "one", "two", "two"]
            assert proxy.forwarded[down] == 0
    finally:
        await one.cleanup()
        await two.cleanup()


async def test_no_worker_up_is_a_502_so_telegram_retries() -> None:
    async with (
        RoundRobinProxy([closed_port()]) as proxy,
        aiohttp.ClientSession() as http,
        http.post(proxy.url + "/hook", data="u") as answer,
    ):
        assert answer.status == 502
