"""Groups speak the chat's language, private chats the player's own; menus in every language."""

from __future__ import annotations

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram

from bot.i18n import LANGUAGES, get_translator

from .driver import ENV_FAST, is_hand

pytestmark = pytest.mark.e2e


async def test_chat_and_private_languages(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    # The command menu is registered in every language.
    for lang in LANGUAGES:
        code = "" if lang == "en" else lang
        commands = fake_telegram.commands_for(None, code)
        assert commands is not None, lang
        newgame = next(c for c in commands if c["command"] == "newgame")
        assert newgame["description"] == get_translator(lang)._("open a Kozel table")

    olga = fake_telegram.add_user("Olga", "ru")
    hans = fake_telegram.add_user("Hans", "de-AT")
    group = fake_telegram.add_group("Клуб", [olga, hans], admins=[olga])
    for user in (olga, hans):
        mark = fake_telegram.mark()
        await user.start_bot()
        await fake_telegram.wait_for_message(user, since=mark)
    # The chat's language comes from the user who opened its first table.
    mark = fake_telegram.mark()
    await olga.send(group, "/newgame moscow")
    lobby = await fake_telegram.wait_for_message(group, lambda m: bool(m.buttons), since=mark)
    assert "Козёл — новый стол" in (lobby.text or "")
    answer = await hans.press_button(group, lobby.message_id, contains="Сесть")
    assert answer.text == get_translator("de")._("You joined the table.")
    await fake_telegram.wait_for(
        lambda: "Hans" in (fake_telegram.message(group, lobby.message_id).text or "")
    )
    mark = fake_telegram.mark()
    start = next(b for b in fake_telegram.message(group, lobby.message_id).buttons if "▶️" in b.text)
    await olga.press(group, lobby.message_id, start.callback_data or "")
    hand = await fake_telegram.wait_for_message(hans, is_hand, since=mark, timeout=10)
    assert get_translator("de")._("Trump: {suit}", suit="").split(":")[0] in (hand.text or "")

    # An admin switches the group to Japanese; Hans keeps German in private.
    mark = fake_telegram.mark()
    await olga.send(group, "/language")
    menu = await fake_telegram.wait_for_message(group, lambda m: bool(m.buttons), since=mark)
    answer = await olga.press_button(group, menu.message_id, contains="日本語")
    assert answer.text
    await fake_telegram.wait_for_message(
        group, lambda m: "切り札" in (m.text or ""), since=mark, timeout=15
    )
    # Hans may not change the group's language; his own menu is his private chat's.
    answer = await hans.press_button(group, menu.message_id, contains="Dansk")
    assert answer.show_alert
