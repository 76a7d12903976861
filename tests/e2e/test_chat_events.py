"""Telegram's answers and chat events are normal events: blocks, upgrades, removals, limits."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.process import BotProcess
from fakebot.server import FakeTelegram
from fakebot.users import SimUser

from .driver import ENV_FAST, Table, actions, current_ply, open_table

pytestmark = pytest.mark.e2e


async def table_of_two(
    fake: FakeTelegram, bot_process: BotProcessFactory, env: dict[str, str] | None = None
) -> tuple[Table, list[SimUser], BotProcess]:
    names = ("Anna", "Boris", "Vera")
    return await open_table(fake, bot_process, names, "moscow goat=6", seated=2, env=env)


async def test_one_table_per_group_and_one_seat_per_person(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, _ = await table_of_two(fake_telegram, bot_process)
    mark = fake_telegram.mark()
    await users[2].send(table.group, "/newgame street")
    reply = await fake_telegram.wait_for_message(table.group, since=mark)
    assert "already open" in (reply.text or "")
    # Boris sits here; a table in another group tells him where he plays.
    other = fake_telegram.add_group("Other club", users, admins=users[2:])
    other_table = Table(fake_telegram, other)
    await other_table.open(users[2], "moscow")
    lobby = other_table.lobby()
    answer = await users[1].press_button(other, lobby.message_id, contains="Join")
    assert answer.show_alert
    assert "You already play at a table in Kozel club" in (answer.text or "")


async def test_only_the_creator_or_an_admin_cancels(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, _ = await table_of_two(fake_telegram, bot_process)
    answer = await users[1].press_button(table.group, table.lobby().message_id, contains="Cancel")
    assert answer.show_alert
    assert "Only the player who opened the table or a chat admin" in (answer.text or "")
    mark = fake_telegram.mark()
    await users[0].send(table.group, "/cancel")
    reply = await fake_telegram.wait_for_message(table.group, since=mark)
    assert "cancelled" in (reply.text or "")
    await fake_telegram.wait_for(lambda: "was cancelled" in (table.lobby_text()))


@pytest.mark.waits(20)
async def test_a_player_who_blocks_the_bot_is_replaced_by_a_computer(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    # The bot learns of the block when a call to Boris fails; if none is due before his
    # turn, his turn timer hands the seat over: shortened here (a quarter of the real one).
    env = {**ENV_FAST, "KOZEL_TIMEOUT_SCALE": "0.25"}
    table, users, bot = await table_of_two(fake_telegram, bot_process, env)
    await table.start(users[0])
    users[1].block_bot()
    # Anna plays on; Boris's hand cannot be updated any more: the table says so.
    await table.play(users[:1], until=lambda: "cannot reach Boris" in table.group_text())
    await table.play(users[:1])
    assert table.match_over()
    boris = [by for seat, _, by in actions(bot.db_path) if seat == 1]
    assert boris[-1] == "computer"


async def test_the_table_follows_a_group_upgraded_to_a_supergroup(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, bot = await table_of_two(fake_telegram, bot_process)
    await table.start(users[0])
    ply = current_ply(bot.db_path)
    supergroup = fake_telegram.migrate_to_supergroup(table.group)
    moved = Table(fake_telegram, supergroup)
    await moved.play(users[:2])
    assert moved.match_over()
    assert current_ply(bot.db_path) > ply
    mark = fake_telegram.mark()
    await users[0].send(supergroup, "/newgame")
    await fake_telegram.wait_for_message(
        supergroup, lambda m: "new table" in (m.text or ""), since=mark, timeout=30
    )  # the group's flood limit (20 a minute) may hold the reply for a while


async def test_removing_the_bot_closes_the_table(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, _ = await table_of_two(fake_telegram, bot_process)
    await table.start(users[0])
    mark = fake_telegram.mark()
    fake_telegram.set_admin(table.group, users[2])
    fake_telegram.remove_bot_from(table.group, by=users[2])  # an admin who does not play
    for user in users[:2]:
        message = await fake_telegram.wait_for_message(
            user, lambda m: "was cancelled" in (m.text or ""), since=mark
        )
        assert not message.buttons


async def test_a_player_removing_the_bot_does_not_cancel_the_match(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """Removing the bot would cancel one's own match (it would never reach the ladder): the
    match plays on in the private chats, where each hand shows the table."""
    table, users, bot = await table_of_two(fake_telegram, bot_process)
    await table.start(users[0])
    fake_telegram.remove_bot_from(table.group, by=users[0])
    await asyncio.sleep(1.0)
    for user in users[:2]:
        assert not any("was cancelled" in (m.text or "") for m in fake_telegram.messages(user))
    with sqlite3.connect(bot.db_path) as conn:
        assert conn.execute("SELECT status FROM game_tables").fetchone()[0] == "playing"
    for user in users[:2]:
        hand = table.hand(user)
        assert hand is not None and hand.buttons  # the cards can still be played


async def test_flood_limits_are_retried(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, _ = await table_of_two(fake_telegram, bot_process)
    fake_telegram.inject_error("sendMessage", 429, retry_after=1, times=2)
    await table.start(users[0])  # the lobby becomes the table (an edit); the hands are sent
    await fake_telegram.wait_for(
        lambda: any(c.status == 429 for c in fake_telegram.calls_to("sendMessage")),
        timeout=10,
        what="a 429 on a hand",
    )
    await table.play(users[:2])
    assert table.match_over()
