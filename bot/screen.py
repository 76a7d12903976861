"""What a message looks like, independent of Telegram: text (HTML) and button rows."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from html import escape, unescape

MAX_TEXT = 4096  # a message's text (Telegram counts UTF-16 code units)
MAX_ALERT = 200  # the text of a button's answer (a toast or an alert)
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*>")
_MORE = "…"


def text_length(text: str) -> int:
    """The length as Telegram measures it: UTF-16 code units (an emoji may count two)."""
    return len(text.encode("utf-16-le")) // 2


def plain(html: str) -> str:
    """HTML as the plain text it shows (answers to presses have no markup)."""
    return unescape(_TAG.sub("", html))


def fit_plain(text: str, limit: int = MAX_ALERT) -> str:
    """``text`` cut to ``limit``, ending with an ellipsis when cut."""
    if text_length(text) <= limit:
        return text
    while text and text_length(text) > limit - 1:
        text = text[:-1]
    return text.rstrip() + _MORE


def shown_length(html: str) -> int:
    """What Telegram counts against the limit: the text after the markup is parsed."""
    return text_length(plain(html))


def fit_html(text: str, limit: int = MAX_TEXT) -> str:
    """HTML text that fits in a message: whole lines from the top while they fit, then an
    ellipsis, tags left open closed again. Screens that can grow long fit themselves first
    (they say how much they left out); this is the net under everything sent."""
    if shown_length(text) <= limit:
        return text
    kept: list[str] = []
    room = limit - 2  # the ellipsis on a line of its own
    for line in text.split("\n"):
        if shown_length("\n".join([*kept, line])) > room:
            break
        kept.append(line)
    if not kept:  # one huge line: its words, as plain text
        return escape(fit_plain(plain(text), room))
    body = "\n".join(kept)
    return body + "\n" + _MORE + _closing_tags(body)


def _closing_tags(html: str) -> str:
    open_tags: list[str] = []
    for match in _TAG.finditer(html):
        closing, name = match.group(1), match.group(2).lower()
        if not closing:
            open_tags.append(name)
        elif name in open_tags:
            del open_tags[len(open_tags) - 1 - open_tags[::-1].index(name) :]
    return "".join(f"</{name}>" for name in reversed(open_tags))


class Style(StrEnum):
    """A button's colour (Bot API 9.4; older apps show the default look)."""

    PRIMARY = "primary"  # blue: a card that may be played now
    SUCCESS = "success"  # green: a card that can beat, the beat itself
    DANGER = "danger"  # red: a confirm that throws points away face down


@dataclass(frozen=True)
class Button:
    text: str
    data: str | None = None  # callback data (<= 64 bytes)
    url: str | None = None
    web_app: str | None = None  # a Mini App page to open (Telegram allows it in private chats)
    style: Style | None = None


@dataclass(frozen=True)
class Screen:
    text: str
    buttons: tuple[tuple[Button, ...], ...] = field(default_factory=tuple)

    @staticmethod
    def of(text: str, rows: list[list[Button]] | None = None) -> Screen:
        return Screen(text, tuple(tuple(row) for row in rows or () if row))
