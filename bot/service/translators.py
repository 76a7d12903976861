"""Whose language a reply speaks: a user's own (chosen, else Telegram's), a group's, and which
of the two a chat gets."""

from __future__ import annotations

from ..i18n import Translator, get_translator, negotiate
from ..storage import UserRecord
from .core import Core
from .people import remember
from .ports import ChatInfo, Person


def user_t(user: UserRecord | None) -> Translator:
    if user is None:
        return get_translator(None)
    return get_translator(user.language or negotiate(user.language_code))


async def user_t_by_id(core: Core, user_id: int | None) -> Translator:
    if user_id is None:
        return get_translator(None)
    return user_t(await core.storage.users.get(user_id))


async def chat_t(core: Core, chat_id: int) -> Translator:
    record = await core.storage.chats.get(chat_id)
    return get_translator(record.language if record else None)


async def translator_for(core: Core, chat: ChatInfo, person: Person) -> Translator:
    """Groups speak the chat's language; private chats the user's own."""
    if chat.is_private:
        return user_t(await remember(core, person, private=True))
    return await chat_t(core, chat.chat_id)
