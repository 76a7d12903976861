"""PTB's update processor with a fair share per person (``service.gate``): presses and
commands beyond it are refused before they take any work, so they cannot fill the bot's
concurrent update slots. Every refused press is answered ("not so fast": an answer is free of
Telegram's flood limits, and a button left spinning looks like a bot that hangs); a refused
command gets no reply (a message would cost the chat's budget). Polled updates come here
through PTB's queue, webhook posts through ``webhook.AppReceiver``.

The refusals are answered by a few tasks of their own, outside the update slots and with
few connections at once: a flood of them can neither hold the slots nor take every connection
to Telegram from the answers everybody else waits for.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import CallbackQuery, Update
from telegram.error import TelegramError
from telegram.ext import BaseUpdateProcessor

from ..i18n import get_translator, negotiate
from ..metrics import PRESSES
from ..service.gate import Gate, Verdict

log = logging.getLogger(__name__)

SLOTS = 256  # updates handled at once (PTB's default for concurrent updates)
ANSWERERS = 2  # refused presses answered at once
WAITING = 4096  # refused presses waiting for their answer (beyond: the flood is not answered)
ANSWERABLE = 14.0  # seconds Telegram takes an answer to a press (15): older ones are skipped
SLOW_DOWN_CACHE = 2  # seconds the client shows the refusal again for the same button itself


class FairProcessor(BaseUpdateProcessor):
    def __init__(self, gate: Gate) -> None:
        super().__init__(SLOTS)
        self.gate = gate
        self.refused = 0  # presses and commands refused so far (logs, tests)
        self.unanswered = 0  # refused presses not answered (the bot was far behind)
        self._refusals: asyncio.Queue[tuple[float, CallbackQuery]] | None = None
        self._answerers: list[asyncio.Task[None]] = []

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        user_id = _gated_user(update)
        if user_id is None:
            await coroutine
            return
        assert isinstance(update, Update)
        press = update.callback_query
        command = press is None  # a press, or a command (see ``_gated_user``)
        verdict = self.gate.admit(user_id, command=command)
        if verdict is Verdict.PASS:
            try:
                await coroutine
            finally:
                self.gate.done(user_id, command=command)
                if press is not None:
                    PRESSES.labels("answered").inc()
            return
        _close(coroutine)
        self.refused += 1
        if press is not None:
            PRESSES.labels("refused").inc()
            self._refuse(press)

    def _refuse(self, query: CallbackQuery) -> None:
        if self._refusals is None:
            return  # not running
        try:
            self._refusals.put_nowait((time.monotonic(), query))
        except asyncio.QueueFull:  # a flood beyond any person's pace
            self._left_unanswered()

    async def initialize(self) -> None:
        self._refusals = asyncio.Queue(WAITING)
        self._answerers = [
            asyncio.create_task(self._answer_refusals(), name="refusal answers")
            for _ in range(ANSWERERS)
        ]

    async def shutdown(self) -> None:
        for task in self._answerers:
            task.cancel()
        if self._answerers:
            await asyncio.wait(self._answerers)
        self._answerers, self._refusals = [], None

    async def _answer_refusals(self) -> None:
        assert self._refusals is not None
        while True:
            at, query = await self._refusals.get()
            # Too old for Telegram to take an answer (its app stopped spinning), or refused.
            if time.monotonic() - at >= ANSWERABLE or not await _slow_down(query):
                self._left_unanswered()

    def _left_unanswered(self) -> None:
        self.unanswered += 1
        log.debug("refused presses left unanswered: %d", self.unanswered)


def _gated_user(update: object) -> int | None:
    """The person a press or a command comes from; other updates are not counted."""
    if not isinstance(update, Update) or update.effective_user is None:
        return None
    message = update.message
    is_command = message is not None and (message.text or "").startswith("/")
    if update.callback_query is None and not is_command:
        return None
    return update.effective_user.id


async def _slow_down(query: CallbackQuery) -> bool:
    # The user's own setting would cost a database read: Telegram's language is free.
    t = get_translator(negotiate(query.from_user.language_code))
    try:
        # Cached by the client: the same button pressed again at once is refused by Telegram's
        # app itself, without another update (nor another answer) for the bot.
        text = t._("Not so fast, please: wait a moment and press again.")
        await query.answer(text, cache_time=SLOW_DOWN_CACHE)
    except TelegramError as err:
        log.debug("could not ask %s to slow down: %s", query.from_user.id, err)
        return False
    return True


def _close(coroutine: Awaitable[Any]) -> None:
    close: Callable[[], object] | None = getattr(coroutine, "close", None)
    if close is not None:
        close()  # never awaited: no warning about it
