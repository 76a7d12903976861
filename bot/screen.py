"""What a message looks like, independent of Telegram: text (HTML) and button rows."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Button:
    text: str
    data: str | None = None  # callback data (<= 64 bytes)
    url: str | None = None
    web_app: str | None = None  # a Mini App page to open (Telegram allows it in private chats)


@dataclass(frozen=True)
class Screen:
    text: str
    buttons: tuple[tuple[Button, ...], ...] = field(default_factory=tuple)

    @staticmethod
    def of(text: str, rows: list[list[Button]] | None = None) -> Screen:
        return Screen(text, tuple(tuple(row) for row in rows or () if row))
