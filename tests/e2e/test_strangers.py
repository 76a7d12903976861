"""Public groups: forged menu presses, stale lobby presses, strangers with deep links, shared
identities, and texts that must fit Telegram's limits."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram

from bot.storage import ChatRecord, SqliteStorage

sys.path.insert(0, str(Path(__file__).parent.parent / "bot"))
from ladder_fixtures import teams

from .driver import ENV_FAST, Table, is_hand, open_table

pytestmark = pytest.mark.e2e


async def test_a_forged_menu_press_on_the_lobby_changes_nothing(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, _ = await open_table(
        fake_telegram, bot_process, ("Anna", "Boris"), "street", seated=1
    )
    lobby = table.lobby()
    before = (lobby.text, lobby.buttons)
    for data in ("v1:0:0:rules:ziege", "v1:0:0:lang:de", "v1:0:0:set:t30", "v1:0:1:reset:yes"):
        answer = await users[1].press(table.group, lobby.message_id, data, forged=True)
        assert answer.show_alert, data
        assert "does not belong to this message" in (answer.text or ""), answer.text
    # The group's admin too: rights do not make a lobby a menu.
    answer = await users[0].press(table.group, lobby.message_id, "v1:0:0:lang:de", forged=True)
    assert "does not belong to this message" in (answer.text or "")
    lobby = table.lobby()
    assert (lobby.text, lobby.buttons) == before
    assert not fake_telegram.calls_to("getChatMember")  # refused before asking for rights
    # The real menu still works where it was sent.
    mark = fake_telegram.mark()
    await users[1].send(table.group, "/rules")
    menu = await fake_telegram.wait_for_message(table.group, lambda m: bool(m.buttons), since=mark)
    answer = await users[1].press_button(table.group, menu.message_id, contains="Classic")
    assert not answer.show_alert
    await fake_telegram.wait_for(
        lambda: "Classic" in (fake_telegram.message(table.group, menu.message_id).text or "")
    )
    assert table.lobby().text == before[0]
    fake_telegram.assert_no_unknown_calls()


async def test_old_lobby_presses_that_depend_on_the_seats_are_refused_and_show_the_lobby(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, _ = await open_table(
        fake_telegram, bot_process, ("Anna", "Boris", "Vera"), "street", seated=1
    )
    anna, boris, _vera = users
    old = table.lobby()
    add = old.button(contains="strong").callback_data or ""
    moscow = old.button(contains="Moscow").callback_data or ""
    join = old.button(contains="Join").callback_data or ""
    await table.add_computer(anna)
    # The same "add a computer" again (a double tap, or an old screen): not a second one.
    answer = await anna.press(table.group, table.lobby_id, add, forged=True)
    assert "The table has changed" in (answer.text or ""), answer.text
    assert table.lobby_text().count("(strong)") == 1
    answer = await anna.press(table.group, table.lobby_id, moscow, forged=True)
    assert "The table has changed" in (answer.text or "")
    assert "Street" in table.lobby_text()
    # Joining is the presser's own business: an old Join still seats (and twice, once).
    answer = await boris.press(table.group, table.lobby_id, join, forged=True)
    assert answer.text == "You joined the table.", answer.text
    answer = await boris.press(table.group, table.lobby_id, join, forged=True)
    assert answer.text == "You already have a seat at this table."
    await fake_telegram.wait_for(lambda: "Boris" in table.lobby_text())
    assert "Vera" not in table.lobby_text()
    # The current buttons work.
    await table.add_computer(anna)
    assert table.lobby_text().count("(strong)") == 2
    fake_telegram.assert_no_unknown_calls()


async def test_deep_links_seat_only_members_of_the_group_and_bad_links_get_an_answer(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, _ = await open_table(
        fake_telegram, bot_process, ("Anna", "Boris", "Vera", "Gleb"), "street", seated=1
    )
    anna, boris, vera, gleb = users
    stranger = fake_telegram.add_user("Mallory")
    await table.start_private(stranger)
    table_id = table.lobby().button(contains="Join").callback_data.split(":")[1]  # type: ignore[union-attr]

    async def start(user: object, payload: str) -> str:
        mark = fake_telegram.mark()
        await user.start_bot(payload)  # type: ignore[attr-defined]
        reply = await fake_telegram.wait_for_message(user, since=mark)  # type: ignore[arg-type]
        return reply.text or ""

    nothing = await start(stranger, "j999999")
    assert nothing == "That table is no longer open."
    assert await start(stranger, f"j{table_id}") == nothing  # says nothing about the table
    fake_telegram.ban(table.group, gleb)
    assert await start(gleb, f"j{table_id}") == nothing
    fake_telegram.user_leaves(table.group, vera)
    assert await start(vera, f"j{table_id}") == nothing
    fake_telegram.restrict(table.group, boris)  # muted, but in the group: may play
    assert "You have a seat" in await start(boris, f"j{table_id}")
    await fake_telegram.wait_for(lambda: "Boris" in table.lobby_text())
    text = table.lobby_text()
    assert "Boris" in text and "Mallory" not in text and "Gleb" not in text
    assert "Vera" not in text
    # Links that are not ours: a polite answer each, and the bot keeps going.
    for payload in ("j²", "j" + "9" * 25, "j0", "j-1", "jx", "j 1", "j١"):
        assert "link is not valid" in await start(stranger, payload), payload
    assert "You already have a seat" in await start(boris, f"j{table_id}")
    # Boris leaves the group: the lobby's buttons are out of his reach, his private chat not.
    fake_telegram.user_leaves(table.group, boris)
    seated = next(m for m in fake_telegram.messages(boris) if "You have a seat" in (m.text or ""))
    answer = await boris.press_button(boris, seated.message_id, contains="Leave")
    assert answer.text == "You left the table."
    await fake_telegram.wait_for(lambda: "Boris" not in table.lobby_text())
    assert "Hello" in await start(anna, "")
    fake_telegram.assert_no_unknown_calls()


async def test_sending_as_a_channel_or_anonymously_opens_no_table(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna = fake_telegram.add_user("Anna")
    group = fake_telegram.add_group("Kozel club", [anna], admins=[anna])
    channel = fake_telegram.add_channel("Kozel news")
    mark = fake_telegram.mark()
    fake_telegram.post_as_chat(group, "/newgame", channel=channel)
    reply = await fake_telegram.wait_for_message(group, since=mark)
    assert "writing as a channel" in (reply.text or ""), reply.text
    mark = fake_telegram.mark()
    fake_telegram.post_as_chat(group, "/newgame street")  # an anonymous admin
    reply = await fake_telegram.wait_for_message(group, since=mark)
    assert "anonymously" in (reply.text or ""), reply.text
    assert not any(m.buttons for m in fake_telegram.messages(group))  # no lobby
    # Anna herself opens one.
    table = Table(fake_telegram, group)
    await table.open(anna, "street")
    fake_telegram.assert_no_unknown_calls()


async def test_the_kick_menu_removes_anyone_seated_and_their_seat_reads_right(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, _ = await open_table(
        fake_telegram, bot_process, ("Anna", "Boris", "Vera"), "street goat=6", seated=3
    )
    anna, boris, _vera = users

    async def kick_menu(by: object) -> int:
        mark = fake_telegram.mark()
        await by.send(table.group, "/kick")  # type: ignore[attr-defined]
        menu = await fake_telegram.wait_for_message(
            table.group, lambda m: "Whom should I remove" in (m.text or ""), since=mark
        )
        return menu.message_id

    # In the lobby: Vera never wrote in the group; /kick alone offers a button for her.
    menu = await kick_menu(anna)
    answer = await boris.press_button(table.group, menu, contains="Vera")
    assert answer.show_alert and "Only the player who opened the table" in (answer.text or "")
    answer = await anna.press_button(table.group, menu, contains="Vera")
    assert "Vera was removed" in (answer.text or ""), answer.text
    await fake_telegram.wait_for(lambda: "Vera" not in table.lobby_text())
    assert "Vera" not in (fake_telegram.message(table.group, menu).text or "") or not any(
        "Vera" in b.text for b in fake_telegram.message(table.group, menu).buttons
    )
    await table.add_computer(anna)
    await table.add_computer(anna)
    await table.start(anna)
    # In the match: Boris is removed; a computer finishes his seat, his hand goes.
    hand = await fake_telegram.wait_for(lambda: table.hand(boris), what="Boris's hand")
    menu = await kick_menu(anna)
    mark = fake_telegram.mark()
    answer = await anna.press_button(table.group, menu, contains="Boris")
    assert "Boris was removed" in (answer.text or "")
    await fake_telegram.wait_for_message(
        boris, lambda m: "You were removed" in (m.text or ""), since=mark
    )
    await fake_telegram.wait_for(lambda: hand.deleted, what="Boris's hand deleted")
    await table.play([anna])
    over = next(
        m.text or ""
        for m in fake_telegram.messages(table.group)
        if "match is over" in (m.text or "")
    )
    assert "Boris (left; a computer finished)" in over, over
    assert "🤖 Boris" not in over
    assert not any(is_hand(m) for m in fake_telegram.messages(boris))
    fake_telegram.assert_no_unknown_calls()


async def test_answers_to_presses_are_plain_text_within_telegrams_limit(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna, boris = fake_telegram.add_user("Anna"), fake_telegram.add_user("Boris")
    title = "Tom & Jerry " + "&" * 116  # 128 characters, Telegram's longest title
    cartoon = Table(fake_telegram, fake_telegram.add_group(title, [anna, boris], admins=[anna]))
    other = Table(fake_telegram, fake_telegram.add_group("Kozel club", [anna, boris]))
    for user in (anna, boris):
        await cartoon.start_private(user)
    await cartoon.open(anna, "street")
    await cartoon.join(boris)
    await other.open(anna, "street")
    answer = await boris.press_button(other.group, other.lobby_id, contains="Join", timeout=5)
    assert answer.show_alert
    assert answer.text == f"You already play at a table in {title}.", answer.text
    fake_telegram.assert_no_unknown_calls()


async def test_a_private_history_with_long_titles_and_names_arrives(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV_FAST)
    anna = fake_telegram.add_user("Anna" + "a" * 60)  # 64 characters: Telegram's longest
    # Ten finished matches in groups with Telegram's longest titles, players with the longest
    # names: written into the bot's database before it starts (playing them takes minutes).
    store = await SqliteStorage.open(str(bot.db_path))
    try:
        for i in range(10):
            chat_id = -500 - i
            await store.chats.upsert(ChatRecord(chat_id=chat_id, title=f"{i} " + "&" * 126))
            record = teams(i + 1, chat_id, [anna.id, 2], [3, 4])
            players = [dataclasses.replace(p, name="N" * 64) for p in record.players_list]
            await store.ladder.record(dataclasses.replace(record, players_list=players))
    finally:
        await store.close()
    await bot.start()
    await Table(fake_telegram, fake_telegram.add_group("Kozel club", [anna])).start_private(anna)
    mark = fake_telegram.mark()
    await anna.send(anna, "/history")
    history = await fake_telegram.wait_for_message(anna, since=mark, timeout=5)
    text = history.text or ""
    assert text.startswith("📜 Your latest matches") and len(text) <= 4096
    assert "more match" in text and "&&&" in text
    assert not fake_telegram.failed_calls()
    fake_telegram.assert_no_unknown_calls()
