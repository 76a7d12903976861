"""Who is who: users and chats as stored, kept up to date with what Telegram tells us."""

from __future__ import annotations

from ..i18n import negotiate
from ..storage import ChatRecord, UserRecord
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


async def chat_title(core: Core, chat_id: int) -> str:
    record = await core.storage.chats.get(chat_id)
    return record.title if record else ""
