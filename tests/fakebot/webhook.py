"""Telegram's side of a webhook: POST every queued update to the bot's URL until it answers 200.

As Telegram does: the ``X-Telegram-Bot-Api-Secret-Token`` header carries the secret given to
``setWebhook``; updates of one chat go one after the other, in order, while different chats go
in parallel (at most ``max_connections`` requests at once); an answer other than 200, a refused
connection or a timeout is retried with a growing pause, and the update stays pending
(``pending_update_count``) until it is taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiohttp

from .models import JSONDict

__all__ = ["SECRET_HEADER", "Delivery", "WebhookSender", "chat_key"]

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


@dataclass(frozen=True)
class Delivery:
    """One POST of an update: ``status`` is None when no HTTP answer came."""

    update_id: int
    status: int | None
    error: str | None
    at: float
    answer: str = ""  # the start of the answer's body (for tests' messages; Telegram keeps none)


@dataclass(frozen=True)
class Retry:
    first: float = 0.05  # seconds before the first retry (Telegram waits longer; tests are fast)
    longest: float = 2.0
    timeout: float = 15.0  # seconds the bot has to answer one POST

    def pause(self, attempt: int) -> float:
        return min(self.first * 2**attempt, self.longest)


def chat_key(update: JSONDict) -> int | str:
    """What orders deliveries: the update's chat, else its sender, else the update itself."""
    for field, value in update.items():
        if field == "update_id" or not isinstance(value, dict):
            continue
        chat = value.get("chat")
        if chat is None and isinstance(value.get("message"), dict):
            chat = value["message"].get("chat")
        if isinstance(chat, dict) and "id" in chat:
            return int(chat["id"])
        sender = value.get("from")
        if isinstance(sender, dict) and "id" in sender:
            return f"user:{sender['id']}"
    return f"update:{update['update_id']}"


class WebhookSender:
    """Delivers the fake's pending updates to one webhook URL (see the module docstring)."""

    def __init__(
        self,
        url: str,
        secret_token: str | None,
        max_connections: int,
        *,
        pending: Callable[[], list[JSONDict]],
        confirm: Callable[[JSONDict], None],
        wait_changed: Callable[[float | None], Awaitable[None]],
        record: Callable[[Delivery], None],
        retry: Retry,
        posting: Callable[[JSONDict], None] = lambda update: None,
    ) -> None:
        self.url = url
        self.secret_token = secret_token
        self.max_connections = max_connections
        self.last_error_date: int | None = None
        self.last_error_message: str | None = None
        self._pending = pending
        self._confirm = confirm
        self._wait_changed = wait_changed
        self._record = record
        self._retry = retry
        self._posting = posting  # told before each post of an update
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._loop_task: asyncio.Task[None] | None = None
        self._session: aiohttp.ClientSession | None = None

    def start(self) -> None:
        self._loop_task = asyncio.create_task(self._run(), name=f"webhook {self.url}")

    async def stop(self) -> None:
        """Stop delivering; updates not yet taken stay pending."""
        tasks = [t for t in (self._loop_task, *self._tasks.values()) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _run(self) -> None:
        timeout = aiohttp.ClientTimeout(total=self._retry.timeout)
        self._session = aiohttp.ClientSession(timeout=timeout)
        while True:
            self._dispatch()
            await self._wait_changed(None)  # a new update, or a delivery that finished

    def _dispatch(self) -> None:
        seen: set[int | str] = set()
        for update in self._pending():
            if len(self._tasks) >= self.max_connections:
                return
            key = chat_key(update)
            if key in seen:
                continue  # an older update of this chat goes first
            seen.add(key)
            update_id = int(update["update_id"])
            if update_id not in self._tasks:
                self._tasks[update_id] = asyncio.create_task(self._deliver(update))

    async def _deliver(self, update: JSONDict) -> None:
        update_id = int(update["update_id"])
        attempt = 0
        while True:
            self._posting(update)
            status, error, answer = await self._post(update)
            self._record(Delivery(update_id, status, error, time.time(), answer))
            if status == 200:
                self._tasks.pop(update_id, None)
                self._confirm(update)
                return
            self.last_error_date = int(time.time())
            self.last_error_message = error
            await asyncio.sleep(self._retry.pause(attempt))
            attempt += 1

    async def _post(self, update: JSONDict) -> tuple[int | None, str | None, str]:
        assert self._session is not None
        headers = {"Content-Type": "application/json"}
        if self.secret_token is not None:
            headers[SECRET_HEADER] = self.secret_token
        try:
            async with self._session.post(
                self.url, data=json.dumps(update), headers=headers
            ) as response:
                answer = (await response.read())[:80].decode(errors="replace").strip()
                if response.status == 200:
                    return 200, None, answer
                return (
                    response.status,
                    f"Wrong response from the webhook: {response.status} {response.reason}",
                    answer,
                )
        except TimeoutError:
            return None, "Read timeout expired", ""
        except aiohttp.ClientConnectorError:
            return None, "Connection refused", ""
        except aiohttp.ClientError as exc:
            return None, f"Connection failed: {exc}", ""
