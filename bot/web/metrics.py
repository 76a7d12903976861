"""``GET /metrics``: every family of ``bot.metrics`` in Prometheus' text format, the database's
facts asked at this moment (``service.status``)."""

from __future__ import annotations

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

from ..service.core import Core
from ..service.status import Process, set_gauges, status


def routes(core: Core, process: Process) -> list[web.RouteDef]:
    async def scrape(request: web.Request) -> web.Response:
        set_gauges(await status(core, process))
        body = generate_latest(REGISTRY)
        response = web.Response(body=body)
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    return [web.get("/metrics", scrape)]
