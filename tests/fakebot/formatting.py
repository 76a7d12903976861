"""Turning a message text plus ``parse_mode`` into what a Telegram client displays.

Telegram parses the markup server-side and stores a plain text plus a list of
``MessageEntity`` objects (offsets and lengths in UTF-16 code units).  Markup it
cannot parse is refused with ``400 Bad Request: can't parse entities: ...``, which is
a classic production bug (an unescaped ``<`` in a player's name), so the fake parses
strictly too.  Supported: ``HTML``, ``MarkdownV2`` and legacy ``Markdown``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FormattedText", "ParseError", "format_text", "utf16_len"]

JSONDict = dict[str, Any]


class ParseError(ValueError):
    """The markup cannot be parsed; ``str(exc)`` is the part after "can't parse entities: "."""


@dataclass(frozen=True)
class FormattedText:
    """A text as displayed (markup removed, entities decoded) with its entities."""

    text: str
    entities: tuple[JSONDict, ...] = ()


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, the unit of Telegram entity offsets."""
    return len(text.encode("utf-16-le")) // 2


def format_text(
    text: str, parse_mode: str | None, entities: list[JSONDict] | None = None
) -> FormattedText:
    """Parse ``text`` like the Bot API does and trim surrounding whitespace.

    Raises:
        ParseError: the markup is invalid or ``parse_mode`` is unknown.
    """
    if entities:
        result = _Builder.from_explicit(text, entities)
    elif parse_mode is None or parse_mode == "":
        result = _Builder.from_explicit(text, [])
    else:
        mode = parse_mode.lower()
        if mode == "html":
            result = _parse_html(text)
        elif mode == "markdownv2":
            result = _parse_markdown_v2(text)
        elif mode == "markdown":
            result = _parse_markdown_legacy(text)
        else:
            raise ParseError(f"unsupported parse_mode {parse_mode!r}")
    return result.trimmed()


# --------------------------------------------------------------------------- builder


@dataclass
class _Open:
    tag: str
    type: str
    start: int  # UTF-16 offset in the output
    byte_offset: int  # UTF-8 offset in the source, for error messages
    extra: JSONDict = field(default_factory=dict)


