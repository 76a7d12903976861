"""Webhook mode: Telegram POSTs each update to the bot's web server (PTB's custom-webhook way).

The application is built with ``updater(None)``, and ``lifespan`` sets the webhook once the
server listens; the route below checks Telegram's secret
header, parses the update and processes it before answering, so an update the bot could not
take (it was starting, or it failed) is answered with an error and Telegram sends it again.
"""

from __future__ import annotations

import hmac
import json
import logging
from typing import Protocol
from urllib.parse import urlsplit

from aiohttp import web
from telegram import Bot, Update

from ..lru import LRU

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
RECENT_UPDATES = 4096  # update ids remembered, so a delivery Telegram repeats is taken once


def secret_matches(given: str | None, secret: str) -> bool:
    """Constant-time comparison: the time taken says nothing about how much of it matched."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode(), secret.encode())


def webhook_path(url: str) -> str:
    """The path the route listens on: the webhook URL's own (``/`` when it has none)."""
    return urlsplit(url).path or "/"


class Receiver(Protocol):
    """What the route needs of PTB's Application."""

    @property
    def running(self) -> bool: ...

    @property
    def bot(self) -> Bot: ...

    async def process_update(self, update: object) -> None: ...


def routes(application: Receiver, *, path: str, secret: str) -> list[web.RouteDef]:
    recent: LRU[int, None] = LRU(RECENT_UPDATES)  # the update ids taken lately

    async def receive(request: web.Request) -> web.Response:
        if not secret_matches(request.headers.get(SECRET_HEADER), secret):
            return web.Response(status=401, text="unauthorized\n")
        if not application.running:  # still starting or stopping: Telegram will retry
            return web.Response(status=503, text="starting\n", headers={"Retry-After": "1"})
        try:
            data = json.loads(await request.read())
            if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
                raise ValueError("not an update")
            update = Update.de_json(data, application.bot)
        except Exception:  # any malformed body: refuse it, change nothing
            return web.Response(status=400, text="not a Telegram update\n")
        if update.update_id in recent:
            return web.Response(text="ok\n")  # a repeated delivery: already taken
        recent.put(update.update_id, None)
        try:
            await application.process_update(update)
        except Exception:
            recent.pop(update.update_id)
            log.exception("update %d failed; Telegram will send it again", update.update_id)
            return web.Response(status=500, text="failed\n")
        return web.Response(text="ok\n")

    return [web.post(path, receive)]
