"""What the service needs from the outside world, as protocols (the handlers implement them)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from ..screen import Screen


class Unreachable(Exception):
    """The chat cannot be written to: the user blocked or never started the bot, or it left."""


class MessageGone(Exception):
    """The message to edit no longer exists (deleted by the user, or too old)."""


class Messenger(Protocol):
    async def send(self, chat_id: int, screen: Screen, *, notify: bool = True) -> int:
        """Send a message; returns its id. Raises Unreachable."""

    async def edit(self, chat_id: int, message_id: int, screen: Screen) -> None:
        """Edit in place; "not modified" is success. Raises MessageGone or Unreachable."""

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete, best effort (never raises)."""


class Scheduler(Protocol):
    def schedule(self, name: str, delay: float, callback: Callable[[], Awaitable[None]]) -> None:
        """Run ``callback`` after ``delay`` seconds, replacing a job of the same name."""

    def cancel(self, name: str) -> None: ...


@dataclass(frozen=True)
class Person:
    """The Telegram user behind an update."""

    user_id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None


@dataclass(frozen=True)
class ChatInfo:
    chat_id: int
    title: str
    is_private: bool


@dataclass(frozen=True)
class Reply:
    """The answer to a press or a command: a short text, maybe an alert or a link to open."""

    text: str = ""
    alert: bool = False
    url: str | None = None
    screen: Screen | None = None  # for commands: a full message to send back (text + buttons)
