"""A round-robin reverse proxy for tests: one address in front of several bot workers.

It forwards each request (method, path, query, body and headers) to the next worker in turn,
the way a load balancer spreads Telegram's webhook posts. A worker that refuses the connection
(it is down) is skipped for that request, as nginx's ``proxy_next_upstream error`` does; when
none answers, the proxy answers 502 and Telegram (here: the fake) retries later. A worker that
dies while it holds a request (its connection drops) makes that request a 502 as well, so
Telegram sends it again (to whichever worker is next).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

import aiohttp
from aiohttp import web


async def serve(app: web.Application, host: str = "127.0.0.1") -> tuple[web.AppRunner, int]:
    """Serve ``app`` on a free local port: its runner (``cleanup()`` to stop) and the port."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, 0)
    await site.start()
    return runner, int(runner.addresses[0][1])


_HOP_BY_HOP = {"host", "content-length", "connection", "transfer-encoding", "keep-alive"}


class RoundRobinProxy:
    def __init__(self, targets: Sequence[str], *, host: str = "127.0.0.1") -> None:
        self.targets = list(targets)  # base URLs such as http://127.0.0.1:8081
        self.host = host
        self.port = 0
        self.forwarded: Counter[str] = Counter()  # target -> requests it answered
        self.answered: Counter[tuple[str, int]] = Counter()  # (target, HTTP status) -> count
        self.dropped: Counter[str] = Counter()  # target -> requests it took but never answered
        self.in_flight: Counter[str] = Counter()  # target -> requests it holds, not yet answered
        self._turn = itertools.count()
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def start(self) -> None:
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        self._runner, self.port = await serve(app, self.host)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def __aenter__(self) -> RoundRobinProxy:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP}
        first = next(self._turn)
        for offset in range(len(self.targets)):
            target = self.targets[(first + offset) % len(self.targets)]
            self.in_flight[target] += 1
            try:
                async with self._session.request(
                    request.method, target + request.path_qs, data=body, headers=headers
                ) as answer:
                    payload = await answer.read()
                    self.forwarded[target] += 1
                    self.answered[target, answer.status] += 1
                    return web.Response(
                        status=answer.status,
                        body=payload,
                        content_type=answer.content_type,
                    )
            except aiohttp.ClientConnectorError:
                continue  # that worker is down: the next one takes the request
            except (aiohttp.ClientError, TimeoutError):
                # It took the request and went away (killed) or hung: not resent here, as
                # nginx does not resend a POST; the sender's retry decides.
                self.dropped[target] += 1
                return web.Response(status=502, text="the worker went away\n")
            finally:
                self.in_flight[target] -= 1
        return web.Response(status=502, text="no worker answered")

    def ok_posts(self, target: str) -> int:
        """Requests ``target`` answered with 200 (for the webhook: updates it took)."""
        return self.answered[target, 200]
