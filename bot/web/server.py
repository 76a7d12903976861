"""A small aiohttp server: routes added by its users, and ``GET /healthz`` for load balancers."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable

from aiohttp import web

log = logging.getLogger(__name__)


IDLE_TIMEOUT = 15.0  # seconds a connection may sit idle, or take to send a request's headers
# (aiohttp closes it then; a trickle of bytes does not keep it open). An event stream that is
# being answered is not idle: it lasts as long as its page reads it.


class WebServer:
    """One listening socket for the webhook and the Mini App; routes are added before start."""

    def __init__(self, host: str, port: int, *, health: Callable[[], Awaitable[bool]]) -> None:
        self.host = host
        self.port = port
        self._health = health
        self.app = web.Application()
        self.app.router.add_get("/healthz", self._healthz)
        self._runner: web.AppRunner | None = None
        self.draining = False  # stopping: /healthz says so, the routes still answer

    def add_routes(self, routes: Iterable[web.AbstractRouteDef]) -> None:
        self.app.add_routes(routes)

    async def start(self) -> None:
        runner = web.AppRunner(self.app, access_log=None, keepalive_timeout=IDLE_TIMEOUT)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        log.info("web server listening on %s:%d", self.host, self.port)

    @property
    def bound_port(self) -> int:
        """The port actually listened on (differs from ``port`` when that is 0)."""
        if self._runner is None:
            return self.port
        for address in self._runner.addresses:
            if isinstance(address, tuple) and len(address) >= 2:
                return int(address[1])
        return self.port

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def drain(self, seconds: float) -> None:
        """Answer /healthz 503 for ``seconds`` before a stop while serving everything else:
        a balancer's health check takes this server out, so that no request it sends meets
        a closed connection (Caddy cannot send a post's body twice: such a post fails)."""
        self.draining = True
        if seconds > 0:
            log.info("stopping: /healthz answers 503; taking requests for %.1f s more", seconds)
            await asyncio.sleep(seconds)

    async def _healthz(self, request: web.Request) -> web.Response:
        if self.draining:
            return web.Response(status=503, text="stopping\n")
        try:
            healthy = await self._health()
        except Exception:  # a health check that raises means unhealthy, said once in the log
            log.warning("health check failed", exc_info=True)
            healthy = False
        if healthy:
            return web.Response(text="ok\n")
        return web.Response(status=503, text="unavailable\n")
