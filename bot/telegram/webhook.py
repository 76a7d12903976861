"""Webhook mode: Telegram POSTs each update to the bot's web server (PTB's custom-webhook way).

The application is built with ``updater(None)``, and ``lifespan`` sets the webhook once the
server listens. The route checks Telegram's secret header, parses the update, takes it in the
database (``UpdateRepo``: an update Telegram delivers twice, to this worker or another, is
handled once) and handles it before answering, through the same fair-share gate as polled
updates (``processor``). An update the bot could not take (it was starting, the database was
away, a handler failed) is answered with an error, and Telegram sends it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import Protocol
from urllib.parse import urlsplit

from aiohttp import web
from telegram import Bot, Update

from ..service.lease import WORKER_PREFIX
from ..service.retry import until_stored
from ..storage import StorageUnavailable, Taken, UpdateRepo
from .runtime import App, Failures

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
STALE_AFTER = 60.0  # seconds after which an update taken but never finished may be taken again
# ... where the workers' own leases say who lives (``WORKER_PREFIX``): an update is taken over
# as soon as its worker's lease runs out, and one a live worker still handles (a slow handler,
# waiting for a busy group's budget) stays its own for this long, not run twice.
STALE_WHILE_ALIVE = 900.0
BODY_TIMEOUT = 10.0  # seconds Telegram has to send an update's body (a trickle is refused)


def secret_matches(given: str | None, secret: str) -> bool:
    """Constant-time comparison: the time taken says nothing about how much of it matched."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode(), secret.encode())


def webhook_path(url: str) -> str:
    """The path the route listens on: the webhook URL's own (``/`` when it has none)."""
    return urlsplit(url).path or "/"


class Outcome(Enum):
    """What the route answers Telegram."""

    DONE = 200  # taken (handled, refused by the fair share, or handled already)
    AGAIN = 503  # not now (starting, the database away, another worker on it): send it again
    FAILED = 500  # a handler failed: send it again


class Receiver(Protocol):
    """What the route needs of the bot: whether it runs, its Bot, and handling an update."""

    @property
    def running(self) -> bool: ...

    @property
    def bot(self) -> Bot: ...

    async def handle(self, update: Update) -> Outcome: ...


class Intake:
    """One update, once among the workers: taken in the database (``UpdateRepo``) before it
    is handled, finished after, given back if handling failed (Telegram sends it again). The
    booking after the handling is done in the background, through a moment without the
    database: an update left taken would be refused as "another worker's" until it is stale.

    ``alive_prefix``: the workers' own leases (``prefix + holder``): an update taken by a
    worker whose lease ran out (it died holding it) is taken over within the lease's seconds,
    not after ``STALE_AFTER``."""

    def __init__(
        self,
        updates: UpdateRepo | None,
        process: Callable[[Update], Awaitable[bool]],
        *,
        holder: str = "",
        alive_prefix: str | None = None,
    ):
        self._updates = updates
        self._process = process  # False: a handler failed
        self._holder = holder
        self._alive_prefix = alive_prefix
        self._booking: set[asyncio.Task[None]] = set()

    async def __call__(self, update: Update) -> Outcome:
        updates, update_id = self._updates, update.update_id
        if updates is not None:
            try:
                stale = STALE_AFTER if self._alive_prefix is None else STALE_WHILE_ALIVE
                taken = await updates.take(
                    update_id, self._holder, stale_after=stale, alive_prefix=self._alive_prefix
                )
            except StorageUnavailable:
                # Taken or not (the answer may have been lost): free it once the database is
                # back, so that Telegram's next delivery finds it free.
                await self._book(lambda: updates.give_back(update_id, self._holder))
                log.info("update %d: the database is away; Telegram sends it again", update_id)
                return Outcome.AGAIN
            if taken is Taken.DONE:
                return Outcome.DONE  # a repeated delivery: handled already
            if taken is Taken.BUSY:
                log.info("update %d: another worker has it; Telegram sends it again", update_id)
                return Outcome.AGAIN
        if not await self._process(update):
            if updates is not None:
                await self._book(lambda: updates.give_back(update_id, self._holder))
            log.info("update %d failed; Telegram will send it again", update_id)
            return Outcome.FAILED
        if updates is not None:
            await self._book(lambda: updates.finish(update_id))
        return Outcome.DONE

    async def _book(self, step: Callable[[], Awaitable[None]]) -> None:
        try:
            await step()
        except StorageUnavailable:
            task = asyncio.create_task(self._booked(step))
            self._booking.add(task)
            task.add_done_callback(self._booking.discard)

    async def _booked(self, step: Callable[[], Awaitable[None]]) -> None:
        with contextlib.suppress(StorageUnavailable):  # then it goes stale (STALE_AFTER)
            await until_stored(step, within=STALE_AFTER)


class AppReceiver:
    """PTB's application as the route's ``Receiver``: an update goes through the update
    processor (the fair-share gate) as polled ones do; one it lets through is taken
    (``Intake``) and handled by PTB's handlers. A refused one costs no database write."""

    def __init__(
        self, app: App, failures: Failures, updates: UpdateRepo | None, *, holder: str
    ) -> None:
        self._app = app
        self._failures = failures
        # Each worker announces itself (``lease.Workers``) before it takes any update.
        self._intake = Intake(updates, self._process, holder=holder, alive_prefix=WORKER_PREFIX)

    @property
    def running(self) -> bool:
        return self._app.running

    @property
    def bot(self) -> Bot:
        return self._app.bot

    async def handle(self, update: Update) -> Outcome:
        outcome = Outcome.DONE  # unless the gate lets it through: refused, and answered

        async def admitted() -> None:
            nonlocal outcome
            outcome = await self._intake(update)

        await self._app.update_processor.process_update(update, admitted())
        return outcome

    async def _process(self, update: Update) -> bool:
        await self._app.process_update(update)
        return not self._failures.pop(update.update_id)


def routes(receiver: Receiver, *, path: str, secret: str) -> list[web.RouteDef]:
    async def receive(request: web.Request) -> web.Response:
        if not secret_matches(request.headers.get(SECRET_HEADER), secret):
            return web.Response(status=401, text="unauthorized\n")
        if not receiver.running:  # still starting or stopping: Telegram will retry
            return _again("starting")
        try:
            async with asyncio.timeout(BODY_TIMEOUT):
                body = await request.read()
            data = json.loads(body)
            if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
                raise ValueError("not an update")
            update = Update.de_json(data, receiver.bot)
        except TimeoutError:
            return web.Response(status=408, text="too slow\n")
        except Exception:  # any malformed body: refuse it, change nothing
            return web.Response(status=400, text="not a Telegram update\n")
        outcome = await receiver.handle(update)
        if outcome is Outcome.AGAIN:
            return _again("not now")
        if outcome is Outcome.FAILED:
            return web.Response(status=500, text="failed\n")
        return web.Response(text="ok\n")

    return [web.post(path, receive)]


def _again(why: str) -> web.Response:
    return web.Response(status=503, text=f"{why}\n", headers={"Retry-After": "1"})
