"""Webhook mode: Telegram POSTs each update to the bot's web server (PTB's custom-webhook way).

The application is built with ``updater(None)``; the route below checks Telegram's secret
header, parses the update and processes it before answering, so an update the bot could not
take (it was starting, or it failed) is answered with an error and Telegram sends it again.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TypeVar
from urllib.parse import urlsplit

from aiohttp import web
from telegram import Update
from telegram.error import BadRequest, InvalidToken, NetworkError, RetryAfter
from telegram.ext import Application

from ..config import Config
from ..lru import LRU

log = logging.getLogger(__name__)
T = TypeVar("T")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
RECENT_UPDATES = 4096  # update ids remembered, so a delivery Telegram repeats is taken once
MAX_RETRY_PAUSE = 30.0


class StartupError(Exception):
    """The bot cannot start as configured; the message is one line for the operator."""


def secret_matches(given: str | None, secret: str) -> bool:
    """Constant-time comparison: the time taken says nothing about how much of it matched."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode(), secret.encode())


def webhook_path(url: str) -> str:
    """The path the route listens on: the webhook URL's own (``/`` when it has none)."""
    return urlsplit(url).path or "/"


def routes(application: Application, *, path: str, secret: str) -> list[web.RouteDef]:  # type: ignore[type-arg]
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


def run(application: Application, config: Config, rejected: Callable[[], int]) -> int:  # type: ignore[type-arg]
    """Serve in webhook mode until SIGTERM/SIGINT; returns the exit status."""
    try:
        return asyncio.run(_serve(application, config, rejected))
    except StartupError as err:
        print(f"kozel-bot: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0


async def _serve(application: Application, config: Config, rejected: Callable[[], int]) -> int:  # type: ignore[type-arg]
    assert config.webhook_url is not None and config.webhook_secret is not None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        if not await _retrying(application.initialize, stop, config):
            return 0
    except InvalidToken:
        return rejected()
    try:
        if application.post_init is not None:
            await application.post_init(application)  # storage, core, web server with the route
        await application.start()
        url, secret = config.webhook_url, config.webhook_secret

        async def set_webhook() -> None:
            await application.bot.set_webhook(
                url, secret_token=secret, allowed_updates=Update.ALL_TYPES
            )

        try:
            if not await _retrying(set_webhook, stop, config):
                return 0
        except BadRequest as err:
            raise StartupError(
                f"Telegram refused the webhook URL {config.webhook_url}: {err.message}"
            ) from None
        log.info("webhook set to %s; listening", config.webhook_url)
        await stop.wait()
        return 0
    finally:
        await _shutdown(application)


async def _shutdown(application: Application) -> None:  # type: ignore[type-arg]
    web_server = application.bot_data.get("web")
    if web_server is not None:
        await web_server.stop()  # first: no update is taken that would not be processed
    if application.running:
        await application.stop()
    if application.post_stop is not None:
        await application.post_stop(application)  # as run_polling does: before shutdown
    await application.shutdown()
    if application.post_shutdown is not None:
        await application.post_shutdown(application)


async def _retrying(call: Callable[[], Awaitable[T]], stop: asyncio.Event, config: Config) -> bool:
    """Call until Telegram answers (pauses growing to 30 s); False when stopped meanwhile.

    ``call`` is called again on every attempt, so it must make a new request each time."""
    pause, said = 1.0, False
    while True:
        try:
            await call()
            return True
        except RetryAfter as err:
            after = err.retry_after
            wait = after.total_seconds() if isinstance(after, timedelta) else float(after)
        except BadRequest:
            raise
        except NetworkError as err:
            if not said:
                print(
                    f"kozel-bot: Telegram's API at {config.api_url} cannot be reached ({err}); "
                    "retrying with backoff (at most 30 s apart) until it answers",
                    file=sys.stderr,
                    flush=True,
                )
                said = True
            wait, pause = pause, min(pause * 2, MAX_RETRY_PAUSE)
        try:
            await asyncio.wait_for(stop.wait(), wait)
            return False
        except TimeoutError:
            pass
