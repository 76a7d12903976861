"""A chat's settings and anyone's language: /settings, /language and their buttons."""

from __future__ import annotations

from kozel_rules.variant import VARIANTS, Variant

from ..i18n import LANGUAGE_NAMES, LANGUAGES, Translator, get_translator
from ..render.chat import language_screen, settings_screen
from ..render.house_rules import decode as decode_option
from ..screen import Screen
from ..storage import ChatRecord, TableStatus, UserRecord
from . import feed, house_rules
from .core import Core
from .people import chat_record, remember
from .ports import ChatInfo, Person
from .reply import Press, Reply
from .translators import chat_t, translator_for, user_t

TIMEOUTS = (0, 30, 60, 120, 300)  # the turn timer's choices, in seconds (0: off)


async def language(core: Core, chat: ChatInfo, person: Person) -> Reply:
    t = await translator_for(core, chat, person)
    return Reply(screen=language_screen(t, t.lang))


async def language_press(core: Core, press: Press) -> Reply:
    chat, person, code = press.chat, press.person, press.cb.arg
    user = await remember(core, person, private=chat.is_private)
    if code not in LANGUAGES:
        return Reply(user_t(user)._("Unknown language."), alert=True)
    if chat.is_private:
        await core.storage.users.set_language(person.user_id, code)
    else:
        if not await press.is_admin():
            return Reply(
                user_t(user)._("Only chat admins can change the chat's language."), alert=True
            )
        record = await chat_record(core, chat, creator=user)
        record.language = code
        await core.storage.chats.upsert(record)
        await _rerender_chat(core, chat.chat_id)
    t = get_translator(code)
    return Reply(
        t._("I speak {language} here now.", language=LANGUAGE_NAMES[code]),
        screen=language_screen(t, code),
    )


async def _rerender_chat(core: Core, chat_id: int) -> None:
    """The chat's language changed: every table of the chat (in any topic) shows it."""
    owed = [
        feed.lobby(table) if table.status == TableStatus.LOBBY else feed.group_table(core, table)
        for table in await core.storage.tables.active_in_chat(chat_id)
    ]
    if owed:
        await feed.owe(core, owed)


async def settings(core: Core, chat: ChatInfo, person: Person) -> Reply:
    user = await remember(core, person)
    if chat.is_private:
        return Reply(user_t(user)._("Settings are made in a group chat."))
    record = await chat_record(core, chat, creator=user)
    t = await chat_t(core, chat.chat_id)
    return Reply(screen=_screen(core, t, record, core.settings.default_variant))


def _screen(core: Core, t: Translator, record: ChatRecord, variant: Variant) -> Screen:
    defaults = (variant, house_rules.chat_defaults(record, variant))
    level = core.settings.default_ai_level
    return settings_screen(t, record.turn_timeout, TIMEOUTS, level, defaults)


def _option_arg(arg: str) -> tuple[Variant, str, int | str] | None:
    """``ostreet_g6``: a variant's default option and its value (None: not one of ours)."""
    name, sep, code = arg[1:].partition("_")
    variant = VARIANTS.get(name)
    chosen = decode_option(code)
    if arg[:1] != "o" or not sep or variant is None or chosen is None:
        return None
    return variant, *chosen


async def settings_press(core: Core, press: Press) -> Reply:
    chat, arg = press.chat, press.cb.arg
    user = await remember(core, press.person)
    ut = user_t(user)
    if chat.is_private:
        return Reply(ut._("Settings are made in a group chat."), alert=True)
    if arg[:1] == "v":  # another variant's house rules: only shown
        variant = VARIANTS.get(arg[1:])
        if variant is None:
            return Reply(ut._("This button is not valid."), alert=True)
        record = await chat_record(core, chat, creator=user)
        return Reply(screen=_screen(core, await chat_t(core, chat.chat_id), record, variant))
    if arg[:1] == "o":
        return await _option_press(core, press, user)
    # The argument first: a forged one must not cost a call to Telegram.
    seconds = int(arg[1:]) if arg[:1] == "t" and arg[1:].isascii() and arg[1:].isdigit() else -1
    if seconds not in TIMEOUTS:
        return Reply(ut._("This button is not valid."), alert=True)
    if not await press.is_admin():
        return Reply(ut._("Only chat admins can change settings."), alert=True)
    record = await chat_record(core, chat, creator=user)
    record.turn_timeout = seconds
    await core.storage.chats.upsert(record)
    t = await chat_t(core, chat.chat_id)
    return Reply(ut._("Saved."), screen=_screen(core, t, record, core.settings.default_variant))


async def _option_press(core: Core, press: Press, user: UserRecord) -> Reply:
    """A default house rule of a variant, for the chat's admins to set."""
    ut = user_t(user)
    parsed = _option_arg(press.cb.arg)
    if parsed is None:
        return Reply(ut._("This button is not valid."), alert=True)
    variant, key, value = parsed
    if not await press.is_admin():
        return Reply(ut._("Only chat admins can change settings."), alert=True)
    record = await chat_record(core, press.chat, creator=user)
    changed = house_rules.set_value(house_rules.chat_defaults(record, variant), key, value, variant)
    if changed is None:
        return Reply(ut._("This button is not valid."), alert=True)
    house_rules.set_chat_defaults(record, variant, changed)
    await core.storage.chats.upsert(record)
    t = await chat_t(core, press.chat.chat_id)
    return Reply(ut._("Saved."), screen=_screen(core, t, record, variant))
