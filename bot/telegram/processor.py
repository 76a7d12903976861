"""PTB's update processor with a fair share per person (``service.gate``): presses and
commands beyond it are refused before they take any work, so they cannot fill the bot's
concurrent update slots."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import BaseUpdateProcessor

from ..i18n import get_translator, negotiate
from ..service.gate import Gate, Verdict

log = logging.getLogger(__name__)

SLOTS = 256  # updates handled at once (PTB's default for concurrent updates)


class FairProcessor(BaseUpdateProcessor):
    def __init__(self, gate: Gate) -> None:
        super().__init__(SLOTS)
        self.gate = gate
        self.refused = 0  # presses and commands refused so far (logs, tests)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        user_id = _gated_user(update)
        if user_id is None:
            await coroutine
            return
        verdict = self.gate.admit(user_id)
        if verdict is Verdict.PASS:
            try:
                await coroutine
            finally:
                self.gate.done(user_id)
            return
        _close(coroutine)
        self.refused += 1
        assert isinstance(update, Update)
        if verdict is Verdict.WARN and update.callback_query is not None:
            await _slow_down(update)

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to free."""


def _gated_user(update: object) -> int | None:
    """The person a press or a command comes from; other updates are not counted."""
    if not isinstance(update, Update) or update.effective_user is None:
        return None
    message = update.message
    is_command = message is not None and (message.text or "").startswith("/")
    if update.callback_query is None and not is_command:
        return None
    return update.effective_user.id


async def _slow_down(update: Update) -> None:
    query = update.callback_query
    assert query is not None
    # The user's own setting would cost a database read: Telegram's language is free.
    t = get_translator(negotiate(query.from_user.language_code))
    try:
        await query.answer(t._("Not so fast, please: wait a moment and press again."))
    except TelegramError as err:
        log.debug("could not ask %s to slow down: %s", query.from_user.id, err)


def _close(coroutine: Awaitable[Any]) -> None:
    close: Callable[[], object] | None = getattr(coroutine, "close", None)
    if close is not None:
        close()  # never awaited: no warning about it