class _Builder:
    """Accumulates output text and finished entities."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self.pos = 0  # UTF-16 length of the output so far
        self.entities: list[JSONDict] = []

    @classmethod
    def from_explicit(cls, text: str, entities: list[JSONDict]) -> _Builder:
        builder = cls()
        builder.append(text)
        builder.entities = [dict(e) for e in entities]
        return builder

    def append(self, chunk: str) -> None:
        self._parts.append(chunk)
        self.pos += utf16_len(chunk)

    def close(self, opened: _Open) -> None:
        length = self.pos - opened.start
        if length > 0:
            self.entities.append(
                {"type": opened.type, "offset": opened.start, "length": length, **opened.extra}
            )

    def trimmed(self) -> FormattedText:
        """Strip leading/trailing whitespace like Telegram and shift the entities."""
        text = "".join(self._parts)
        stripped = text.strip()
        if not stripped:
            return FormattedText("", ())
        lead = utf16_len(text[: len(text) - len(text.lstrip())])
        end = lead + utf16_len(stripped)
        result: list[JSONDict] = []
        for entity in self.entities:
            start = max(entity["offset"], lead)
            stop = min(entity["offset"] + entity["length"], end)
            if stop > start:
                result.append({**entity, "offset": start - lead, "length": stop - start})
        result.sort(key=lambda e: (e["offset"], -e["length"]))
        return FormattedText(stripped, tuple(result))


def _byte_offset(source: str, index: int) -> int:
    return len(source[:index].encode("utf-8"))


# --------------------------------------------------------------------------- HTML

_HTML_ENTITY = re.compile(r"&(lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});")
_HTML_TEXT = re.compile(r"[^&<]+")
_HTML_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_HTML_ATTR = re.compile(r"""\s*([a-zA-Z_-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")
_HTML_SIMPLE = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "code": "code",
    "pre": "pre",
}


def _decode_html_entity(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _HTML_NAMED:
        return _HTML_NAMED[name]
    code = int(name[2:], 16) if name.startswith("#x") else int(name[1:])
    return chr(code) if 0 < code < 0x110000 else match.group(0)


def _html_attributes(raw: str, source: str, index: int) -> dict[str, str]:
    attrs: dict[str, str] = {}
    pos = 0
    while pos < len(raw):
        if raw[pos:].strip() in ("", "/"):
            break
        match = _HTML_ATTR.match(raw, pos)
        if match is None or match.end() == pos:
            raise ParseError(
                f"Empty attribute name in the tag at byte offset {_byte_offset(source, index)}"
            )
        value = match.group(2) or match.group(3) or match.group(4) or ""
        attrs[match.group(1).lower()] = _HTML_ENTITY.sub(_decode_html_entity, value)
        pos = match.end()
    return attrs


def _html_open(name: str, attrs: dict[str, str], start: int, byte: int) -> _Open:
    if name in _HTML_SIMPLE:
        return _Open(name, _HTML_SIMPLE[name], start, byte)
    if name == "span":
        if attrs.get("class") != "tg-spoiler":
            raise ParseError('Tag "span" must have class "tg-spoiler"')
        return _Open(name, "spoiler", start, byte)
    if name == "a":
        href = attrs.get("href", "")
        user = re.fullmatch(r"tg://user\?id=(\d+)", href)
        if user:
            user_info = {"id": int(user.group(1)), "is_bot": False, "first_name": ""}
            return _Open(name, "text_mention", start, byte, {"user": user_info})
        return _Open(name, "text_link", start, byte, {"url": href})
    if name == "blockquote":
        kind = "expandable_blockquote" if "expandable" in attrs else "blockquote"
        return _Open(name, kind, start, byte)
    if name == "tg-emoji":
        return _Open(
            name, "custom_emoji", start, byte, {"custom_emoji_id": attrs.get("emoji-id", "")}
        )
    raise ParseError(f'Unsupported start tag "{name}" at byte offset {byte}')


def _parse_html(source: str) -> _Builder:
    out = _Builder()
    stack: list[_Open] = []
    index = 0
    counted = (0, 0)  # (index, its UTF-8 offset): each tag's offset counts on from the last

    def byte_offset(index: int) -> int:
        nonlocal counted
        last, byte = counted
        counted = (index, byte + len(source[last:index].encode("utf-8")))
        return counted[1]

    while index < len(source):
        char = source[index]
        if char == "&":
            match = _HTML_ENTITY.match(source, index)
            if match:
                out.append(_decode_html_entity(match))
                index = match.end()
            else:
                out.append("&")
                index += 1
            continue
        if char != "<":
            text = _HTML_TEXT.match(source, index)
            assert text is not None  # source[index] is neither "&" nor "<"
            out.append(text.group())  # a run at once: a message is mostly text
            index = text.end()
            continue
        byte = byte_offset(index)
        end = source.find(">", index)
        if end == -1:
            raise ParseError(f"Unclosed start tag at byte offset {byte}")
        inner = source[index + 1 : end]
        if inner.startswith("/"):
            name = inner[1:].strip().lower()
            if not stack:
                raise ParseError(f"Unexpected end tag at byte offset {byte}")
            top = stack.pop()
            if name != top.tag:
                raise ParseError(
                    f'Unmatched end tag at byte offset {byte}, expected "</{top.tag}>", '
                    f'found "</{name}>"'
                )
            if top.type:
                out.close(top)
        else:
            match = re.match(r"[a-zA-Z][a-zA-Z0-9-]*", inner)
            if match is None:
                raise ParseError(f'Unsupported start tag "{inner}" at byte offset {byte}')
            name = match.group(0).lower()
            attrs = _html_attributes(inner[match.end() :], source, index)
            opened = _html_open(name, attrs, out.pos, byte)
            if name == "code" and stack and stack[-1].tag == "pre":
                language = attrs.get("class", "")
                if language.startswith("language-"):
                    stack[-1].extra["language"] = language.removeprefix("language-")
                opened.type = ""  # <pre><code> is a single pre entity
            stack.append(opened)
        index = end + 1
    if stack:
        raise ParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1].tag}"')
    return out


# --------------------------------------------------------------------------- MarkdownV2

_MDV2_RESERVED = frozenset("_*[]()~`>#+-=|{}.!")
_MDV2_TOGGLES = {
    "*": "bold",
    "_": "italic",
    "__": "underline",
    "~": "strikethrough",
    "||": "spoiler",
}
_ENTITY_NAMES = {
    "bold": "Bold",
    "italic": "Italic",
    "underline": "Underline",
    "strikethrough": "Strikethrough",
    "spoiler": "Spoiler",
    "code": "Code",
    "pre": "Pre",
    "text_link": "TextUrl",
    "custom_emoji": "CustomEmoji",
}


