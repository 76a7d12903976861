"""Simulated Telegram users and groups that act on a :class:`~fakebot.server.FakeTelegram`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from .models import Button, CallbackAnswer, ChatState, JSONDict, StoredMessage, Topic

if TYPE_CHECKING:
    from .server import FakeTelegram

__all__ = ["BotStatus", "ChatRef", "SimGroup", "SimUser"]

BotStatus = Literal["member", "administrator", "left", "kicked"]


@dataclass(eq=False)
class SimUser:
    """A human Telegram user; create with :meth:`FakeTelegram.add_user`."""

    server: FakeTelegram = field(repr=False)
    id: int
    first_name: str
    language_code: str | None = "en"
    username: str | None = None
    last_name: str | None = None
    started: bool = False  # has pressed START in the bot's private chat
    blocked: bool = False  # has blocked the bot
    private_chat: ChatState = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.private_chat = ChatState(
            id=self.id,
            type="private",
            username=self.username,
            first_name=self.first_name,
            last_name=self.last_name,
        )

    def to_api(self) -> JSONDict:
        """The Telegram ``User`` object."""
        user: JSONDict = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.last_name is not None:
            user["last_name"] = self.last_name
        if self.username is not None:
            user["username"] = self.username
        if self.language_code is not None:
            user["language_code"] = self.language_code
        return user

    # ------------------------------------------------------------------ actions

    async def send(
        self,
        chat: ChatRef,
        text: str,
        *,
        reply_to: int | None = None,
        topic: Topic | None = None,
    ) -> StoredMessage:
        """Send a text message (a ``message`` update for the bot if it gets to see it), in a
        forum's ``topic`` if given (else, in a forum, in its General topic).

        Commands get ``bot_command`` entities; in groups ``/cmd@kozel_test_bot`` works.
        Check ``.delivered`` on the result to see whether the bot received it (privacy
        mode, bot not in the group, ...).
        """
        message = self.server.user_sends(self, chat, text, reply_to=reply_to, topic=topic)
        await asyncio.sleep(0)
        return message

    async def start_bot(self, payload: str | None = None) -> StoredMessage:
        """Press START (or a ``t.me/bot?start=payload`` deep link); unblocks the bot too."""
        message = self.server.user_starts_bot(self, payload)
        await asyncio.sleep(0)
        return message

    def block_bot(self) -> None:
        """Block the bot: later sends to this user fail with 403."""
        self.server.user_blocks_bot(self)

    async def press(
        self,
        chat: ChatRef,
        message_id: int,
        callback_data: str,
        *,
        forged: bool = False,
        timeout: float = 10.0,
    ) -> CallbackAnswer:
        """Press the inline button carrying ``callback_data`` on a bot message and wait for
        the bot's answerCallbackQuery.  Data that is not on the message's current keyboard is
        refused unless ``forged`` (a malicious or stale client)."""
        return await self.server.press(
            self, chat, message_id, callback_data, forged=forged, timeout=timeout
        )

    async def press_button(
        self,
        chat: ChatRef,
        message_id: int,
        text: str | None = None,
        *,
        contains: str | None = None,
        predicate: Callable[[Button], bool] | None = None,
        timeout: float = 10.0,
    ) -> CallbackAnswer:
        """Press the single button found by its text (exact or ``contains``) or a predicate."""
        message = self.server.message(chat, message_id)
        button = message.button(text, contains=contains, predicate=predicate)
        if button.callback_data is None:
            raise AssertionError(f"button {button.text!r} has no callback_data: {button.raw}")
        return await self.press(chat, message_id, button.callback_data, timeout=timeout)


@dataclass(eq=False)
class SimGroup(ChatState):
    """A group or supergroup; create with :meth:`FakeTelegram.add_group`."""

    members: list[SimUser] = field(default_factory=list, repr=False)
    admins: list[SimUser] = field(default_factory=list, repr=False)
    creator: SimUser | None = field(default=None, repr=False)
    banned: list[SimUser] = field(default_factory=list, repr=False)  # status "kicked"
    restricted: list[SimUser] = field(default_factory=list, repr=False)  # "restricted"
    bot_status: BotStatus = "member"
    migrated_to_chat_id: int | None = None
    migrated_from_chat_id: int | None = None
    topics: dict[int, Topic] = field(default_factory=dict, repr=False)  # by thread id

    def is_member(self, user: SimUser) -> bool:
        return any(m is user for m in self.members)

    def is_admin(self, user: SimUser) -> bool:
        return user is self.creator or any(a is user for a in self.admins)

    @property
    def bot_present(self) -> bool:
        return self.bot_status in ("member", "administrator")


ChatRef = int | ChatState | SimUser
"""A chat given by id, by its state object (e.g. a SimGroup) or by a user (their private chat)."""
