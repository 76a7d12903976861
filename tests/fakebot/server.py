"""A fake Telegram Bot API server (aiohttp) for end-to-end tests of the bot.

The bot talks to it exactly as to api.telegram.org: ``POST /bot<token>/<method>`` with
form-encoded (or multipart, or JSON) parameters, answered with ``{"ok": true, "result": ...}``
or ``{"ok": false, "error_code": ..., "description": ..., "parameters": {...}}``.
Simulated users and groups (:mod:`fakebot.users`) produce the updates that the bot fetches
with long polling, and the tests inspect what the bot did.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from aiohttp import web

from .formatting import FormattedText, ParseError, format_text, utf16_len
from .limits import RateLimiter, RateLimitHit, TelegramLimits
from .models import (
    ANONYMOUS_ADMIN,
    CHANNEL_BOT,
    ApiError,
    Call,
    CallbackAnswer,
    ChatState,
    JSONDict,
    Press,
    StoredMessage,
    Topic,
)
from .users import BotStatus, ChatRef, SimGroup, SimUser
from .webhook import Delivery, Retry, WebhookSender

__all__ = ["BOT_ID", "BOT_USERNAME", "TEST_TOKEN", "FakeTelegram"]

_LOG = logging.getLogger(__name__)
T = TypeVar("T")

TEST_TOKEN = "123456:TEST"
BOT_ID = 1000
BOT_USERNAME = "kozel_test_bot"

# Update types Telegram sends when allowed_updates was never given (or given as []).
DEFAULT_ALLOWED_UPDATES = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "business_connection",
        "business_message",
        "edited_business_message",
        "deleted_business_messages",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "purchased_paid_media",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_join_request",
        "chat_boost",
        "removed_chat_boost",
    }
)

# Form fields whose value is a plain string even if it looks like JSON ("123", "true").
_STRING_PARAMS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "callback_query_id",
        "inline_message_id",
        "url",
        "language_code",
        "description",
        "short_description",
        "name",
        "action",
        "business_connection_id",
        "message_effect_id",
        "title",
        "query",
        "custom_title",
        "secret_token",
        "ip_address",
    }
)

_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
BUTTON_STYLES = ("danger", "success", "primary")  # InlineKeyboardButton.style (Bot API 9.4)
_INLINE_BUTTON_KINDS = (
    "url",
    "callback_data",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
_COMMAND_RE = re.compile(r"(?<![\w/])/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?")
_BOT_COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")

TELEGRAM_LIMITS = TelegramLimits()  # Telegram's published numbers (see fakebot.limits)
MAX_TEXT_LENGTH = 4096
MAX_CALLBACK_DATA_BYTES = 64
MAX_CALLBACK_ANSWER_LENGTH = 200

_NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
_QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
_CONFLICT = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance "
    "is running"
)
_WEBHOOK_ACTIVE = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to "
    "delete the webhook first"
)
_SECRET_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{1,256}")
_WEBHOOK_PORTS = frozenset({80, 88, 443, 8443})
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})

Handler = Callable[[JSONDict], Any]


def _bad(description: str, **parameters: Any) -> ApiError:
    return ApiError(400, f"Bad Request: {description}", parameters or None)


def _forbidden(description: str) -> ApiError:
    return ApiError(403, f"Forbidden: {description}")


class _Signal:
    """Wakes every waiter on :meth:`fire`; waiting never polls."""

    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[None]] = []

    def fire(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def wait(self, timeout: float | None) -> None:
        """Return on the next :meth:`fire` or after ``timeout`` seconds, whichever is first."""
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiter, timeout)


@dataclass
class _Injection:
    method: str  # lower-case
    error: ApiError
    remaining: int
    when: Callable[[JSONDict], bool] | None


@dataclass
class _Fault:
    method: str  # lower-case
    kind: str  # "drop": the connection is cut before an answer; "slow": the answer is late
    seconds: float
    remaining: int
    when: Callable[[JSONDict], bool] | None
    until: float | None = None  # time.monotonic(): every matching call until then (an outage)


@dataclass
class _PendingQuery:
    id: str
    user: SimUser
    message: StoredMessage
    data: str
    created: float
    answer: asyncio.Future[CallbackAnswer]
    record: Press


class FakeTelegram:
    """In-memory Telegram with a Bot API HTTP front end; see ``tests/fakebot/README.md``."""

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
        self._queries: dict[str, _PendingQuery] = {}
        self._query_ids = itertools.count(4_000_000_000_000_000_001)
        self._user_ids = itertools.count(100_001)
        self._group_ids = itertools.count(1)
        self._seq = itertools.count(1)
        self._last_seq = 0
        self._received: Counter[str] = Counter()
        self._injections: list[_Injection] = []
        self._faults: list[_Fault] = []
        self._delays: dict[str, float] = {}
        self._holds: dict[str, asyncio.Event] = {}
        self._changed = _Signal()
        self._chat_signals: dict[int, _Signal] = {}
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

    # ================================================================== test controls

    def inject_error(
        self,
        method: str,
        code: int,
        description: str | None = None,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
        times: int = 1,
        when: Callable[[JSONDict], bool] | None = None,
    ) -> None:
        """Answer the next ``times`` calls of ``method`` (whose params satisfy ``when``) with
        this error instead of executing them.  429 defaults to "Too Many Requests: retry
        after N" with ``parameters.retry_after``."""
        if description is None:
            if code == 429:
                description = f"Too Many Requests: retry after {retry_after or 1}"
            else:
                description = {400: "Bad Request", 403: "Forbidden", 409: "Conflict"}.get(
                    code, "Internal Server Error"
                )
        parameters: JSONDict = {}
        if retry_after is not None or code == 429:
            parameters["retry_after"] = retry_after or 1
        if migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = migrate_to_chat_id
        error = ApiError(code, description, parameters or None)
        self._injections.append(_Injection(method.lower(), error, times, when))

    def enforce_limits(
        self,
        limits: TelegramLimits | None = TELEGRAM_LIMITS,
        *,
        clock: Callable[[], float] | None = None,
    ) -> None:
        """Answer calls over Telegram's flood limits with 429 from now on (``None``: stop).

        Starts from empty windows; earlier :attr:`rate_limit_hits` are forgotten."""
        if limits is None:
            self._limiter = None
        else:
            self._limiter = RateLimiter(limits, clock or time.monotonic)

    @property
    def limits(self) -> TelegramLimits | None:
        """The enforced limits, or None when they are off (the default)."""
        return self._limiter.limits if self._limiter else None

    @property
    def rate_limit_hits(self) -> list[RateLimitHit]:
        """Every 429 the limits caused, oldest first (empty when limits are off)."""
        return self._limiter.hits if self._limiter else []

    def inject_fault(
        self,
        method: str,
        kind: str,
        *,
        seconds: float = 0.0,
        times: int = 1,
        when: Callable[[JSONDict], bool] | None = None,
        during: float | None = None,
    ) -> None:
        """Network trouble on the next ``times`` calls of ``method`` (``"*"``: any method)
        whose params satisfy ``when``: ``"drop"`` cuts the connection before anything is done
        (the client sees a reset, like a proxy or Telegram's front end going away);
        ``"slow"`` answers ``seconds`` late (a client with a shorter timeout gives up, though
        the call is still carried out, as Telegram would). ``during``: on every such call
        for that many seconds from now instead (an outage, or a slow spell; ``times`` is
        then ignored)."""
        if kind not in ("drop", "slow"):
            raise ValueError(f"unknown fault {kind!r}: 'drop' or 'slow'")
        until = None if during is None else time.monotonic() + during
        remaining = 1 if during is not None else times
        self._faults.append(_Fault(method.lower(), kind, seconds, remaining, when, until))

    @property
    def dropped_calls(self) -> list[Call]:
        """Calls whose connection a ``drop`` fault cut (status 0)."""
        return [c for c in self.calls if c.status == 0]

    def set_delay(self, method: str, seconds: float) -> None:
        """Delay every answer to ``method`` by ``seconds`` (0 removes the delay)."""
        if seconds > 0:
            self._delays[method.lower()] = seconds
        else:
            self._delays.pop(method.lower(), None)

    def hold(self, method: str) -> None:
        """Keep every answer to ``method`` back until ``release(method)``: Telegram stuck on it
        for exactly as long as a test needs (a delay is a guess at how long a test's other
        steps take, which a loaded machine can make wrong). Calls are still counted as
        received (``received_count``) when they arrive."""
        self._holds.setdefault(method.lower(), asyncio.Event())

    def release(self, method: str) -> None:
        """Answer the calls ``hold`` kept back, and the next ones at once."""
        held = self._holds.pop(method.lower(), None)
        if held is not None:
            held.set()

    def report_failure(self, reason: str) -> None:
        """Make every pending and future ``wait_for`` fail at once (e.g. the bot died)."""
        self._failure = reason
        self._changed.fire()
        for signal in self._chat_signals.values():
            signal.fire()

    def clear_failure(self) -> None:
        self._failure = None

    # ================================================================== world building

    def add_user(
        self,
        first_name: str,
        language_code: str | None = "en",
        username: str | None = None,
        *,
        last_name: str | None = None,
    ) -> SimUser:
        user = SimUser(
            self,
            next(self._user_ids),
            first_name,
            language_code=language_code,
            username=username,
            last_name=last_name,
        )
        self.users[user.id] = user
        self.chats[user.id] = user.private_chat
        return user

    def add_group(
        self,
        title: str,
        members: Iterable[SimUser],
        admins: Iterable[SimUser] = (),
        *,
        creator: SimUser | None = None,
        bot_status: BotStatus = "member",
        supergroup: bool = False,
        forum: bool = False,
        username: str | None = None,
    ) -> SimGroup:
        """A group that already contains the bot (``bot_status``) and the given users;
        ``admins`` are made members too; the creator defaults to the first admin/member.
        ``forum``: a supergroup with topics (see :meth:`create_topic`)."""
        supergroup = supergroup or forum
        admin_list = list(admins)
        member_list = list(members)
        member_list += [a for a in admin_list if not any(a is m for m in member_list)]
        if creator is None and (admin_list or member_list):
            creator = (admin_list or member_list)[0]
        number = next(self._group_ids)
        chat_id = -(1_001_000_000_000 + number) if supergroup else -(400_000_000 + number)
        group = SimGroup(
            id=chat_id,
            type="supergroup" if supergroup else "group",
            title=title,
            username=username,
            members=member_list,
            admins=admin_list,
            creator=creator,
            bot_status=bot_status,
            is_forum=forum,
        )
        self.chats[group.id] = group
        return group

    def migrate_to_supergroup(self, group: SimGroup) -> SimGroup:
        """Upgrade a basic group: sends migrate_to_chat_id / migrate_from_chat_id messages;
        afterwards sending to the old id fails with 400 + ``migrate_to_chat_id``."""
        if group.type != "group" or group.migrated_to_chat_id is not None:
            raise AssertionError(f"chat {group.id} is not a basic group that can migrate")
        number = next(self._group_ids)
        supergroup = SimGroup(
            id=-(1_001_000_000_000 + number),
            type="supergroup",
            title=group.title,
            members=list(group.members),
            admins=list(group.admins),
            creator=group.creator,
            bot_status=group.bot_status,
            migrated_from_chat_id=group.id,
        )
        self.chats[supergroup.id] = supergroup
        actor = group.creator.to_api() if group.creator else self.bot_user
        self._service_message(group, actor, {"migrate_to_chat_id": supergroup.id})
        group.migrated_to_chat_id = supergroup.id
        self._service_message(supergroup, actor, {"migrate_from_chat_id": group.id})
        return supergroup

    def remove_bot_from(self, group: SimGroup, by: SimUser | None = None) -> None:
        """An admin kicks the bot: ``my_chat_member`` update with status "kicked"."""
        self._set_bot_status(group, "kicked", by)

    def add_bot_to(self, group: SimGroup, by: SimUser, *, as_admin: bool = False) -> None:
        """A user adds the bot: ``my_chat_member`` update (status "member") and a
        ``new_chat_members`` service message."""
        self._set_bot_status(group, "administrator" if as_admin else "member", by)
        self._service_message(group, by.to_api(), {"new_chat_members": [self.bot_user]})

    def user_joins(self, group: SimGroup, user: SimUser) -> StoredMessage:
        group.banned = [b for b in group.banned if b is not user]
        if not group.is_member(user):
            group.members.append(user)
        return self._service_message(group, user.to_api(), {"new_chat_members": [user.to_api()]})

    def ban(self, group: SimGroup, user: SimUser) -> StoredMessage:
        """An admin bans the user: they leave and getChatMember says "kicked"."""
        message = self.user_leaves(group, user)
        group.banned.append(user)
        return message

    def restrict(self, group: SimGroup, user: SimUser) -> None:
        """The user may not write (getChatMember: "restricted", ``is_member`` while in it)."""
        group.restricted.append(user)

    def user_leaves(self, group: SimGroup, user: SimUser) -> StoredMessage:
        group.members = [m for m in group.members if m is not user]
        group.admins = [a for a in group.admins if a is not user]
        return self._service_message(group, user.to_api(), {"left_chat_member": user.to_api()})

    # ================================================================== forum topics

    def create_topic(self, group: SimGroup, name: str, *, by: SimUser | None = None) -> Topic:
        """A member (by default the creator) opens a topic in a forum: a ``forum_topic_created``
        service message, whose id is the topic's ``message_thread_id``."""
        if not group.is_forum:
            raise AssertionError(f"{group.title!r} is not a forum")
        return self._open_topic(group, name, self._actor(group, by))

    def close_topic(self, group: SimGroup, topic: Topic, *, by: SimUser | None = None) -> None:
        """An admin closes a topic: only admins may write in it until it is reopened."""
        self._set_topic_closed(group, topic, self._actor(group, by), True)

    def reopen_topic(self, group: SimGroup, topic: Topic, *, by: SimUser | None = None) -> None:
        self._set_topic_closed(group, topic, self._actor(group, by), False)

    def delete_topic(self, group: SimGroup, topic: Topic) -> None:
        """An admin deletes a topic with all its messages (the bot gets no update)."""
        topic.deleted = True
        for message in group.messages.values():
            if message.is_topic_message and message.thread_id == topic.thread_id:
                message.deleted = True
        self._chat_changed(group)
        self._changed.fire()

    def _actor(self, group: SimGroup, by: SimUser | None) -> JSONDict:
        """Who did something in a group: ``by``, else its creator (else the bot)."""
        actor = by or group.creator
        return actor.to_api() if actor else self.bot_user

    def _open_topic(
        self, group: SimGroup, name: str, sender: JSONDict, icon_color: int = 7322096
    ) -> Topic:
        message_id = group.take_message_id()
        fields = {"forum_topic_created": {"name": name, "icon_color": icon_color}}
        root = StoredMessage(
            chat=group,
            message_id=message_id,
            sender=sender,
            date=int(time.time()),
            raw_text=None,
            text=None,
            extra=fields,
            thread_id=message_id,
            is_topic_message=True,
        )
        topic = Topic(message_id, name, root, icon_color)
        group.topics[message_id] = topic
        self._deliver_service(root)
        return topic

    def _set_topic_closed(
        self, group: SimGroup, topic: Topic, sender: JSONDict, closed: bool
    ) -> None:
        if topic.deleted or group.topics.get(topic.thread_id) is not topic:
            raise AssertionError(f"no topic {topic.thread_id} in {group.title!r}")
        topic.closed = closed
        kind = "forum_topic_closed" if closed else "forum_topic_reopened"
        self._service_message(group, sender, {kind: {}}, topic=topic)

    def set_admin(self, group: SimGroup, user: SimUser, admin: bool = True) -> bool:
        """The group's creator promotes ``user`` to admin (or demotes them). Like Telegram, a
        ``chat_member`` update goes to the bot only when it is an administrator of the group
        and asked for ``chat_member`` in ``allowed_updates``; returns whether it was queued."""
        old = self._user_status(group, user)
        group.admins = [a for a in group.admins if a is not user]
        if admin:
            group.admins.append(user)
            if not group.is_member(user):
                group.members.append(user)
        new = self._user_status(group, user)
        if old == new or group.bot_status != "administrator":
            return False
        actor = group.creator or user
        return self._enqueue(
            "chat_member",
            {
                "chat": group.to_api(),
                "from": actor.to_api(),
                "date": int(time.time()),
                "old_chat_member": self._member(user.to_api(), old),
                "new_chat_member": self._member(user.to_api(), new),
            },
        )

    # ================================================================== user actions

    def user_sends(
        self,
        user: SimUser,
        ref: ChatRef,
        text: str,
        *,
        reply_to: int | None = None,
        topic: Topic | None = None,
    ) -> StoredMessage:
        chat = self.chat(ref)
        if chat.type == "private":
            if chat is not user.private_chat:
                raise AssertionError("a user can only write in their own private chat")
            if user.blocked:
                raise AssertionError(f"{user.first_name} blocked the bot; use start_bot()")
            if not user.started:
                if not text.startswith("/start"):
                    raise AssertionError(f"{user.first_name} has not started the bot yet")
                user.started = True
        else:
            assert isinstance(chat, SimGroup)
            if chat.migrated_to_chat_id is not None:
                raise AssertionError(f"group {chat.id} became {chat.migrated_to_chat_id}")
            if not chat.is_member(user):
                raise AssertionError(f"{user.first_name} is not a member of {chat.title!r}")
        replied = chat.messages.get(reply_to) if reply_to is not None else None
        if reply_to is not None and replied is None:
            raise AssertionError(f"no message {reply_to} in chat {chat.id}")
        thread_id, replied = self._user_thread(user, chat, topic, replied)
        message = StoredMessage(
            chat=chat,
            message_id=chat.take_message_id(),
            sender=user.to_api(),
            date=int(time.time()),
            raw_text=text,
            text=text,
            entities=_command_entities(text),
            reply_to=replied,
            thread_id=thread_id,
            is_topic_message=topic is not None,
        )
        self._store(message)
        message.delivered = self._bot_sees(chat, message) and self._enqueue(
            "message", message.to_api()
        )
        return message

    def add_channel(self, title: str) -> ChatState:
        """A channel (it can post in groups as itself: see :meth:`post_as_chat`)."""
        channel = ChatState(id=-(1_002_000_000_000 + next(self._group_ids)), type="channel")
        channel.title = title
        self.chats[channel.id] = channel
        return channel

    def post_as_chat(
        self, group: SimGroup, text: str, *, channel: ChatState | None = None
    ) -> StoredMessage:
        """A message in ``group`` sent as ``channel`` (``from`` is @Channel_Bot), or by an
        anonymous admin (``channel`` None: ``from`` is @GroupAnonymousBot, ``sender_chat``
        the group), as Telegram shows such messages to bots."""
        sender = CHANNEL_BOT if channel is not None else ANONYMOUS_ADMIN
        message = StoredMessage(
            chat=group,
            message_id=group.take_message_id(),
            sender=dict(sender),
            date=int(time.time()),
            raw_text=text,
            text=text,
            entities=_command_entities(text),
            extra={"sender_chat": (channel or group).to_api()},
        )
        self._store(message)
        message.delivered = self._bot_sees(group, message) and self._enqueue(
            "message", message.to_api()
        )
        return message

    def _user_thread(
        self,
        user: SimUser,
        chat: ChatState,
        topic: Topic | None,
        replied: StoredMessage | None,
    ) -> tuple[int | None, StoredMessage | None]:
        """Where a user's message lands: its thread id and what it replies to. In a topic
        every message replies to the topic's first one unless it replies to another; in other
        supergroups a reply carries the reply chain's id as ``message_thread_id``."""
        if topic is None:
            if chat.is_forum and replied is not None and replied.is_topic_message:
                raise AssertionError("a reply to a message in a topic is sent in that topic")
            if chat.type == "supergroup" and not chat.is_forum and replied is not None:
                return replied.thread_id or replied.message_id, replied
            return None, replied
        assert isinstance(chat, SimGroup)
        if not chat.is_forum or chat.topics.get(topic.thread_id) is not topic or topic.deleted:
            raise AssertionError(f"no topic {topic.thread_id} in chat {chat.id}")
        if topic.closed and not chat.is_admin(user):
            raise AssertionError(f"topic {topic.name!r} is closed: only admins write there")
        if replied is not None and replied.thread_id != topic.thread_id:
            raise AssertionError(f"message {replied.message_id} is not in topic {topic.name!r}")
        return topic.thread_id, replied or topic.root

    def user_starts_bot(self, user: SimUser, payload: str | None) -> StoredMessage:
        if user.blocked:
            user.blocked = False
            self._my_chat_member(user.private_chat, user.to_api(), "kicked", "member")
        user.started = True
        text = "/start" if payload is None else f"/start {payload}"
        return self.user_sends(user, user.private_chat, text)

    def user_blocks_bot(self, user: SimUser) -> None:
        if user.blocked:
            return
        user.blocked = True
        if user.started:
            self._my_chat_member(user.private_chat, user.to_api(), "member", "kicked")

    async def press(
        self,
        user: SimUser,
        ref: ChatRef,
        message_id: int,
        callback_data: str,
        *,
        forged: bool = False,
        timeout: float = 10.0,
    ) -> CallbackAnswer:
        """See :meth:`SimUser.press`."""
        chat = self.chat(ref)
        if isinstance(chat, SimGroup) and not chat.is_member(user):
            raise AssertionError(f"{user.first_name} is not in {chat.title!r}")
        if chat.type == "private" and (chat is not user.private_chat or user.blocked):
            raise AssertionError("a user can only press in their own chat with an unblocked bot")
        message = self.message(chat, message_id)
        if not message.from_bot:
            raise AssertionError(f"message {message_id} in chat {chat.id} is not the bot's")
        if not forged and not message.has_callback_data(callback_data):
            current = [(b.text, b.callback_data) for b in message.buttons]
            raise AssertionError(
                f"no button with callback_data {callback_data!r} on message {message_id} "
                f"in chat {chat.id}; current keyboard: {current}"
            )
        query_id = str(next(self._query_ids))
        record = Press(query_id, user.id, chat.id, message_id, callback_data, time.time())
        query = _PendingQuery(
            id=query_id,
            user=user,
            message=message,
            data=callback_data,
            created=time.monotonic(),
            answer=asyncio.get_running_loop().create_future(),
            record=record,
        )
        self._queries[query.id] = query
        self.press_log.append(record)
        payload = {
            "id": query.id,
            "from": user.to_api(),
            "message": message.to_api(),
            "chat_instance": str(abs(chat.id) * 7919 + 17),
            "data": callback_data,
        }
        if not self._enqueue("callback_query", payload):
            raise AssertionError("callback_query updates are excluded by allowed_updates")
        try:
            return await asyncio.wait_for(asyncio.shield(query.answer), timeout)
        except TimeoutError:
            raise TimeoutError(
                f"the bot did not answer callback query {query.id} ({callback_data!r}) "
                f"within {timeout}s\n{self.describe_recent_calls()}"
            ) from None

    # ================================================================== inspection

    def chat(self, ref: ChatRef) -> ChatState:
        """The chat for an id, a chat object or a user (their private chat)."""
        if isinstance(ref, SimUser):
            return ref.private_chat
        if isinstance(ref, ChatState):
            return ref
        try:
            return self.chats[ref]
        except KeyError:
            raise AssertionError(f"unknown chat {ref}") from None

    def message(self, ref: ChatRef, message_id: int) -> StoredMessage:
        """A current (not deleted) message."""
        chat = self.chat(ref)
        message = chat.messages.get(message_id)
        if message is None or message.deleted:
            raise AssertionError(f"no message {message_id} in chat {chat.id}")
        return message

    def messages(self, ref: ChatRef, *, from_bot: bool | None = None) -> list[StoredMessage]:
        """The chat's current (not deleted) messages, oldest first."""
        return [
            m
            for m in self.chat(ref).messages.values()
            if not m.deleted and (from_bot is None or m.from_bot == from_bot)
        ]

    def last_message(self, ref: ChatRef, *, from_bot: bool = True) -> StoredMessage | None:
        """The newest current text message (from the bot by default)."""
        for message in reversed(self.messages(ref, from_bot=from_bot)):
            if message.text is not None:
                return message
        return None

    def shown_texts(
        self, ref: ChatRef, *, from_bot_only: bool = False, include_buttons: bool = True
    ) -> list[str]:
        """Every text the chat ever displayed: all versions of all messages (deleted ones
        too) and, by default, every button label — for leak checks."""
        return [
            text
            for message in self.chat(ref).messages.values()
            if message.from_bot or not from_bot_only
            for text in message.shown_texts(include_buttons)
        ]

    def calls_to(self, method: str) -> list[Call]:
        name = method.lower()
        return [c for c in self.calls if c.method.lower() == name]

    def failed_calls(self) -> list[Call]:
        return [c for c in self.calls if not c.ok]

    def received_count(self, method: str) -> int:
        """How many requests of ``method`` arrived (counted on arrival, before answering)."""
        return self._received[method.lower()]

    def commands_for(
        self, scope: JSONDict | None = None, language_code: str = ""
    ) -> list[JSONDict] | None:
        """Commands set with setMyCommands for a scope (default scope if None)."""
        return self.commands.get(_commands_key(scope, language_code))

    @property
    def pending_updates(self) -> list[JSONDict]:
        """Queued updates not yet confirmed by the bot (via getUpdates offset)."""
        return list(self._updates)

    def assert_no_unknown_calls(self) -> None:
        if self.unknown_calls or self.internal_errors:
            raise AssertionError(
                f"unsupported calls: {[str(c) for c in self.unknown_calls]}; "
                f"fake server errors: {self.internal_errors}"
            )

    def describe_recent_calls(self, count: int = 15) -> str:
        lines = [str(c) for c in self.calls if c.method != "getUpdates"][-count:]
        return "recent calls (getUpdates omitted):\n  " + "\n  ".join(lines or ["<none>"])

    # ================================================================== waiting

    def mark(self) -> int:
        """The current event number, for ``since=`` of the ``wait_for_*`` helpers: take it
        before an action, so that a reply that comes before the wait starts still counts."""
        return self._last_seq

    async def wait_for(
        self, predicate: Callable[[], T | None], timeout: float = 5.0, *, what: str | None = None
    ) -> T:
        """Return the first truthy value of ``predicate()``, re-evaluated on every recorded
        call and state change; TimeoutError (with the recent calls) after ``timeout``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if self._failure is not None:
                raise RuntimeError(f"{self._failure}\n{self.describe_recent_calls()}")
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                label = what or getattr(predicate, "__name__", repr(predicate))
                raise TimeoutError(f"waited {timeout}s for {label}\n{self.describe_recent_calls()}")
            await self._changed.wait(remaining)

    def chat_seq(self, ref: ChatRef) -> int:
        """How many times a message in the chat changed (sent, edited, deleted) so far."""
        return self._chat_seq.get(self.chat(ref).id, 0)

    async def wait_chat(self, ref: ChatRef, since: int, timeout: float) -> bool:
        """Wait until the chat's :meth:`chat_seq` passes ``since``; False after ``timeout``
        (or when the server stops or fails). Woken only by that chat: cheap to use from many
        simulated people at once."""
        chat_id = self.chat(ref).id
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._chat_seq.get(chat_id, 0) <= since:
            remaining = deadline - loop.time()
            if remaining <= 0 or self._closing or self._failure is not None:
                return False
            await self._chat_signals.setdefault(chat_id, _Signal()).wait(remaining)
        return True

    async def wait_for_message(
        self,
        ref: ChatRef,
        predicate: Callable[[StoredMessage], bool] | None = None,
        *,
        timeout: float = 5.0,
        new: bool = True,
        since: int | None = None,
    ) -> StoredMessage:
        """Wait for a bot message in the chat matching ``predicate``; newest match wins.

        Only messages sent or edited after ``since`` (a :meth:`mark`) count; without it,
        ``new`` means "after this call" and ``new=False`` accepts any current message.
        """
        chat = self.chat(ref)
        if since is None:
            since = self._last_seq if new else 0

        def find() -> StoredMessage | None:
            for message in reversed(list(chat.messages.values())):
                if (
                    message.from_bot
                    and not message.deleted
                    and message.changed_seq > since
                    and (predicate is None or predicate(message))
                ):
                    return message
            return None

        return await self.wait_for(find, timeout, what=f"a bot message in chat {chat.id}")

    async def wait_for_call(
        self,
        method: str,
        predicate: Callable[[Call], bool] | None = None,
        *,
        timeout: float = 5.0,
        new: bool = True,
        since: int | None = None,
    ) -> Call:
        """Wait for an answered call of ``method`` made after ``since`` (a :meth:`mark`), or
        after this call if ``new``, or at any time."""
        name = method.lower()
        if since is None:
            since = self._last_seq if new else 0

        def find() -> Call | None:
            for call in self.calls:
                if (
                    call.seq > since
                    and call.method.lower() == name
                    and (predicate is None or predicate(call))
                ):
                    return call
            return None

        return await self.wait_for(find, timeout, what=f"a {method} call")

    # ================================================================== HTTP front end

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        canonical, handler = self._handlers.get(method.lower(), (method, None))
        params = await _read_params(request)
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

    def _take_injection(self, method: str, params: JSONDict) -> ApiError | None:
        for injection in self._injections:
            if (
                injection.method == method.lower()
                and injection.remaining > 0
                and (injection.when is None or injection.when(params))
            ):
                injection.remaining -= 1
                return injection.error
        return None

    def _take_fault(self, method: str, params: JSONDict) -> _Fault | None:
        now = time.monotonic()
        for fault in self._faults:
            if (
                fault.method in (method.lower(), "*")
                and fault.remaining > 0
                and (fault.until is None or now < fault.until)
                and (fault.when is None or fault.when(params))
            ):
                if fault.until is None:
                    fault.remaining -= 1
                return fault
        return None

    def _next_seq(self) -> int:
        self._last_seq = next(self._seq)
        return self._last_seq

    # ================================================================== updates

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
        command = _COMMAND_RE.match(message.text)
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

    # ================================================================== helpers for methods

    def _lookup_chat(self, params: JSONDict) -> ChatState:
        chat_id = params.get("chat_id")
        if chat_id is None or chat_id == "":
            raise _bad("chat_id is empty")
        if isinstance(chat_id, str) and chat_id.startswith("@"):
            for chat in self.chats.values():
                if chat.type != "private" and chat.username == chat_id[1:]:
                    return chat
            raise _bad("chat not found")
        try:
            return self.chats[int(chat_id)]
        except (KeyError, ValueError, TypeError):
            raise _bad("chat not found") from None

    def _check_bot_in_chat(self, chat: ChatState, *, private_checks: bool = True) -> None:
        """Raise the error Telegram gives when the bot may not act in ``chat``."""
        if isinstance(chat, SimGroup):
            if chat.migrated_to_chat_id is not None:
                raise _bad(
                    "group chat was upgraded to a supergroup chat",
                    migrate_to_chat_id=chat.migrated_to_chat_id,
                )
            kind = "supergroup chat" if chat.type == "supergroup" else "group chat"
            if chat.bot_status == "kicked":
                raise _forbidden(f"bot was kicked from the {kind}")
            if chat.bot_status == "left":
                raise _forbidden(f"bot is not a member of the {kind}")
        elif private_checks:
            user = self.users[chat.id]
            if user.blocked:
                raise _forbidden("bot was blocked by the user")
            if not user.started:
                raise _forbidden("bot can't initiate conversation with a user")

    def _writable_chat(self, params: JSONDict) -> ChatState:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat)
        return chat

    def _bot_message(self, chat: ChatState, params: JSONDict, action: str) -> StoredMessage:
        if params.get("inline_message_id"):
            raise _bad("MESSAGE_ID_INVALID")  # inline messages are not simulated
        message_id = _int_param(params, "message_id")
        message = chat.messages.get(message_id)
        if message is None or message.deleted:
            raise _bad(f"message to {action} not found")
        return message

    def _format(self, params: JSONDict) -> FormattedText:
        text = params.get("text")
        if not isinstance(text, str) or not text:
            raise _bad("message text is empty")
        parse_mode = params.get("parse_mode")
        entities = params.get("entities")
        try:
            formatted = format_text(
                text,
                parse_mode if isinstance(parse_mode, str) else None,
                entities if isinstance(entities, list) else None,
            )
        except ParseError as exc:
            raise _bad(f"can't parse entities: {exc}") from None
        if not formatted.text:
            raise _bad("message text is empty")
        if len(formatted.text) > MAX_TEXT_LENGTH:
            raise _bad("message is too long")
        return formatted

    def _member(self, user: JSONDict, status: str, *, is_member: bool = True) -> JSONDict:
        """A ChatMember object as PTB expects it for ``status``."""
        member: JSONDict = {"status": status, "user": user}
        if status == "creator":
            member["is_anonymous"] = False
        elif status == "administrator":
            member.update(
                can_be_edited=False,
                is_anonymous=False,
                can_manage_chat=True,
                can_delete_messages=True,
                can_manage_video_chats=True,
                can_restrict_members=True,
                can_promote_members=False,
                can_change_info=True,
                can_invite_users=True,
                can_post_stories=False,
                can_edit_stories=False,
                can_delete_stories=False,
                can_pin_messages=True,
            )
        elif status == "kicked":
            member["until_date"] = 0
        elif status == "restricted":
            member.update(
                is_member=is_member,
                until_date=0,
                can_send_messages=False,
                can_send_audios=False,
                can_send_documents=False,
                can_send_photos=False,
                can_send_videos=False,
                can_send_video_notes=False,
                can_send_voice_notes=False,
                can_send_polls=False,
                can_send_other_messages=False,
                can_add_web_page_previews=False,
                can_change_info=False,
                can_invite_users=False,
                can_pin_messages=False,
                can_manage_topics=False,
                can_edit_tag=False,
                can_react_to_messages=False,
            )
        return member

    def _user_status(self, chat: SimGroup, user: SimUser) -> str:
        if user is chat.creator:
            return "creator"
        if chat.is_admin(user):
            return "administrator"
        if any(b is user for b in chat.banned):
            return "kicked"
        if any(r is user for r in chat.restricted):
            return "restricted"
        return "member" if chat.is_member(user) else "left"

    # ================================================================== Bot API methods
    # Each api_<name> takes the decoded parameters and returns the "result" or raises.

    def api_getMe(self, params: JSONDict) -> JSONDict:
        return {
            **self.bot_user,
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def api_logOut(self, params: JSONDict) -> bool:
        return True

    def api_close(self, params: JSONDict) -> bool:
        return True

    async def api_deleteWebhook(self, params: JSONDict) -> bool:
        await self._drop_webhook()
        if params.get("drop_pending_updates") is True:
            self._updates.clear()
        return True

    async def api_setWebhook(self, params: JSONDict) -> bool:
        url = str(params.get("url") or "")
        if not url:
            return await self.api_deleteWebhook(params)
        parts = urlsplit(url)
        # Telegram wants HTTPS on ports 80/88/443/8443; the fake also takes plain HTTP to a
        # loopback address (any port), so tests need no certificates.
        loopback = parts.hostname in _LOOPBACK
        if parts.scheme != "https" and not (loopback and parts.scheme == "http"):
            raise _bad("bad webhook: An HTTPS URL must be provided for webhook")
        if not loopback and (parts.port or 443) not in _WEBHOOK_PORTS:
            raise _bad("bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443")
        secret = params.get("secret_token")
        if secret is not None and not _SECRET_TOKEN_RE.fullmatch(str(secret)):
            raise _bad("secret token contains unallowed characters")
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else DEFAULT_ALLOWED_UPDATES
        max_connections = min(max(int(params.get("max_connections") or 40), 1), 100)
        hook, token = self._webhook, None if secret is None else str(secret)
        drop = params.get("drop_pending_updates") is True
        same = (url, token, max_connections)
        if (
            hook is not None
            and not drop
            and (hook.url, hook.secret_token, hook.max_connections) == same
        ):
            # Telegram: "Webhook is already set"; the posts under way go on, none twice
            # (each worker of several sets the same webhook when it starts).
            return True
        await self._drop_webhook()
        if drop:
            self._updates.clear()
        self._poll_generation += 1  # a long poll in progress ends with a conflict
        self._webhook = WebhookSender(
            url,
            token,
            max_connections,
            pending=lambda: self._updates,
            confirm=self._delivered,
            wait_changed=self._changed.wait,
            record=self._delivery_tried,
            retry=self.webhook_retry,
            posting=lambda update: self._taken([update]),
        )
        self._webhook.start()
        self._changed.fire()
        return True

    def api_getWebhookInfo(self, params: JSONDict) -> JSONDict:
        hook = self._webhook
        info: JSONDict = {
            "url": "" if hook is None else hook.url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
        if hook is not None:
            info["max_connections"] = hook.max_connections
            if self._allowed_updates != DEFAULT_ALLOWED_UPDATES:
                info["allowed_updates"] = sorted(self._allowed_updates)
            if hook.last_error_date is not None:
                info["last_error_date"] = hook.last_error_date
                info["last_error_message"] = hook.last_error_message
        return info

    @property
    def webhook_url(self) -> str | None:
        """The URL set with setWebhook, None while the bot polls."""
        return None if self._webhook is None else self._webhook.url

    async def _drop_webhook(self) -> None:
        hook, self._webhook = self._webhook, None
        if hook is not None:
            await hook.stop()

    def _delivery_tried(self, delivery: Delivery) -> None:
        self.webhook_deliveries.append(delivery)
        self._changed.fire()

    def _taken(self, updates: list[JSONDict]) -> None:
        """Note when the bot first got each press (what it then took is its own time)."""
        now = time.time()
        for update in updates:
            query = self._queries.get(update.get("callback_query", {}).get("id", ""))
            if query is not None and query.record.taken_at is None:
                query.record.taken_at = now

    def _delivered(self, update: JSONDict) -> None:
        self._updates = [u for u in self._updates if u["update_id"] != update["update_id"]]
        self._changed.fire()

    async def api_getUpdates(self, params: JSONDict) -> list[JSONDict]:
        if self._webhook is not None:
            raise ApiError(409, _WEBHOOK_ACTIVE)
        offset = int(params.get("offset") or 0)
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        timeout = max(float(params.get("timeout") or 0), 0.0)
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else DEFAULT_ALLOWED_UPDATES
        if offset > 0:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        elif offset < 0:
            self._updates = self._updates[offset:]
        self._poll_generation += 1
        generation = self._poll_generation
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(409, _WEBHOOK_ACTIVE if self._webhook else _CONFLICT)
            if self._updates or self._closing:
                taken = self._updates[:limit]
                self._taken(taken)
                return taken
            remaining = deadline - loop.time()
            if remaining <= 0:
                return []
            await self._changed.wait(remaining)

    # ------------------------------------------------------------------ commands & profile

    def api_setMyCommands(self, params: JSONDict) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise _bad("can't parse commands JSON object")
        for command in commands:
            name = command.get("command") if isinstance(command, dict) else None
            description = command.get("description") if isinstance(command, dict) else None
            if not isinstance(name, str) or not _BOT_COMMAND_RE.fullmatch(name):
                raise _bad("BOT_COMMAND_INVALID")
            if not isinstance(description, str) or not 1 <= len(description) <= 256:
                raise _bad("BOT_COMMAND_DESCRIPTION_INVALID")
        key = _commands_key(params.get("scope"), str(params.get("language_code") or ""))
        self.commands[key] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        return True

    def api_getMyCommands(self, params: JSONDict) -> list[JSONDict]:
        key = _commands_key(params.get("scope"), str(params.get("language_code") or ""))
        return self.commands.get(key, [])

    def api_deleteMyCommands(self, params: JSONDict) -> bool:
        key = _commands_key(params.get("scope"), str(params.get("language_code") or ""))
        self.commands.pop(key, None)
        return True

    def _set_bot_text(self, params: JSONDict, field: str, limit: int) -> bool:
        value = str(params.get(field) or "")
        if len(value) > limit:
            raise _bad(f"{field.upper()}_INVALID")
        language = str(params.get("language_code") or "")
        self.bot_texts[(field, language)] = value
        return True

    def _get_bot_text(self, params: JSONDict, field: str) -> JSONDict:
        language = str(params.get("language_code") or "")
        return {field: self.bot_texts.get((field, language), "")}

    def api_setMyDescription(self, params: JSONDict) -> bool:
        return self._set_bot_text(params, "description", 512)

    def api_getMyDescription(self, params: JSONDict) -> JSONDict:
        return self._get_bot_text(params, "description")

    def api_setMyShortDescription(self, params: JSONDict) -> bool:
        return self._set_bot_text(params, "short_description", 120)

    def api_getMyShortDescription(self, params: JSONDict) -> JSONDict:
        return self._get_bot_text(params, "short_description")

    def api_setMyName(self, params: JSONDict) -> bool:
        return self._set_bot_text(params, "name", 64)

    def api_getMyName(self, params: JSONDict) -> JSONDict:
        return self._get_bot_text(params, "name")

    # ------------------------------------------------------------------ messages

    def api_sendMessage(self, params: JSONDict) -> JSONDict:
        chat = self._writable_chat(params)
        formatted = self._format(params)
        markup = _validate_markup(
            params.get("reply_markup"), inline_only=False, private=chat.type == "private"
        )
        reply_to = self._reply_target(chat, params)
        thread_id, in_topic, reply_to = self._bot_thread(chat, params, reply_to)
        extra: JSONDict = {}
        if isinstance(params.get("link_preview_options"), dict):
            extra["link_preview_options"] = params["link_preview_options"]
        options: JSONDict = {
            key: params[key]
            for key in (
                "parse_mode",
                "disable_notification",
                "protect_content",
                "message_thread_id",
            )
            if key in params
        }
        message = StoredMessage(
            chat=chat,
            message_id=chat.take_message_id(),
            sender=self.bot_user,
            date=int(time.time()),
            raw_text=params["text"],
            text=formatted.text,
            entities=formatted.entities,
            reply_markup=markup,
            reply_to=reply_to,
            extra=extra,
            options=options,
            thread_id=thread_id,
            is_topic_message=in_topic,
        )
        self._store(message)
        return message.to_api()

    def _bot_thread(
        self, chat: ChatState, params: JSONDict, reply_to: StoredMessage | None
    ) -> tuple[int | None, bool, StoredMessage | None]:
        """Where a message the bot sends lands: (thread id, in a topic, what it replies to).
        In a forum, without ``message_thread_id`` it goes to General (or the replied message's
        topic). Outside forums a thread id is refused (stricter than Telegram, which accepts a
        supergroup's reply thread: the bot never needs one)."""
        given = params.get("message_thread_id") not in (None, "")
        if isinstance(chat, SimGroup) and chat.is_forum:
            if given:
                thread: int | None = _int_param(params, "message_thread_id")
            else:
                in_one = reply_to is not None and reply_to.is_topic_message
                thread = reply_to.thread_id if reply_to is not None and in_one else None
            if thread is None:
                return None, False, reply_to
            topic = chat.topics.get(thread)
            if topic is None or topic.deleted:
                raise _bad("message thread not found")
            if topic.closed and chat.bot_status != "administrator":
                raise _bad("TOPIC_CLOSED")
            return thread, True, reply_to or topic.root
        if given:
            raise _bad("message thread not found")
        if chat.type == "supergroup" and reply_to is not None:
            return reply_to.thread_id or reply_to.message_id, False, reply_to
        return None, False, reply_to

    def _reply_target(self, chat: ChatState, params: JSONDict) -> StoredMessage | None:
        reply = params.get("reply_parameters")
        if not isinstance(reply, dict):
            if "reply_to_message_id" not in params:
                return None
            reply = {
                "message_id": params["reply_to_message_id"],
                "allow_sending_without_reply": params.get("allow_sending_without_reply"),
            }
        target_chat = chat
        if reply.get("chat_id") not in (None, chat.id):
            target_chat = self._lookup_chat({"chat_id": reply["chat_id"]})
        target = target_chat.messages.get(int(reply.get("message_id") or 0))
        if target is None or target.deleted:
            if reply.get("allow_sending_without_reply"):
                return None
            raise _bad("message to be replied not found")
        return target

    def api_editMessageText(self, params: JSONDict) -> JSONDict:
        chat = self._writable_chat(params)
        message = self._bot_message(chat, params, "edit")
        if not message.from_bot:
            raise _bad("message can't be edited")
        if message.text is None:
            raise _bad("there is no text in the message to edit")
        formatted = self._format(params)
        # Telegram drops the inline keyboard when an edit does not repeat it.
        markup = _validate_markup(
            params.get("reply_markup"), inline_only=True, private=chat.type == "private"
        )
        if (
            formatted.text == message.text
            and formatted.entities == message.entities
            and markup == message.reply_markup
        ):
            raise _bad(_NOT_MODIFIED)
        message.raw_text = params["text"]
        message.text = formatted.text
        message.entities = formatted.entities
        message.reply_markup = markup
        if "parse_mode" in params:
            message.options["parse_mode"] = params["parse_mode"]
        message.edit_date = int(time.time())
        self._touch(message)
        return message.to_api()

    def api_editMessageReplyMarkup(self, params: JSONDict) -> JSONDict:
        chat = self._writable_chat(params)
        message = self._bot_message(chat, params, "edit")
        if not message.from_bot:
            raise _bad("message can't be edited")
        markup = _validate_markup(
            params.get("reply_markup"), inline_only=True, private=chat.type == "private"
        )
        if markup == message.reply_markup:
            raise _bad(_NOT_MODIFIED)
        message.reply_markup = markup
        message.edit_date = int(time.time())
        self._touch(message)
        return message.to_api()

    def api_deleteMessage(self, params: JSONDict) -> bool:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        message = self._bot_message(chat, params, "delete")
        self._delete(chat, message)
        return True

    def api_deleteMessages(self, params: JSONDict) -> bool:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        ids = params.get("message_ids")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise _bad("message_ids is empty")
        for message_id in ids:
            message = chat.messages.get(int(message_id))
            if message is not None and not message.deleted:
                self._delete(chat, message)
        return True

    def _delete(self, chat: ChatState, message: StoredMessage) -> None:
        if (
            isinstance(chat, SimGroup)
            and not message.from_bot
            and chat.bot_status != "administrator"
        ):
            raise _bad("message can't be deleted")
        message.deleted = True
        if message.message_id in chat.pinned:
            chat.pinned.remove(message.message_id)
        self._chat_changed(chat)
        self._changed.fire()

    def api_answerCallbackQuery(self, params: JSONDict) -> bool:
        query_id = str(params.get("callback_query_id") or "")
        query = self._queries.get(query_id)
        too_old = query is not None and (time.monotonic() - query.created > self.callback_query_ttl)
        if query is None or query.answer.done() or too_old:
            raise ApiError(400, _QUERY_TOO_OLD)
        text = params.get("text")
        if isinstance(text, str) and len(text) > MAX_CALLBACK_ANSWER_LENGTH:
            raise _bad("MESSAGE_TOO_LONG")
        answer = CallbackAnswer(
            query_id=query_id,
            text=text if isinstance(text, str) and text else None,
            show_alert=bool(params.get("show_alert")),
            url=params.get("url") if isinstance(params.get("url"), str) else None,
            cache_time=int(params.get("cache_time") or 0),
        )
        self.callback_answers.append(answer)
        query.record.answered_at = time.time()
        query.record.answer = answer
        query.answer.set_result(answer)
        return True

    # ------------------------------------------------------------------ chats

    def api_createForumTopic(self, params: JSONDict) -> JSONDict:
        chat = self._forum(params)
        name = params.get("name")
        if not isinstance(name, str) or not name:
            raise _bad("TOPIC_TITLE_EMPTY")
        color = params.get("icon_color")
        icon_color = 7322096 if color in (None, "") else _int_param(params, "icon_color")
        return self._open_topic(chat, name, self.bot_user, icon_color).to_api()

    def api_closeForumTopic(self, params: JSONDict) -> bool:
        return self._close_forum_topic(params, closed=True)

    def api_reopenForumTopic(self, params: JSONDict) -> bool:
        return self._close_forum_topic(params, closed=False)

    def api_deleteForumTopic(self, params: JSONDict) -> bool:
        chat, topic = self._managed_topic(params)
        self.delete_topic(chat, topic)
        return True

    def _close_forum_topic(self, params: JSONDict, *, closed: bool) -> bool:
        chat, topic = self._managed_topic(params)
        if topic.closed == closed:
            raise _bad("TOPIC_NOT_MODIFIED")
        self._set_topic_closed(chat, topic, self.bot_user, closed)
        return True

    def _forum(self, params: JSONDict) -> SimGroup:
        """A forum the bot may manage topics in (it must be an admin)."""
        chat = self._writable_chat(params)
        if not isinstance(chat, SimGroup) or not chat.is_forum:
            raise _bad("the chat is not a forum")
        if chat.bot_status != "administrator":
            raise _bad("not enough rights to manage topics")
        return chat

    def _managed_topic(self, params: JSONDict) -> tuple[SimGroup, Topic]:
        chat = self._forum(params)
        topic = chat.topics.get(_int_param(params, "message_thread_id"))
        if topic is None or topic.deleted:
            raise _bad("message thread not found")
        return chat, topic

    def api_getChat(self, params: JSONDict) -> JSONDict:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        info: JSONDict = {
            **chat.to_api(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": True,
                "limited_gifts": True,
                "unique_gifts": True,
                "premium_subscription": True,
                "gifts_from_channels": True,
            },
        }
        if isinstance(chat, SimGroup):
            info["permissions"] = {"can_send_messages": True, "can_invite_users": True}
            if chat.migrated_from_chat_id is not None:
                info["migrated_from_chat_id"] = chat.migrated_from_chat_id
        if chat.pinned:
            info["pinned_message"] = chat.messages[chat.pinned[-1]].to_api()
        return info

    def api_getChatMember(self, params: JSONDict) -> JSONDict:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        user_id = _int_param(params, "user_id")
        if user_id == BOT_ID:
            bot_status = chat.bot_status if isinstance(chat, SimGroup) else "member"
            return self._member(self.bot_user, bot_status)
        user = self.users.get(user_id)
        if user is None or (chat.type == "private" and chat.id != user_id):
            raise _bad("user not found")
        if not isinstance(chat, SimGroup):
            return self._member(user.to_api(), "member")
        status = self._user_status(chat, user)
        return self._member(user.to_api(), status, is_member=chat.is_member(user))

    def api_getChatAdministrators(self, params: JSONDict) -> list[JSONDict]:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        if not isinstance(chat, SimGroup):
            raise _bad("there are no administrators in the private chat")
        admins: list[JSONDict] = []
        if chat.creator is not None:
            admins.append(self._member(chat.creator.to_api(), "creator"))
        admins += [
            self._member(a.to_api(), "administrator") for a in chat.admins if a is not chat.creator
        ]
        if chat.bot_status == "administrator":
            admins.append(self._member(self.bot_user, "administrator"))
        return admins

    def api_getChatMemberCount(self, params: JSONDict) -> int:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        if not isinstance(chat, SimGroup):
            return 2
        return len(chat.members) + (1 if chat.bot_present else 0)

    def api_leaveChat(self, params: JSONDict) -> bool:
        chat = self._lookup_chat(params)
        if not isinstance(chat, SimGroup):
            raise _bad("chat member status can't be changed in private chats")
        self._check_bot_in_chat(chat)
        self._my_chat_member(chat, self.bot_user, chat.bot_status, "left")
        chat.bot_status = "left"
        return True

    def api_sendChatAction(self, params: JSONDict) -> bool:
        self._writable_chat(params)
        if params.get("action") not in _CHAT_ACTIONS:
            raise _bad("wrong parameter action in request")
        return True

    def api_pinChatMessage(self, params: JSONDict) -> bool:
        chat = self._writable_chat(params)
        if isinstance(chat, SimGroup) and chat.bot_status != "administrator":
            raise _bad("not enough rights to manage pinned messages in the chat")
        message = self._bot_message(chat, params, "pin")
        if message.message_id in chat.pinned:
            chat.pinned.remove(message.message_id)
        chat.pinned.append(message.message_id)
        self._changed.fire()
        return True

    def api_unpinChatMessage(self, params: JSONDict) -> bool:
        chat = self._writable_chat(params)
        if isinstance(chat, SimGroup) and chat.bot_status != "administrator":
            raise _bad("not enough rights to manage pinned messages in the chat")
        if params.get("message_id") is not None:
            message_id = _int_param(params, "message_id")
            if message_id in chat.pinned:
                chat.pinned.remove(message_id)
        elif chat.pinned:
            chat.pinned.pop()
        self._changed.fire()
        return True

    def api_unpinAllChatMessages(self, params: JSONDict) -> bool:
        chat = self._writable_chat(params)
        if isinstance(chat, SimGroup) and chat.bot_status != "administrator":
            raise _bad("not enough rights to manage pinned messages in the chat")
        chat.pinned.clear()
        self._changed.fire()
        return True


# ====================================================================== module helpers


async def _read_params(request: web.Request) -> JSONDict:
    """Decode a request the way Telegram does: query string, urlencoded or multipart form
    (non-string values JSON-encoded, as PTB's RequestData sends them), or a JSON body."""
    params: JSONDict = {key: _decode_field(key, value) for key, value in request.query.items()}
    if request.content_type == "application/json":
        body = await request.json()
        if isinstance(body, dict):
            params.update(body)
    elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        form = await request.post()
        for key, value in form.items():
            if isinstance(value, web.FileField):
                params[key] = {"filename": value.filename, "size": len(value.file.read())}
            else:
                params[key] = _decode_field(key, str(value))
    return params


def _decode_field(key: str, value: str) -> Any:
    if key in _STRING_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _int_param(params: JSONDict, name: str) -> int:
    value = params.get(name)
    if value is None or value == "":
        raise _bad(f"{name} is empty")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise _bad(f"invalid {name} specified") from None


def _commands_key(scope: Any, language_code: str) -> tuple[str, str]:
    if not isinstance(scope, dict) or not scope:
        scope = {"type": "default"}
    return json.dumps(scope, sort_keys=True), language_code


def _command_entities(text: str) -> tuple[JSONDict, ...]:
    return tuple(
        {
            "type": "bot_command",
            "offset": utf16_len(text[: match.start()]),
            "length": utf16_len(match.group(0)),
        }
        for match in _COMMAND_RE.finditer(text)
    )


def _validate_web_app(web_app: Any, *, private: bool) -> None:
    if not private:
        raise _bad("BUTTON_TYPE_INVALID")
    url = web_app.get("url") if isinstance(web_app, dict) else None
    parts = urlsplit(url) if isinstance(url, str) else None
    https = parts is not None and parts.scheme == "https" and bool(parts.hostname)
    local = parts is not None and parts.scheme == "http" and parts.hostname in _LOOPBACK
    if not (https or local):
        raise _bad(
            f"inline keyboard button Web App URL '{url}' is invalid: Only HTTPS links are allowed"
        )


def _validate_markup(markup: Any, *, inline_only: bool, private: bool) -> JSONDict | None:
    """Check a reply_markup like Telegram; an empty inline keyboard means none. ``web_app``
    buttons are for private chats only and open HTTPS pages only (plain http on loopback is
    let through, for tests that serve the page themselves)."""
    if markup is None or markup == "":
        return None
    if not isinstance(markup, dict):
        raise _bad("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        if inline_only:
            raise _bad("inline keyboard expected")
        return dict(markup)
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise _bad('can\'t parse inline keyboard button: field "inline_keyboard" must be an Array')
    total = 0
    for row in rows:
        for button in row:
            total += 1
            if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                raise _bad(
                    'can\'t parse inline keyboard button: Field "text" must be of type String'
                )
            style = button.get("style")
            if style is not None and style not in BUTTON_STYLES:
                # Bot API 9.4: "Must be one of “danger” (red), “success” (green) or
                # “primary” (blue)" (the description is ours; Telegram's wording may differ).
                raise _bad(f"can't parse inline keyboard button: unknown button style {style!r}")
            kinds = [kind for kind in _INLINE_BUTTON_KINDS if kind in button]
            if len(kinds) != 1:
                raise _bad(
                    "can't parse inline keyboard button: Text buttons are unallowed in the "
                    "inline keyboard"
                )
            if "callback_data" in button:
                data = button["callback_data"]
                if (
                    not isinstance(data, str)
                    or not 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES
                ):
                    raise _bad("BUTTON_DATA_INVALID")
            if "web_app" in button:
                _validate_web_app(button["web_app"], private=private)
            if "url" in button and not re.match(r"(https?|tg)://\S+$", str(button["url"])):
                raise _bad(
                    f"inline keyboard button URL '{button['url']}' is invalid: Wrong HTTP URL"
                )
    if total > 100:
        raise _bad("reply markup is too long")
    if total == 0:
        return None
    return {"inline_keyboard": rows}
