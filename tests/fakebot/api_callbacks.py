"""Callback queries and inline keyboards: a person's press (a ``callback_query`` update),
``answerCallbackQuery``, and the checks Telegram makes on a ``reply_markup``."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .common import LOOPBACK, bad
from .models import ApiError, CallbackAnswer, JSONDict, Press, StoredMessage
from .users import ChatRef, SimGroup, SimUser

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
MAX_CALLBACK_DATA_BYTES = 64
MAX_CALLBACK_ANSWER_LENGTH = 200
_QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"


@dataclass
class PendingQuery:
    id: str
    user: SimUser
    message: StoredMessage
    data: str
    created: float
    answer: asyncio.Future[CallbackAnswer]
    record: Press


class CallbacksMixin:
    """Presses and their answers for :class:`~fakebot.server.FakeTelegram`."""

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
        query = PendingQuery(
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

    def api_answerCallbackQuery(self, params: JSONDict) -> bool:
        query_id = str(params.get("callback_query_id") or "")
        query = self._queries.get(query_id)
        too_old = query is not None and (time.monotonic() - query.created > self.callback_query_ttl)
        if query is None or query.answer.done() or too_old:
            raise ApiError(400, _QUERY_TOO_OLD)
        text = params.get("text")
        if isinstance(text, str) and len(text) > MAX_CALLBACK_ANSWER_LENGTH:
            raise bad("MESSAGE_TOO_LONG")
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


def _validate_web_app(web_app: Any, *, private: bool) -> None:
    if not private:
        raise bad("BUTTON_TYPE_INVALID")
    url = web_app.get("url") if isinstance(web_app, dict) else None
    parts = urlsplit(url) if isinstance(url, str) else None
    https = parts is not None and parts.scheme == "https" and bool(parts.hostname)
    local = parts is not None and parts.scheme == "http" and parts.hostname in LOOPBACK
    if not (https or local):
        raise bad(
            f"inline keyboard button Web App URL '{url}' is invalid: Only HTTPS links are allowed"
        )


def validate_markup(markup: Any, *, inline_only: bool, private: bool) -> JSONDict | None:
    """Check a reply_markup like Telegram; an empty inline keyboard means none. ``web_app``
    buttons are for private chats only and open HTTPS pages only (plain http on loopback is
    let through, for tests that serve the page themselves)."""
    if markup is None or markup == "":
        return None
    if not isinstance(markup, dict):
        raise bad("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        if inline_only:
            raise bad("inline keyboard expected")
        return dict(markup)
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad('can\'t parse inline keyboard button: field "inline_keyboard" must be an Array')
    total = 0
    for row in rows:
        for button in row:
            total += 1
            if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                raise bad(
                    'can\'t parse inline keyboard button: Field "text" must be of type String'
                )
            style = button.get("style")
            if style is not None and style not in BUTTON_STYLES:
                # Bot API 9.4: "Must be one of “danger” (red), “success” (green) or
                # “primary” (blue)" (the description is ours; Telegram's wording may differ).
                raise bad(f"can't parse inline keyboard button: unknown button style {style!r}")
            kinds = [kind for kind in _INLINE_BUTTON_KINDS if kind in button]
            if len(kinds) != 1:
                raise bad(
                    "can't parse inline keyboard button: Text buttons are unallowed in the "
                    "inline keyboard"
                )
            if "callback_data" in button:
                data = button["callback_data"]
                if (
                    not isinstance(data, str)
                    or not 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES
                ):
                    raise bad("BUTTON_DATA_INVALID")
            if "web_app" in button:
                _validate_web_app(button["web_app"], private=private)
            if "url" in button and not re.match(r"(https?|tg)://\S+$", str(button["url"])):
                raise bad(
                    f"inline keyboard button URL '{button['url']}' is invalid: Wrong HTTP URL"
                )
    if total > 100:
        raise bad("reply markup is too long")
    if total == 0:
        return None
    return {"inline_keyboard": rows}
