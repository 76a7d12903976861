"""The one shape every use case answers with, and the press it answers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..callback import Callback
from ..screen import Screen
from .ports import ChatInfo, Person

IsAdmin = Callable[[], Awaitable[bool]]  # asked lazily: it may cost a Telegram call
IsMember = Callable[[int], Awaitable[bool]]  # is the user in this group? (a Telegram call)


async def nobody(_chat_id: int) -> bool:
    """Membership when nobody can ask Telegram: nobody is a member."""
    return False


def answered(is_admin: bool) -> IsAdmin:
    """An admin check already made (before taking a lock nobody should wait on)."""

    async def known() -> bool:
        return is_admin

    return known


@dataclass(frozen=True)
class Reply:
    """What to tell the user: a short text (maybe an alert or a link to open) and a screen.

    For a command the screen is sent as the answer; for a button press it replaces the
    message the button sits on (menus such as /rules or /language).
    """

    text: str = ""
    alert: bool = False
    url: str | None = None
    screen: Screen | None = None


@dataclass(frozen=True)
class Press:
    """A button press: the parsed data, who pressed, where, and how to ask for admin rights.

    ``keyboard`` is the callback data of every button on the pressed message as Telegram
    shows it now (Telegram sends the message with the press; the data itself is the client's
    word and may be forged). Empty when Telegram did not send the message (too old).
    """

    cb: Callback
    person: Person
    chat: ChatInfo
    is_admin: IsAdmin
    keyboard: frozenset[str] = frozenset()
