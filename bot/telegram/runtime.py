"""The running bot's services, one typed object: PTB makes it, empty, as the application's
``bot_data`` (``ContextTypes(bot_data=Runtime)``), so that every handler reaches them as
``context.bot_data``; ``lifespan`` fills it while it builds them, and tears them down."""

from __future__ import annotations

import asyncio
from typing import Any

from telegram.ext import Application, CallbackContext, ExtBot

from ..lru import LRU
from ..service.core import Core
from ..service.lease import Lease, Workers
from ..service.reach import Reach
from ..service.sender import Sender
from ..service.status import Process
from ..service.supervisor import Supervisor
from ..service.timer_loop import TimerRunner
from ..storage import Storage
from ..web.mini_app import MiniApp
from ..web.server import WebServer
from .request import WatchedRequest

FAILURES_KEPT = 4096  # failed updates remembered until their post is answered


class Failures:
    """The updates whose handling failed, as PTB's error handler saw them."""

    def __init__(self) -> None:
        self._ids: LRU[int, None] = LRU(FAILURES_KEPT)

    def add(self, update_id: int) -> None:
        self._ids.put(update_id, None)

    def pop(self, update_id: int) -> bool:
        """Whether ``update_id`` failed (forgotten now)."""
        failed = update_id in self._ids
        self._ids.pop(update_id)
        return failed


class Runtime:
    def __init__(self) -> None:
        self.storage: Storage | None = None
        self.lease: Lease | None = None  # polling: this process is the database's one bot
        self.workers: Workers | None = None  # webhook: this worker among others
        self.runner: TimerRunner | None = None
        self.sender: Sender | None = None
        self.reach: Reach | None = None  # whether Telegram answers (turn timers pause if not)
        self.web: WebServer | None = None  # the webhook's route, the Mini App, /healthz
        self.mini_app: MiniApp | None = None
        # The background loops (lease, timers, sender, listener, Telegram's watch), kept running.
        self.supervisor = Supervisor()
        self.requests: list[WatchedRequest] = []  # the HTTP clients to Telegram (``app.build``)
        # Updates whose handler failed (PTB gives the error to ``on_error``, not to the caller):
        # a webhook post answers them with 500, so that Telegram sends them again.
        self.failures = Failures()
        self._core: Core | None = None

    def process(self) -> Process:
        """This process as ``/metrics`` and ``/status`` describe it."""

        async def workers() -> int:
            return 1 if self.workers is None else await self.workers.alive()

        return Process(workers=workers, down=self.supervisor.down)

    @property
    def tasks(self) -> list[asyncio.Task[None]]:
        return self.supervisor.tasks

    @property
    def core(self) -> Core:
        """The service (set before any update is taken)."""
        if self._core is None:
            raise RuntimeError("the bot is not running")
        return self._core

    @core.setter
    def core(self, core: Core) -> None:
        self._core = core


# What PTB's generics are here: the context every handler gets, and the application.
Context = CallbackContext[ExtBot[Any], dict[Any, Any], dict[Any, Any], Runtime]
App = Application[ExtBot[None], Context, dict[Any, Any], dict[Any, Any], Runtime, None]
