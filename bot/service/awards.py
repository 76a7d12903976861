"""/achievements and /pairs, and what /stats adds of them: a chat's achievements and its
partnerships (the store's ``awards``)."""

from __future__ import annotations

from ..render import achievements as render
from .core import Core
from .ladder import _refuse_shared, _translator
from .partners import LEAST_TOGETHER, pair_of
from .ports import ChatInfo, Person
from .reply import Reply


async def achievements(core: Core, chat: ChatInfo, person: Person) -> Reply:
    if person.shared is not None:
        return await _refuse_shared(core, chat, person.shared)
    t, _user = await _translator(core, chat, person)
    if chat.is_private:
        return Reply(t._("Achievements live in group chats: send /achievements there."))
    holders: dict[str, list[str]] = {}
    for earned in await core.storage.awards.earned(chat.chat_id):
        holders.setdefault(earned.achievement, []).append(earned.name)
    return Reply(screen=render.achievements_screen(t, chat_title=chat.title, holders=holders))


async def pairs(core: Core, chat: ChatInfo, person: Person) -> Reply:
    if person.shared is not None:
        return await _refuse_shared(core, chat, person.shared)
    t, _user = await _translator(core, chat, person)
    if chat.is_private:
        return Reply(t._("Partnerships live in group chats: send /pairs there."))
    lines = await core.storage.awards.pairs(chat.chat_id, least=LEAST_TOGETHER)
    found = [pair_of(line) for line in lines]
    return Reply(
        screen=render.pairs_screen(t, chat_title=chat.title, pairs=found, least=LEAST_TOGETHER)
    )
