"""What the service needs from the outside world, as protocols (the adapter implements them)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from ..screen import Screen
from .errors import ServiceError


class Unreachable(ServiceError):
    """The chat cannot be written to: the user blocked or never started the bot, or it left."""


class TopicGone(Unreachable):
    """The forum topic to write in was deleted or closed: the chat itself may still be there."""


class MessageGone(ServiceError):
    """The message to edit no longer exists (deleted by the user, or too old)."""


class Messenger(Protocol):
    async def send(
        self, chat_id: int, screen: Screen, *, notify: bool = True, thread_id: int | None = None
    ) -> int:
        """Send a message (into the forum topic ``thread_id``, if given); returns its id.
        Raises Unreachable (TopicGone when only the topic is)."""

    async def edit(self, chat_id: int, message_id: int, screen: Screen) -> None:
        """Edit in place; "not modified" is success. Raises MessageGone or Unreachable."""

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete, best effort (never raises)."""


class DueKind(StrEnum):
    COMPUTER = "ai"  # a computer player's turn
    SPECIAL = "special"  # a computer may declare a special lead out of turn
    TIMEOUT = "timeout"  # a person's turn timer
    HURRY = "hurry"  # a person's turn timer is nearly out: their hand shows the time left
    EXPIRE = "expire"  # a table nobody uses is closed (``closing``)


@dataclass(frozen=True)
class Due:
    """Something a table expects to happen later, valid only while the match is at ``ply``."""

    kind: DueKind
    table_id: int
    ply: int
    seat: int | None = None


class Scheduler(Protocol):
    """Runs the stored timers (``deadlines.timer_rows``); the store holds them, so this is only a
    hint: a timer was just stored, due at ``at``."""

    def wake_by(self, at: float) -> None:
        """Look for due timers no later than ``at`` (epoch seconds)."""


class Shared(StrEnum):
    """A sender id many people share: a message sent as a channel (``from`` @Channel_Bot), or
    by an anonymous admin (``from`` @GroupAnonymousBot). Nobody in particular can sit there."""

    CHANNEL = "channel"
    ANONYMOUS = "anonymous"


@dataclass(frozen=True)
class Person:
    """The Telegram user behind an update."""

    user_id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None
    shared: Shared | None = None


@dataclass(frozen=True)
class ChatInfo:
    chat_id: int
    title: str
    is_private: bool
    thread_id: int | None = None
    """The forum topic the update came from (None: no topic, or a forum's General topic)."""


class RetryLater(ServiceError):
    """Telegram asked the bot to wait (429 "retry after")."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"retry after {seconds} s")
        self.seconds = seconds


class Transient(ServiceError):
    """The call may have failed for a passing reason (network, timeout, Telegram's 5xx)."""
