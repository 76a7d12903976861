"""House rules (options): read from a command, a table, a chat's defaults; and the one guard
on opening a table with options."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from kozel_rules.errors import RecordError
from kozel_rules.options import ALLOWED, VARIANT_ONLY, Options
from kozel_rules.variant import Variant, get_variant

from ..i18n import Translator
from ..render.house_rules import WORDS, bad_option_text, options_later_text
from ..storage import ChatRecord, TableRecord
from .core import Core
from .errors import ServiceError
from .releases import previous_release_alive

_SETTINGS_KEY = "options"  # in ChatRecord.settings: {variant: Options.to_json()}
READ_SINCE = 31  # the first release that plays a table's options (v0.30 plays the defaults)


class BadOption(ServiceError, ValueError):
    """A word of ``/newgame`` that is not an allowed ``key=value`` for the variant."""


def parse(words: Sequence[str], variant: Variant, base: Options | None = None) -> Options:
    """The options ``key=value`` words set on top of ``base`` (default: none); any word that is
    not one of ``allowed_words`` raises ``BadOption``."""
    changes: dict[str, Any] = {}
    for word in words:
        name, sep, text = word.lower().partition("=")
        key = WORDS.get(name)
        if not sep or key is None or key in changes:
            raise BadOption(word)
        only = VARIANT_ONLY.get(key)
        if only is not None and only != variant.name:
            raise BadOption(word)
        value = _value(key, text)
        if value is None:
            raise BadOption(word)
        changes[key] = value
    return replace(base or Options(), **changes)


def _value(key: str, text: str) -> int | str | None:
    for allowed in ALLOWED[key]:
        if str(allowed) == text:
            return allowed
    return None


def of_table(table: TableRecord) -> Options:
    """The table's options (as stored: ``{}`` for none)."""
    return Options.from_json(table.options, table.variant)


def set_value(options: Options, key: str, value: int | str, variant: Variant) -> Options | None:
    """``options`` with one changed, or None if that value is not allowed for the variant."""
    only = VARIANT_ONLY.get(key)
    if key not in ALLOWED or value not in ALLOWED[key] or (only and only != variant.name):
        return None
    changed: dict[str, Any] = {key: value}
    return replace(options, **changed)


def chat_defaults(chat: ChatRecord | None, variant: Variant | str) -> Options:
    """The chat's default options for a variant (set with /settings); a stored value this
    release does not know reads as the defaults rather than breaking /newgame."""
    v = get_variant(variant)
    if chat is None:
        return Options()
    stored = chat.settings.get(_SETTINGS_KEY)
    if not isinstance(stored, Mapping):
        return Options()
    try:
        return Options.from_json(stored.get(v.name), v)
    except (RecordError, TypeError):
        return Options()


def set_chat_defaults(chat: ChatRecord, variant: Variant, options: Options) -> None:
    stored = chat.settings.get(_SETTINGS_KEY)
    every = dict(stored) if isinstance(stored, Mapping) else {}
    every[variant.name] = options.to_json()
    chat.settings[_SETTINGS_KEY] = every


async def opening(
    core: Core, t: Translator, chat: ChatRecord, variant: Variant, words: Sequence[str]
) -> Options | str:
    """The house rules /newgame opens a table with: the words written, else the chat's
    defaults; or why it opens nothing (a word that is not a house rule, or not now)."""
    try:
        options = parse(words, variant) if words else chat_defaults(chat, variant)
    except BadOption as bad:
        return bad_option_text(t, str(bad), variant)
    if not options.is_default and not await options_allowed_now(core):
        return options_later_text(t)
    return options


async def for_variant(core: Core, table: TableRecord, variant: Variant) -> dict[str, Any]:
    """A lobby's options once its variant becomes ``variant``: the chat's defaults of the new
    variant if it played those of the old one, else its own (less one the variant lacks)."""
    chat = await core.storage.chats.get(table.chat_id)
    if of_table(table) == chat_defaults(chat, table.variant):
        new = chat_defaults(chat, variant)
        if new.is_default or await options_allowed_now(core):
            return new.to_json()
    return {
        k: v for k, v in table.options.items() if VARIANT_ONLY.get(k, variant.name) == variant.name
    }


async def options_allowed_now(core: Core) -> bool:
    """Whether a table with options other than the defaults may be opened now: every worker
    that may take its updates has to play them (an older release would play the defaults)."""
    return not await previous_release_alive(core.storage, release=READ_SINCE)
