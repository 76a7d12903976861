"""Whose language a reply speaks: a user's chosen language over Telegram's, a group's own,
and in a private chat the person's."""

from __future__ import annotations

from bot.service.core import Core
from bot.service.people import chat_record, remember
from bot.service.ports import ChatInfo, Person
from bot.service.translators import chat_t, translator_for, user_t, user_t_by_id

GROUP = ChatInfo(-100, "Kozel club", is_private=False)
ANNA = Person(7, "Anna", None, "ru-RU")


async def test_a_chosen_language_wins_over_telegrams(core: Core) -> None:
    user = await remember(core, ANNA)
    assert user_t(user).lang == "ru"  # Telegram's, negotiated
    user.language = "de"
    assert user_t(user).lang == "de"
    assert user_t(None).lang == "en"
    assert (await user_t_by_id(core, 404)).lang == "en"  # nobody we know
    assert (await user_t_by_id(core, None)).lang == "en"


async def test_a_group_speaks_its_own_language_a_private_chat_the_persons(core: Core) -> None:
    assert (await chat_t(core, GROUP.chat_id)).lang == "en"  # a chat we never saw
    await chat_record(core, GROUP, await remember(core, Person(8, "Jens", None, "da")))
    assert (await translator_for(core, GROUP, ANNA)).lang == "da"
    private = ChatInfo(ANNA.user_id, "", is_private=True)
    assert (await translator_for(core, private, ANNA)).lang == "ru"
    stored = await core.storage.users.get(ANNA.user_id)
    assert stored is not None and stored.can_message  # a private message proves we reach her
