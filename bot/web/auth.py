"""Telegram's Mini App ``initData``: checked the way Telegram specifies, or refused.

The data-check-string is every received field but ``hash``, as ``key=value``, sorted by key,
joined by newlines; the secret key is HMAC-SHA256 of the bot token keyed with "WebAppData";
the hash is the hex HMAC-SHA256 of the data-check-string under that key. ``auth_date`` (epoch
seconds) must be at most ``max_age`` old, so a leaked ``initData`` stops working.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl

MAX_AGE = 3600  # seconds: an hour, as the issue asks
MAX_LENGTH = 4096  # Telegram's initData is far shorter; anything longer is not Telegram's


class InitDataError(ValueError):
    """The ``initData`` is missing, malformed, forged or too old."""


@dataclass(frozen=True)
class WebUser:
    """The Telegram user an ``initData`` vouches for."""

    user_id: int
    first_name: str
    username: str | None
    language_code: str | None
    start_param: str | None
    auth_date: int


def secret_key(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def sign(fields: dict[str, str], token: str) -> str:
    """The ``hash`` Telegram puts on these fields (tests use it to build valid data)."""
    check = data_check_string(fields).encode()
    return hmac.new(secret_key(token), check, hashlib.sha256).hexdigest()


def check_init_data(
    raw: str | None, token: str, *, now: float | None = None, max_age: int = MAX_AGE
) -> WebUser:
    """The user behind a raw ``initData`` query string; raises InitDataError otherwise."""
    if not raw:
        raise InitDataError("no initData")
    if len(raw) > MAX_LENGTH:
        raise InitDataError("initData too long")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("initData is not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataError("a field is repeated")
    given = fields.get("hash", "")
    # As bytes: a forged hash may hold any characters (compare_digest refuses non-ASCII str).
    if not hmac.compare_digest(sign(fields, token).encode(), given.encode()):
        raise InitDataError("bad hash")
    try:
        auth_date = int(fields.get("auth_date", ""))
    except ValueError:
        raise InitDataError("no auth_date") from None
    age = (time.time() if now is None else now) - auth_date
    if age > max_age:
        raise InitDataError("initData is too old")
    if age < -60:  # a clock a little ahead is fine; data from the future is not
        raise InitDataError("auth_date is in the future")
    return _user(fields, auth_date)


def _user(fields: dict[str, str], auth_date: int) -> WebUser:
    try:
        user = json.loads(fields.get("user", ""))
    except ValueError:
        raise InitDataError("no user") from None
    if not isinstance(user, dict) or not isinstance(user.get("id"), int):
        raise InitDataError("no user id")
    username, language = user.get("username"), user.get("language_code")
    return WebUser(
        user_id=user["id"],
        first_name=str(user.get("first_name") or ""),
        username=username if isinstance(username, str) else None,
        language_code=language if isinstance(language, str) else None,
        start_param=fields.get("start_param"),
        auth_date=auth_date,
    )
