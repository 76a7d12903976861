"""What tests look at and wait for: messages, calls, commands, and waits woken by every
change (never polling)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from .common import Signal, commands_key
from .models import Call, ChatState, JSONDict, StoredMessage
from .users import ChatRef, SimUser

T = TypeVar("T")


class LookingMixin:
    """Inspection and waiting for :class:`~fakebot.server.FakeTelegram`."""

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
        return self.commands.get(commands_key(scope, language_code))

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
            await self._chat_signals.setdefault(chat_id, Signal()).wait(remaining)
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

    def report_failure(self, reason: str) -> None:
        """Make every pending and future ``wait_for`` fail at once (e.g. the bot died)."""
        self._failure = reason
        self._changed.fire()
        for signal in self._chat_signals.values():
            signal.fire()

    def clear_failure(self) -> None:
        self._failure = None
