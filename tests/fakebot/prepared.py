"""``savePreparedInlineMessage`` (Bot API 8.0) as Telegram documents it.

The bot stores a message that a Mini App's user may then send to a chat they pick
(``Telegram.WebApp.shareMessage``): ``user_id`` (the user who may send it) and ``result``
(an ``InlineQueryResult``) are required; ``allow_user_chats``, ``allow_bot_chats``,
``allow_group_chats`` and ``allow_channel_chats`` say where. The answer is a
``PreparedInlineMessage``: ``id`` (a string) and ``expiration_date`` (Unix time). The fake
checks what Telegram checks that the tests can hit: an unknown user, a result that is not an
object, an unknown type, a missing or too long ``id``, an article without a ``title`` or a
``message_text``, a text over 4096 characters.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

JSONDict = dict[str, Any]

EXPIRES_AFTER = 24 * 3600  # seconds a prepared message stays usable
RESULT_TYPES = {
    "article", "photo", "gif", "mpeg4_gif", "video", "audio", "voice", "document",
    "location", "venue", "contact", "game", "sticker",
}  # fmt: skip
CHAT_KINDS = ("allow_user_chats", "allow_bot_chats", "allow_group_chats", "allow_channel_chats")
MAX_TEXT = 4096


@dataclass(frozen=True)
class PreparedMessage:
    id: str
    user_id: int
    result: JSONDict
    allowed: tuple[str, ...]  # the allow_* flags given as true
    expiration_date: int

    @property
    def text(self) -> str:
        """The message the user would send (an article's text)."""
        content = self.result.get("input_message_content") or {}
        return str(content.get("message_text", ""))

    def to_api(self) -> JSONDict:
        return {"id": self.id, "expiration_date": self.expiration_date}


class InvalidPrepared(Exception):
    """What Telegram's 400 would say."""


def prepare(params: JSONDict, known_user: bool) -> PreparedMessage:
    """A prepared message from the call's parameters (InvalidPrepared when Telegram would
    refuse them)."""
    if not known_user:
        raise InvalidPrepared("USER_ID_INVALID")
    result = params.get("result")
    if not isinstance(result, dict):
        raise InvalidPrepared("can't parse inline query result JSON object")
    kind = result.get("type")
    if kind not in RESULT_TYPES:
        raise InvalidPrepared("RESULT_TYPE_INVALID")
    result_id = result.get("id")
    if not isinstance(result_id, str) or not 1 <= len(result_id.encode()) <= 64:
        raise InvalidPrepared("RESULT_ID_INVALID")
    if kind == "article":
        content = result.get("input_message_content")
        text = content.get("message_text") if isinstance(content, dict) else None
        if not isinstance(result.get("title"), str) or not result["title"]:
            raise InvalidPrepared("RESULT_TITLE_EMPTY")
        if not isinstance(text, str) or not text.strip():
            raise InvalidPrepared("MESSAGE_EMPTY")
        if len(text) > MAX_TEXT:
            raise InvalidPrepared("MESSAGE_TOO_LONG")
    allowed = tuple(kind for kind in CHAT_KINDS if params.get(kind) in (True, "true"))
    return PreparedMessage(
        id=secrets.token_urlsafe(12),
        user_id=int(params["user_id"]),
        result=dict(result),
        allowed=allowed,
        expiration_date=int(time.time()) + EXPIRES_AFTER,
    )
