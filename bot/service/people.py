"""Who is who: users and chats as stored, their translators, and seats at a table."""

from __future__ import annotations

from ..i18n import Translator, get_translator, negotiate
from ..render.labels import SeatInfo, computer_name
from ..storage import ChatRecord, TableRecord, UserRecord
from .core import Core
from .ports import ChatInfo, Person


async def remember(core: Core, person: Person, *, private: bool = False) -> UserRecord:
    """Store what Telegram told us about a user; a private message proves we can reach them."""
    known = await core.storage.users.get(person.user_id)
    record = UserRecord(
        user_id=person.user_id,
        first_name=person.first_name,
        username=person.username,
        language_code=person.language_code,
        language=known.language if known else None,
        can_message=private or (known.can_message if known else False),
        private_chat_id=person.user_id if private else (known.private_chat_id if known else None),
    )
    if known != record:
        await core.storage.users.upsert(record)
    return record


async def chat_record(core: Core, chat: ChatInfo, creator: UserRecord | None = None) -> ChatRecord:
    record = await core.storage.chats.get(chat.chat_id)
    if record is None:
        lang = negotiate(creator.language or creator.language_code) if creator else None
        record = ChatRecord(chat_id=chat.chat_id, title=chat.title, language=lang)
        await core.storage.chats.upsert(record)
    elif chat.title and record.title != chat.title:
        record.title = chat.title
        await core.storage.chats.upsert(record)
    return record


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


async def chat_title(core: Core, chat_id: int) -> str:
    record = await core.storage.chats.get(chat_id)
    return record.title if record else ""


def seat_infos(table: TableRecord, t: Translator) -> list[SeatInfo]:
    """The seats as the screens show them to a reader of ``t``'s language (computer players
    by their names in that language)."""
    return [
        SeatInfo(
            computer_name(t, s.name) if s.ai_level and not s.replaced else s.name,
            s.ai_level,
            s.away,
            s.replaced,
        )
        for s in table.seats
    ]


def seat_of_user(table: TableRecord, user_id: int) -> int | None:
    for s in table.seats:
        if s.user_id == user_id:
            return s.seat
    return None
