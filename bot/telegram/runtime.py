"""The running bot's services, one typed object: PTB makes it, empty, as the application's
``bot_data`` (``ContextTypes(bot_data=Runtime)``), so that every handler reaches them as
``context.bot_data``; ``lifespan`` fills it while it builds them, and tears them down."""

from __future__ import annotations

import asyncio
from typing import Any

from telegram.ext import Application, CallbackContext, ExtBot

from ..service.core import Core
from ..service.lease import Lease, Workers
from ..service.sender import Sender
from ..service.timer_runner import TimerRunner
from ..storage import Storage
from ..web.mini_app import MiniApp
from ..web.server import WebServer


class Runtime:
    def __init__(self) -> None:
        self.storage: Storage | None = None
        self.lease: Lease | None = None  # polling: this process is the database's one bot
        self.workers: Workers | None = None  # webhook: this worker among others
        self.runner: TimerRunner | None = None
        self.sender: Sender | None = None
        self.web: WebServer | None = None  # the webhook's route, the Mini App, /healthz
        self.mini_app: MiniApp | None = None
        self.tasks: list[asyncio.Task[None]] = []  # renewals, timers, the sender
        self._core: Core | None = None

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
