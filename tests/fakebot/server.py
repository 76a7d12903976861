"""A fake Telegram Bot API server (aiohttp) for end-to-end tests of the bot.

The bot talks to it exactly as to api.telegram.org: ``POST /bot<token>/<method>`` with
form-encoded (or multipart, or JSON) parameters, answered with ``{"ok": true, "result": ...}``
or ``{"ok": false, "error_code": ..., "description": ..., "parameters": {...}}``.
Simulated users and groups (:mod:`fakebot.users`) produce the updates that the bot fetches
with long polling, and the tests inspect what the bot did.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from aiohttp import web

from . import prepared
from .api_bot import BotMixin
from .api_callbacks import CallbacksMixin, PendingQuery
from .api_chats import ChatsMixin
from .api_messages import MessagesMixin
from .api_topics import TopicsMixin
from .api_webapps import WebAppsMixin
from .api_webhooks import WebhooksMixin
from .common import (
    BOT_ID,
    BOT_USERNAME,
    COMMAND_RE,
    DEFAULT_ALLOWED_UPDATES,
    TEST_TOKEN,
    Handler,
    Signal,
    read_params,
)
from .faults import Fault, FaultsMixin, Injection
from .limits import RateLimiter, TelegramLimits
from .looking import LookingMixin
from .models import ApiError, Call, CallbackAnswer, ChatState, JSONDict, Press, StoredMessage, Topic
from .users import BotStatus, SimGroup, SimUser
from .webhook import Delivery, Retry, WebhookSender
from .world import WorldMixin

__all__ = ["BOT_ID", "BOT_USERNAME", "TEST_TOKEN", "FakeTelegram"]

_LOG = logging.getLogger(__name__)


class FakeTelegram(
    WorldMixin,
    TopicsMixin,
    LookingMixin,
    FaultsMixin,
    BotMixin,
    WebhooksMixin,
    MessagesMixin,
    CallbacksMixin,
    ChatsMixin,
    WebAppsMixin,
):
    """In-memory Telegram with a Bot API HTTP front end; see ``tests/fakebot/README.md``.

    Each Bot API method is an ``api_<Method>`` method of the mixin for its area (found by
    name when the server is built); this class holds the state they share, the HTTP front
    end and the update queue."""

    def __init__(
        self,
        *,
        token: str = TEST_TOKEN,
        bot_first_name: str = "Kozel",
        bot_username: str = BOT_USERNAME,
        privacy_mode: bool = True,
        callback_query_ttl: float = 15.0,
        limits: TelegramLimits | None = None,
        clock: Callable[[], float] | None = None,
        webhook_retry: Retry | None = None,
    ) -> None:
        """``limits`` turns Telegram's flood limits on (see :mod:`fakebot.limits`; off by
        default); ``clock`` is the limits' clock in seconds (default ``time.monotonic``);
        ``webhook_retry`` the pauses between webhook deliveries of an update (see
        :mod:`fakebot.webhook`)."""
        self.token = token
        self.bot_user: JSONDict = {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": bot_first_name,
            "username": bot_username,
        }
        self.privacy_mode = privacy_mode
        self.callback_query_ttl = callback_query_ttl

        self.users: dict[int, SimUser] = {}
        self.chats: dict[int, ChatState] = {}
        self.calls: list[Call] = []
        self.unknown_calls: list[Call] = []
        self.internal_errors: list[str] = []
        self.callback_answers: list[CallbackAnswer] = []
        self.prepared_messages: dict[str, prepared.PreparedMessage] = {}  # by id
        self.press_log: list[Press] = []  # every simulated press, answered or not
        self.update_log: list[JSONDict] = []  # every update ever queued
        self.dropped_updates: list[JSONDict] = []  # filtered out by allowed_updates
        self.commands: dict[tuple[str, str], list[JSONDict]] = {}
        self.bot_texts: dict[tuple[str, str], str] = {}  # (field, language) -> value
        self.webhook_deliveries: list[Delivery] = []  # every POST to the bot's webhook
        self.webhook_retry = webhook_retry or Retry()
        self._webhook: WebhookSender | None = None

        self._updates: list[JSONDict] = []
        self._next_update_id = 1
        self._allowed_updates: frozenset[str] = DEFAULT_ALLOWED_UPDATES
        self._poll_generation = 0
        self._queries: dict[str, PendingQuery] = {}
        self._query_ids = itertools.count(4_000_000_000_000_000_001)
        self._user_ids = itertools.count(100_001)
        self._group_ids = itertools.count(1)
        self._seq = itertools.count(1)
        self._last_seq = 0
        self._received: Counter[str] = Counter()
        self._injections: list[Injection] = []
        self._faults: list[Fault] = []
        self._delays: dict[str, float] = {}
        self._holds: dict[str, asyncio.Event] = {}
        self._changed = Signal()
        self._chat_signals: dict[int, Signal] = {}
        self._chat_seq: dict[int, int] = {}
        self._limiter: RateLimiter | None = None
        self.enforce_limits(limits, clock=clock)
        self._failure: str | None = None
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

        self._handlers: dict[str, tuple[str, Handler]] = {}
        for attr in dir(self):
            if attr.startswith("api_"):
                name = attr.removeprefix("api_")
                self._handlers[name.lower()] = (name, getattr(self, attr))

    # ================================================================== lifecycle

    async def start(self) -> None:
        """Serve on 127.0.0.1 on a free port."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        runner = web.AppRunner(
            app, handler_cancellation=True, shutdown_timeout=0.5, access_log=None
        )
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self._runner = runner
        self._port = int(runner.addresses[0][1])

    async def stop(self) -> None:
        """Answer pending long polls, fail pending presses and close the server."""
        self._closing = True
        await self._drop_webhook()
        self._changed.fire()
        for signal in self._chat_signals.values():
            signal.fire()
        for query in self._queries.values():
            if not query.answer.done():
                query.answer.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``: what ``KOZEL_BOT_API_URL`` should be."""
        if self._port is None:
            raise RuntimeError("FakeTelegram is not started")
        return f"http://127.0.0.1:{self._port}"

    @property
    def base_url(self) -> str:
        """``base_url`` for ``telegram.Bot`` (``{url}/bot``; PTB appends the token)."""
        return f"{self.url}/bot"

    # ================================================================== HTTP front end

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        canonical, handler = self._handlers.get(method.lower(), (method, None))
        params = await read_params(request)
        self._received[canonical.lower()] += 1
        self._changed.fire()

        if request.match_info["token"] != self.token:
            return self._answer(canonical, params, ApiError(401, "Unauthorized"))
        if self._limiter is not None:
            hit = self._limiter.check(canonical, params)
            if hit is not None:
                error = ApiError(
                    429,
                    f"Too Many Requests: retry after {hit.retry_after}",
                    {"retry_after": hit.retry_after},
                )
                response = self._answer(canonical, params, error)
                hit.seq = self._last_seq
                return response
        fault = self._take_fault(canonical, params)
        if fault is not None and fault.kind == "drop":
            call = Call(self._next_seq(), canonical, params, time.time(), 0, {"dropped": True})
            self.calls.append(call)
            self._changed.fire()
            if request.transport is not None:
                request.transport.abort()  # the client sees the connection reset
            return web.Response(status=500)  # written nowhere: the connection is gone
        held = self._holds.get(canonical.lower())
        if held is not None:
            await held.wait()
        delay = self._delays.get(canonical.lower(), 0.0)
        if fault is not None:
            # Carried out even if the client gives up waiting (as Telegram would).
            late = asyncio.ensure_future(
                self._execute(canonical, handler, params, delay + fault.seconds)
            )
            return await asyncio.shield(late)
        return await self._execute(canonical, handler, params, delay)

    async def _execute(
        self,
        canonical: str,
        handler: Handler | None,
        params: JSONDict,
        delay: float,
    ) -> web.Response:
        if delay:
            await asyncio.sleep(delay)
        injected = self._take_injection(canonical, params)
        if injected is not None:
            return self._answer(canonical, params, injected)
        if handler is None:
            return self._answer(canonical, params, ApiError(404, "Not Found"), unknown=True)
        try:
            result = handler(params)
            if inspect.isawaitable(result):
                result = await result
        except ApiError as error:
            return self._answer(canonical, params, error)
        except Exception as exc:  # a bug in the fake or a malformed request
            _LOG.exception("fake Telegram failed on %s %s", canonical, params)
            self.internal_errors.append(f"{canonical}: {exc!r}")
            return self._answer(canonical, params, ApiError(500, f"Internal Server Error: {exc}"))
        return self._answer(canonical, params, result)

    def _answer(
        self, method: str, params: JSONDict, result: Any, *, unknown: bool = False
    ) -> web.Response:
        if isinstance(result, ApiError):
            status, body = result.code, result.to_api()
        else:
            status, body = 200, {"ok": True, "result": result}
        call = Call(self._next_seq(), method, params, time.time(), status, body)
        self.calls.append(call)
        if unknown:
            self.unknown_calls.append(call)
        self._changed.fire()
        return web.json_response(body, status=status)

    def _next_seq(self) -> int:
        self._last_seq = next(self._seq)
        return self._last_seq

    # ================================================================== updates, stored messages
    # What every area uses: queue an update, store or change a message, wake the waits.

    def _enqueue(self, kind: str, payload: JSONDict) -> bool:
        update = {"update_id": self._next_update_id, kind: payload}
        self._next_update_id += 1
        if kind not in self._allowed_updates:
            self.dropped_updates.append(update)
            return False
        self._updates.append(update)
        self.update_log.append(update)
        self._changed.fire()
        return True

    def _bot_sees(self, chat: ChatState, message: StoredMessage) -> bool:
        if chat.type == "private":
            user = self.users[chat.id]
            return user.started and not user.blocked
        assert isinstance(chat, SimGroup)
        if not chat.bot_present:
            return False
        if not self.privacy_mode or chat.bot_status == "administrator":
            return True
        if message.text is None:  # service messages always arrive
            return True
        reply = message.reply_to
        if reply is not None and reply.from_bot and "forum_topic_created" not in reply.extra:
            return True  # (a topic's messages all "reply" to its first one)
        command = COMMAND_RE.match(message.text)
        if command is None:
            return False
        _, _, target = command.group(0).partition("@")
        return not target or target.lower() == str(self.bot_user["username"]).lower()

    def _service_message(
        self, chat: ChatState, sender: JSONDict, fields: JSONDict, *, topic: Topic | None = None
    ) -> StoredMessage:
        message = StoredMessage(
            chat=chat,
            message_id=chat.take_message_id(),
            sender=sender,
            date=int(time.time()),
            raw_text=None,
            text=None,
            extra=fields,
            reply_to=topic.root if topic else None,
            thread_id=topic.thread_id if topic else None,
            is_topic_message=topic is not None,
        )
        return self._deliver_service(message)

    def _deliver_service(self, message: StoredMessage) -> StoredMessage:
        chat = message.chat
        self._store(message)
        message.delivered = self._bot_sees(chat, message) and self._enqueue(
            "message", message.to_api()
        )
        return message

    def _set_bot_status(self, group: SimGroup, status: BotStatus, by: SimUser | None) -> None:
        old = group.bot_status
        group.bot_status = status
        actor = by or group.creator
        sender = actor.to_api() if actor else self.bot_user
        self._my_chat_member(group, sender, old, status)

    def _my_chat_member(self, chat: ChatState, sender: JSONDict, old: str, new: str) -> None:
        self._enqueue(
            "my_chat_member",
            {
                "chat": chat.to_api(),
                "from": sender,
                "date": int(time.time()),
                "old_chat_member": self._member(self.bot_user, old),
                "new_chat_member": self._member(self.bot_user, new),
            },
        )

    def _store(self, message: StoredMessage) -> None:
        message.chat.messages[message.message_id] = message
        self._touch(message)

    def _touch(self, message: StoredMessage) -> None:
        message.record_version()
        message.changed_seq = self._next_seq()
        self._chat_changed(message.chat)
        self._changed.fire()

    def _chat_changed(self, chat: ChatState) -> None:
        self._chat_seq[chat.id] = self._chat_seq.get(chat.id, 0) + 1
        signal = self._chat_signals.get(chat.id)
        if signal is not None:
            signal.fire()
