"""The group's evening goes on: a rematch in one tap, and word of the next table in private."""

from __future__ import annotations

import asyncio
import re

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import StoredMessage
from fakebot.server import FakeTelegram
from fakebot.users import SimUser

from .driver import BOTH_BACKENDS, ENV_FAST, MATCH_OVER, Table, op_of, open_table, rows

pytestmark = [pytest.mark.e2e]


def result_of(fake: FakeTelegram, table: Table) -> StoredMessage:
    (result,) = [m for m in fake.messages(table.group) if (m.text or "").startswith(MATCH_OVER)]
    return result


def group_posts(fake: FakeTelegram, table: Table) -> list[StoredMessage]:
    return [m for m in fake.messages(table.group) if m.from_bot]


def lobbies(fake: FakeTelegram, table: Table) -> list[StoredMessage]:
    return [m for m in group_posts(fake, table) if any(op_of(b) == "join" for b in m.buttons)]


async def a_finished_match(
    fake: FakeTelegram, bot_process: BotProcessFactory
) -> tuple[Table, list[SimUser]]:
    """Anna against a computer (moscow, two seats) played to the end; Boris and Vera look on."""
    table, users, _ = await open_table(
        fake, bot_process, ("Anna", "Boris", "Vera"), "moscow goat=6", seated=1, env=ENV_FAST
    )
    await table.add_computer(users[0])
    await table.start(users[0])
    await table.play(users[:1])
    return table, users


