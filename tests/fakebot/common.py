"""What the fake Bot API's modules share: the bot's identity, errors in Telegram's wording,
parameter decoding and a wake-up signal."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Callable
from typing import Any

from aiohttp import web

from .formatting import utf16_len
from .models import ApiError, JSONDict

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


COMMAND_RE = re.compile(r"(?<![\w/])/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?")


LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


Handler = Callable[[JSONDict], Any]


def bad(description: str, **parameters: Any) -> ApiError:
    return ApiError(400, f"Bad Request: {description}", parameters or None)


def forbidden(description: str) -> ApiError:
    return ApiError(403, f"Forbidden: {description}")


class Signal:
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


async def read_params(request: web.Request) -> JSONDict:
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


def int_param(params: JSONDict, name: str) -> int:
    value = params.get(name)
    if value is None or value == "":
        raise bad(f"{name} is empty")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise bad(f"invalid {name} specified") from None


def commands_key(scope: Any, language_code: str) -> tuple[str, str]:
    if not isinstance(scope, dict) or not scope:
        scope = {"type": "default"}
    return json.dumps(scope, sort_keys=True), language_code


def command_entities(text: str) -> tuple[JSONDict, ...]:
    return tuple(
        {
            "type": "bot_command",
            "offset": utf16_len(text[: match.start()]),
            "length": utf16_len(match.group(0)),
        }
        for match in COMMAND_RE.finditer(text)
    )