def _parse_markdown_v2(source: str) -> _Builder:
    out = _Builder()
    stack: list[_Open] = []
    index = 0
    length = len(source)
    while index < length:
        char = source[index]
        byte = _byte_offset(source, index)
        top = stack[-1] if stack else None
        if char == "\\" and index + 1 < length and 0 < ord(source[index + 1]) < 127:
            out.append(source[index + 1])
            index += 2
            continue
        if top is not None and top.type in ("code", "pre"):
            closer = "```" if top.type == "pre" else "`"
            if source.startswith(closer, index):
                out.close(stack.pop())
                index += len(closer)
            else:
                out.append(char)
                index += 1
            continue
        if source.startswith("```", index):
            newline = source.find("\n", index + 3)
            language = source[index + 3 : newline] if newline != -1 else ""
            extra = {"language": language} if language.strip() else {}
            stack.append(_Open("```", "pre", out.pos, byte, extra))
            index = newline + 1 if newline != -1 and language.strip() else index + 3
            continue
        if char == "`":
            stack.append(_Open("`", "code", out.pos, byte))
            index += 1
            continue
        marker = source[index : index + 2] if source.startswith(("__", "||"), index) else char
        if marker in _MDV2_TOGGLES:
            open_index = next((i for i, o in enumerate(stack) if o.tag == marker), None)
            if open_index is None:
                stack.append(_Open(marker, _MDV2_TOGGLES[marker], out.pos, byte))
            else:
                out.close(stack.pop(open_index))
            index += len(marker)
            continue
        if char == "[" or source.startswith("![", index):
            is_emoji = char == "!"
            stack.append(_Open("[", "custom_emoji" if is_emoji else "text_link", out.pos, byte))
            index += 2 if is_emoji else 1
            continue
        if char == "]" and top is not None and top.tag == "[":
            if not source.startswith("(", index + 1):
                raise ParseError(
                    f"Can't find end of {_ENTITY_NAMES[top.type]} entity at byte offset "
                    f"{top.byte_offset}"
                )
            url, index = _read_markdown_url(source, index + 2, top.byte_offset)
            link = stack.pop()
            if link.type == "custom_emoji":
                link.extra["custom_emoji_id"] = url.partition("id=")[2]
            else:
                link.extra["url"] = url
            out.close(link)
            continue
        if char == ">" and (index == 0 or source[index - 1] == "\n"):
            index = _markdown_blockquote(source, index, out)
            continue
        if char in _MDV2_RESERVED:
            raise ParseError(
                f"Character '{char}' is reserved and must be escaped with the preceding '\\'"
            )
        out.append(char)
        index += 1
    if stack:
        opened = stack[-1]
        raise ParseError(
            f"Can't find end of {_ENTITY_NAMES[opened.type]} entity at byte offset "
            f"{opened.byte_offset}"
        )
    return out


def _read_markdown_url(source: str, index: int, entity_byte: int) -> tuple[str, int]:
    url: list[str] = []
    while index < len(source) and source[index] != ")":
        if source[index] == "\\" and index + 1 < len(source):
            index += 1
        url.append(source[index])
        index += 1
    if index >= len(source):
        raise ParseError(f"Can't find end of a url at byte offset {entity_byte}")
    return "".join(url), index + 1


def _markdown_blockquote(source: str, index: int, out: _Builder) -> int:
    """Parse consecutive ``>`` lines (plain text inside) into one blockquote entity."""
    quote = _Open(">", "blockquote", out.pos, _byte_offset(source, index))
    while index < len(source) and source[index] == ">":
        newline = source.find("\n", index)
        line_end = len(source) if newline == -1 else newline
        line = re.sub(r"\\(.)", r"\1", source[index + 1 : line_end])
        out.append(line)
        index = line_end
        if newline != -1 and source.startswith(">", newline + 1):
            out.append("\n")
            index = newline + 1
    out.close(quote)
    return index


# --------------------------------------------------------------------------- Markdown (legacy)

_MD_LEGACY = {"*": "bold", "_": "italic", "`": "code", "```": "pre"}


def _parse_markdown_legacy(source: str) -> _Builder:
    out = _Builder()
    index = 0
    while index < len(source):
        char = source[index]
        byte = _byte_offset(source, index)
        if char == "\\" and index + 1 < len(source) and source[index + 1] in "*_`[":
            out.append(source[index + 1])
            index += 2
            continue
        marker = "```" if source.startswith("```", index) else char
        if marker in _MD_LEGACY:
            end = source.find(marker, index + len(marker))
            if end == -1:
                raise ParseError(f"Can't find end of the entity starting at byte offset {byte}")
            opened = _Open(marker, _MD_LEGACY[marker], out.pos, byte)
            out.append(source[index + len(marker) : end])
            out.close(opened)
            index = end + len(marker)
            continue
        if char == "[":
            close = source.find("](", index)
            end = source.find(")", close) if close != -1 else -1
            if close == -1 or end == -1:
                raise ParseError(f"Can't find end of the entity starting at byte offset {byte}")
            opened = _Open("[", "text_link", out.pos, byte, {"url": source[close + 2 : end]})
            out.append(source[index + 1 : close])
            out.close(opened)
            index = end + 1
            continue
        out.append(char)
        index += 1
    return out