@BOTH_BACKENDS
async def test_a_rematch_opens_the_same_table_once(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    table, (anna, boris, _) = await a_finished_match(fake, bot_process)
    first_lobby = table.lobby()
    result = result_of(fake, table)
    computer = re.search(r"🤖 \w+", result.text or "")
    assert computer is not None
    sent_in_match = len(group_posts(fake, table))
    # The result carries the rematch and the bell: no message more than before.
    assert [op_of(b) for b in result.buttons] == ["again", "next"]
    assert result.buttons[0].text.startswith("🔁")

    # Boris only watched: not his rematch to ask for, and nothing opens.
    answer = await boris.press_button(table.group, result.message_id, contains="🔁")
    assert answer.show_alert and "Only the players" in (answer.text or "")

    mark = fake.mark()
    answer = await anna.press_button(table.group, result.message_id, contains="🔁")
    assert "Rematch" in (answer.text or ""), answer.text
    lobby = await fake.wait_for_message(
        table.group, lambda m: any(op_of(b) == "join" for b in m.buttons), since=mark
    )
    assert lobby.message_id != first_lobby.message_id
    text = lobby.text or ""
    assert f"1. Anna\n2. {computer.group(0)} (strong)" in text and "Moscow" in text
    assert "Boris" not in text
    line = await fake.wait_for_message(
        anna, lambda m: (m.text or "").startswith("🔁 Rematch in"), since=mark
    )
    assert "Kozel club" in (line.text or "")
    assert [op_of(b) for b in line.buttons] == ["leave"]

    # A second press (and another person's) opens nothing: one lobby, one group message more.
    again = await anna.press_button(table.group, result.message_id, contains="🔁")
    assert "already open" in (again.text or ""), again.text
    await asyncio.sleep(0.5)  # what the press might have sent has come
    assert [m.message_id for m in lobbies(fake, table)] == [lobby.message_id]
    assert len(group_posts(fake, table)) == sent_in_match + 1
    rematch_lines = [m for m in fake.messages(anna) if (m.text or "").startswith("🔁")]
    assert len(rematch_lines) == 1

    # The new lobby starts as any lobby does, and its match is played to the end.
    table.lobby_id = lobby.message_id
    await table.start(anna)
    await table.play(
        [anna],
        until=lambda: (
            len([m for m in fake.messages(table.group) if (m.text or "").startswith(MATCH_OVER)])
            == 2
        ),
    )
    # Now a table newer than the first exists: the first result's 🔁 says so.
    posted = len(group_posts(fake, table))
    late = await anna.press_button(table.group, result.message_id, contains="🔁")
    assert late.show_alert and "/newgame" in (late.text or ""), late.text
    await asyncio.sleep(0.5)
    assert len(group_posts(fake, table)) == posted and not lobbies(fake, table)
    fake.assert_no_unknown_calls()


async def command(fake: FakeTelegram, table: Table, user: SimUser, text: str) -> StoredMessage:
    """Send a command in the table's chat (topic) and wait for the bot's reply to it."""
    mark = fake.mark()
    sent = await user.send(table.group, text, topic=table.topic)
    return await fake.wait_for_message(
        table.group,
        lambda m: m.reply_to is not None and m.reply_to.message_id == sent.message_id,
        since=mark,
    )


def news(fake: FakeTelegram, user: SimUser) -> list[StoredMessage]:
    return [m for m in fake.messages(user) if (m.text or "").startswith("🔔")]


async def cancel(fake: FakeTelegram, table: Table, user: SimUser) -> StoredMessage:
    """Cancel the open lobby; the closed lobby (with its bell) once it shows."""
    lobby = table.lobby()
    answer = await user.press_button(
        table.group, lobby.message_id, predicate=lambda b: op_of(b) == "cancel"
    )
    assert "cancelled" in (answer.text or ""), answer.text
    return await fake.wait_for(
        lambda: table.lobby() if any(op_of(b) == "next" for b in table.lobby().buttons) else None,
        what="the closed lobby",
    )


@BOTH_BACKENDS
async def test_next_game_tells_each_sign_up_once_in_private(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna, boris, vera, gleb = users = [fake.add_user(n) for n in ("Anna", "Boris", "Vera", "Gleb")]
    table = Table(fake, fake.add_group("Kozel club", users, admins=[anna]))
    for user in (anna, boris, vera):  # Gleb never started the bot
        await table.start_private(user)

    said = await command(fake, table, boris, "/nextgame")
    assert "I will tell you in private" in (said.text or "")
    said = await command(fake, table, gleb, "/nextgame")
    assert "first open a chat with me" in (said.text or "")
    (button,) = said.buttons
    assert button.url and button.url.endswith("?start=n")
    await command(fake, table, vera, "/nextgame")
    said = await command(fake, table, vera, "/nextgame")  # taken back
    assert "you will not hear" in (said.text or "")
    await command(fake, table, anna, "/nextgame")  # she opens the table herself: no word
    await bot.restart()  # the sign-ups are the chat's, not the process's

    mark = fake.mark()  # the word may come before the lobby does
    await table.open(anna, "moscow")
    told = await fake.wait_for_message(boris, lambda m: (m.text or "").startswith("🔔"), since=mark)
    assert told.text == "🔔 A new table is open in Kozel club."
    (join,) = told.buttons
    assert join.url is not None and join.url.endswith(f"?start=j{table_id(table)}")
    # The Join button seats him through the private chat.
    mark = fake.mark()
    await boris.start_bot(join.url.split("start=", 1)[1])
    await fake.wait_for_message(boris, lambda m: "You have a seat" in (m.text or ""), since=mark)
    await fake.wait_for(lambda: "Boris" in table.lobby_text(), what="Boris seated")

    # The sign-up is used up: a second table tells nobody.
    closed = await cancel(fake, table, anna)
    await table.open(vera, "street")
    await asyncio.sleep(1.0)  # what the sender owes has long gone by now
    assert [len(news(fake, u)) for u in (anna, boris, vera)] == [0, 1, 0]
    # Gleb could not be told: his sign-up waits until he starts the bot.
    assert news(fake, gleb) == []
    assert rows(bot.db, "SELECT user_id FROM next_game") == [(gleb.id,)]

    # The bell on a closed lobby signs up again, for the table after the open one.
    answer = await boris.press_button(table.group, closed.message_id, contains="🔔")
    assert "I will tell you in private" in (answer.text or ""), answer.text
    await cancel(fake, table, vera)
    await table.open(anna, "moscow")
    await fake.wait_for(lambda: len(news(fake, boris)) == 2, what="word of the third table")
    fake.assert_no_unknown_calls()


def table_id(table: Table) -> int:
    found = re.match(r"v1:(\d+):", table.lobby().buttons[0].callback_data or "")
    assert found is not None
    return int(found.group(1))


async def test_in_a_forum_word_is_of_the_topic_signed_up_in(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna, boris = users = [fake.add_user(n) for n in ("Anna", "Boris")]
    forum = fake.add_group("Kozel forum", users, admins=[anna], forum=True)
    a = Table(fake, forum, topic=fake.create_topic(forum, "Table A", by=anna))
    b = Table(fake, forum, topic=fake.create_topic(forum, "Table B", by=anna))
    for user in users:
        await a.start_private(user)
    await command(fake, a, boris, "/nextgame")
    await b.open(anna, "moscow")
    await asyncio.sleep(1.0)
    assert news(fake, boris) == []
    mark = fake.mark()  # the word may come before the lobby does
    await a.open(anna, "moscow")
    told = await fake.wait_for_message(boris, lambda m: (m.text or "").startswith("🔔"), since=mark)
    assert "Kozel forum" in (told.text or "")
    await asyncio.sleep(0.5)
    assert len(news(fake, boris)) == 1
