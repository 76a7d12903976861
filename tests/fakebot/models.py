"""State records of the fake Bot API server: chats, messages, buttons, calls, answers."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

JSONDict = dict[str, Any]
# The users Telegram puts in ``from`` of messages sent as a channel / by an anonymous admin.
CHANNEL_BOT = {"id": 136817688, "is_bot": True, "first_name": "Channel", "username": "Channel_Bot"}
ANONYMOUS_ADMIN = {
    "id": 1087968824,
    "is_bot": True,
    "first_name": "Group",
    "username": "GroupAnonymousBot",
}
SHARED_SENDERS = (CHANNEL_BOT["id"], ANONYMOUS_ADMIN["id"])
ChatType = Literal["private", "group", "supergroup", "channel"]

__all__ = [
    "ApiError",
    "Button",
    "Call",
    "CallbackAnswer",
    "ChatState",
    "JSONDict",
    "MessageVersion",
    "Press",
    "StoredMessage",
    "Topic",
]


class ApiError(Exception):
    """An error answer of the Bot API (``{"ok": false, ...}``)."""

    def __init__(self, code: int, description: str, parameters: JSONDict | None = None) -> None:
        super().__init__(f"{code} {description}")
        self.code = code
        self.description = description
        self.parameters = parameters

    def to_api(self) -> JSONDict:
        answer: JSONDict = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            answer["parameters"] = self.parameters
        return answer


@dataclass(frozen=True)
class Button:
    """One button of an inline keyboard, with its position."""

    text: str
    row: int
    column: int
    raw: JSONDict

    @property
    def callback_data(self) -> str | None:
        value = self.raw.get("callback_data")
        return value if isinstance(value, str) else None

    @property
    def url(self) -> str | None:
        value = self.raw.get("url")
        return value if isinstance(value, str) else None

    @property
    def style(self) -> str | None:
        """``"danger"``, ``"success"``, ``"primary"``, or None (the app's own look)."""
        value = self.raw.get("style")
        return value if isinstance(value, str) else None


def keyboard_buttons(reply_markup: JSONDict | None) -> list[Button]:
    """All buttons of an inline keyboard, row by row."""
    if not reply_markup:
        return []
    rows = reply_markup.get("inline_keyboard") or []
    return [
        Button(str(button.get("text", "")), r, c, button)
        for r, row in enumerate(rows)
        for c, button in enumerate(row)
    ]


@dataclass(frozen=True)
class MessageVersion:
    """What a message looked like at one time (the original or one edit)."""

    raw_text: str  # as the bot sent it, markup included
    text: str  # as displayed: markup removed, HTML entities decoded
    entities: tuple[JSONDict, ...]
    reply_markup: JSONDict | None
    date: int
    at: float = 0.0  # time.time() when the server stored this version


@dataclass(eq=False)
class ChatState:
    """A chat as the server knows it; groups are :class:`~fakebot.users.SimGroup`."""

    id: int
    type: ChatType
    title: str | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    is_forum: bool = False  # a supergroup with topics
    messages: dict[int, StoredMessage] = field(default_factory=dict, repr=False)
    next_message_id: int = field(default=1, repr=False)
    pinned: list[int] = field(default_factory=list, repr=False)

    def to_api(self) -> JSONDict:
        chat: JSONDict = {"id": self.id, "type": self.type}
        for key in ("title", "username", "first_name", "last_name"):
            value = getattr(self, key)
            if value is not None:
                chat[key] = value
        if self.is_forum:
            chat["is_forum"] = True
        return chat

    def take_message_id(self) -> int:
        message_id = self.next_message_id
        self.next_message_id += 1
        return message_id


@dataclass(eq=False)
class StoredMessage:
    """A message in a chat, sent by the bot or by a simulated user, with its edit history."""

    chat: ChatState
    message_id: int
    sender: JSONDict  # a Telegram User object
    date: int
    raw_text: str | None
    text: str | None
    entities: tuple[JSONDict, ...] = ()
    reply_markup: JSONDict | None = None
    edit_date: int | None = None
    reply_to: StoredMessage | None = None
    extra: JSONDict = field(default_factory=dict)  # service fields, link_preview_options, ...
    options: JSONDict = field(default_factory=dict)  # parse_mode, disable_notification, ...
    versions: list[MessageVersion] = field(default_factory=list, repr=False)
    deleted: bool = False
    delivered: bool = True  # for user messages: whether the bot got an update for it
    changed_seq: int = 0  # server event number of the last send or edit
    # A forum topic's id (``is_topic_message``) or, in other supergroups, the reply chain's.
    thread_id: int | None = None
    is_topic_message: bool = False

    # -------------------------------------------------------------- inspection

    @property
    def from_bot(self) -> bool:
        """Sent by the bot under test (not by a user posting as a channel or anonymously)."""
        return bool(self.sender.get("is_bot")) and self.sender.get("id") not in SHARED_SENDERS

    @property
    def keyboard(self) -> list[list[Button]]:
        """The current inline keyboard as rows of buttons (empty without one)."""
        rows: dict[int, list[Button]] = {}
        for button in keyboard_buttons(self.reply_markup):
            rows.setdefault(button.row, []).append(button)
        return [rows[r] for r in sorted(rows)]

    @property
    def buttons(self) -> list[Button]:
        """The current inline keyboard's buttons, row by row."""
        return keyboard_buttons(self.reply_markup)

    def find_buttons(
        self,
        text: str | None = None,
        *,
        contains: str | None = None,
        data: str | None = None,
        predicate: Callable[[Button], bool] | None = None,
    ) -> list[Button]:
        """Buttons whose text equals ``text`` / contains ``contains`` / whose callback_data
        equals ``data`` / that satisfy ``predicate`` (all given conditions must hold)."""
        return [
            b
            for b in self.buttons
            if (text is None or b.text == text)
            and (contains is None or contains in b.text)
            and (data is None or b.callback_data == data)
            and (predicate is None or predicate(b))
        ]

    def button(
        self,
        text: str | None = None,
        *,
        contains: str | None = None,
        data: str | None = None,
        predicate: Callable[[Button], bool] | None = None,
    ) -> Button:
        """The single button matching the conditions; AssertionError if none or several."""
        found = self.find_buttons(text, contains=contains, data=data, predicate=predicate)
        if len(found) != 1:
            labels = [b.text for b in self.buttons]
            raise AssertionError(
                f"expected exactly one matching button in message {self.message_id} of chat "
                f"{self.chat.id}, found {len(found)}; keyboard: {labels}"
            )
        return found[0]

    def has_callback_data(self, data: str) -> bool:
        return any(b.callback_data == data for b in self.buttons)

    def shown_texts(self, include_buttons: bool = True) -> Iterator[str]:
        """Every text this message ever displayed, in all its versions."""
        for version in self.versions:
            yield version.text
            if include_buttons:
                yield from (b.text for b in keyboard_buttons(version.reply_markup))

    # -------------------------------------------------------------- Bot API shape

    def to_api(self, *, with_reply: bool = True) -> JSONDict:
        message: JSONDict = {
            "message_id": self.message_id,
            "from": self.sender,
            "chat": self.chat.to_api(),
            "date": self.date,
        }
        if self.text is not None:
            message["text"] = self.text
            if self.entities:
                message["entities"] = [dict(e) for e in self.entities]
        if self.edit_date is not None:
            message["edit_date"] = self.edit_date
        if self.thread_id is not None:
            message["message_thread_id"] = self.thread_id
            if self.is_topic_message:
                message["is_topic_message"] = True
        if self.reply_to is not None and with_reply:
            message["reply_to_message"] = self.reply_to.to_api(with_reply=False)
        if self.reply_markup is not None and "inline_keyboard" in self.reply_markup:
            message["reply_markup"] = self.reply_markup
        message.update(self.extra)
        return message

    def record_version(self) -> None:
        self.versions.append(
            MessageVersion(
                self.raw_text or "",
                self.text or "",
                self.entities,
                self.reply_markup,
                self.edit_date or self.date,
                time.time(),
            )
        )


@dataclass(eq=False)
class Topic:
    """A forum topic; its id is the id of the service message that created it (``root``)."""

    thread_id: int
    name: str
    root: StoredMessage = field(repr=False)
    icon_color: int = 7322096
    closed: bool = False  # only admins may write in it
    deleted: bool = False  # gone with all its messages

    def to_api(self) -> JSONDict:
        """The Bot API's ``ForumTopic``."""
        return {
            "message_thread_id": self.thread_id,
            "name": self.name,
            "icon_color": self.icon_color,
        }


@dataclass(frozen=True)
class Call:
    """One Bot API request the server answered."""

    seq: int
    method: str  # canonical spelling, e.g. "sendMessage"
    params: JSONDict  # decoded: JSON-valued fields parsed, files as {"filename", "size"}
    time: float  # time.time() of the answer
    status: int  # HTTP status code
    response: JSONDict  # the JSON answer

    @property
    def ok(self) -> bool:
        return bool(self.response.get("ok"))

    @property
    def result(self) -> Any:
        return self.response.get("result")

    @property
    def error_code(self) -> int | None:
        code = self.response.get("error_code")
        return code if isinstance(code, int) else None

    @property
    def description(self) -> str | None:
        description = self.response.get("description")
        return description if isinstance(description, str) else None

    def __str__(self) -> str:
        params = json.dumps(self.params, ensure_ascii=False, default=str)
        if len(params) > 200:
            params = params[:200] + "..."
        outcome = "ok" if self.ok else f"{self.error_code} {self.description}"
        return f"#{self.seq} {self.method} {params} -> {outcome}"


@dataclass(eq=False)
class Press:
    """A simulated button press (a callback query) and when the bot answered it."""

    query_id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    at: float  # time.time() when the update was queued
    answered_at: float | None = None  # time.time() of the bot's answerCallbackQuery
    taken_at: float | None = None  # time.time() the bot first got the update (poll or webhook)
    answer: CallbackAnswer | None = None

    @property
    def latency(self) -> float | None:
        return None if self.answered_at is None else self.answered_at - self.at


@dataclass(frozen=True)
class CallbackAnswer:
    """The bot's answerCallbackQuery for a simulated button press."""

    query_id: str
    text: str | None = None
    show_alert: bool = False
    url: str | None = None
    cache_time: int = 0
