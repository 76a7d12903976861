"""A table always has a working message or is closed: a lobby the group cannot see, a lobby
nobody starts, a match nobody plays, a lobby whose group becomes a supergroup."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram

from .driver import ENV_FAST, Table, open_table

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("code", "description"),
    [
        (400, "Bad Request: not enough rights to send text messages to the chat"),
        (403, "Forbidden: bot was kicked from the group chat"),
    ],
)
async def test_a_lobby_the_group_cannot_see_is_closed_and_newgame_works_again(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory, code: int, description: str
) -> None:
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    host = fake_telegram.add_user("Host")
    group = fake_telegram.add_group("Kozel club", [host], admins=[host])
    table = Table(fake_telegram, group)
    await table.start_private(host)
    restricted = [True]  # an admin took the bot's right to write in the group
    fake_telegram.inject_error(
        "sendMessage",
        code,
        description,
        times=10_000,
        when=lambda p: restricted[0] and int(p["chat_id"]) == group.id,
    )
    mark = fake_telegram.mark()
    await host.send(group, "/newgame street")
    told = await fake_telegram.wait_for_message(
        host, lambda m: "could not show the new table" in (m.text or ""), since=mark, timeout=20
    )
    assert "Kozel club" in (told.text or "")
    restricted[0] = False  # the right is given back: /newgame opens a table at once
    await table.open(host, "street")
    await table.add_computer(host)


async def test_a_lobby_follows_its_group_into_the_supergroup(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    names = ("Anna", "Boris", "Vera", "Gleb")
    table, users, _ = await open_table(fake_telegram, bot_process, names, "street", seated=2)
    supergroup = fake_telegram.migrate_to_supergroup(table.group)
    moved = Table(fake_telegram, supergroup)
    lobby = await fake_telegram.wait_for_message(
        supergroup, lambda m: any(b.text.endswith("Join") for b in m.buttons), timeout=15
    )
    assert "Boris" in (lobby.text or "")
    moved.lobby_id = lobby.message_id
    for user in users[2:]:
        await moved.join(user)
    await moved.start(users[0])


async def outbox_empty(db: object, timeout: float = 20.0) -> None:
    """Everything owed was sent (the database changes without a call to wake a waiter)."""
    for _ in range(int(timeout / 0.05)):
        with sqlite3.connect(str(db)) as conn:
            if int(conn.execute("SELECT count(*) FROM outbox").fetchone()[0]) == 0:
                return
        await asyncio.sleep(0.05)
    raise AssertionError("the outbox did not empty")


def status_and_matches(db: object) -> tuple[list[str], int]:
    with sqlite3.connect(str(db)) as conn:
        statuses = [str(s) for (s,) in conn.execute("SELECT status FROM game_tables ORDER BY id")]
        matches = int(conn.execute("SELECT count(*) FROM matches").fetchone()[0])
    return statuses, matches


async def edits_to(fake: FakeTelegram, chat_id: int, since: int) -> list[int]:
    return [
        c.seq
        for c in fake.calls
        if c.seq > since and c.method == "editMessageText" and c.params.get("chat_id") == chat_id
    ]


@pytest.mark.waits(5)
async def test_a_lobby_nobody_starts_expires_and_a_restart_leaves_it_alone(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    env = {**ENV_FAST, "KOZEL_LOBBY_EXPIRY": "2"}
    table, users, bot = await open_table(
        fake_telegram, bot_process, ("Anna", "Boris"), "street", seated=1, env=env
    )
    await fake_telegram.wait_for(
        lambda: "Nobody started the table" in table.group_text(), timeout=20, what="the expiry"
    )
    await fake_telegram.wait_for(lambda: "cancelled" in table.lobby_text(), timeout=10)
    assert status_and_matches(bot.db_path) == (["cancelled"], 0)
    await outbox_empty(bot.db_path)
    await bot.restart()
    mark = fake_telegram.mark()
    await asyncio.sleep(1.5)
    assert await edits_to(fake_telegram, table.group.id, mark) == []
    # Anna is free again: she opens a new table in the same group.
    await table.open(users[0], "street")


@pytest.mark.waits(6)
async def test_a_match_nobody_plays_is_abandoned_unrated_and_its_players_are_free(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    # The turn timer is out of the way (60 s * 1000); nobody moves for 3 s: abandoned.
    env = {**ENV_FAST, "KOZEL_IDLE_MATCH": "3", "KOZEL_TIMEOUT_SCALE": "1000"}
    table, users, bot = await open_table(
        fake_telegram, bot_process, ("Anna", "Boris"), "street", seated=2, env=env
    )
    await table.add_computer(users[0], "basic")
    await table.add_computer(users[0], "random")
    await table.start(users[0])
    await fake_telegram.wait_for(
        lambda: "the match is abandoned" in table.group_text(), timeout=30, what="abandonment"
    )
    assert "It does not count for the ladder" in table.group_text()
    assert status_and_matches(bot.db_path) == (["cancelled"], 0)
    await outbox_empty(bot.db_path)
    await bot.restart()
    mark = fake_telegram.mark()
    await asyncio.sleep(1.5)
    assert await edits_to(fake_telegram, table.group.id, mark) == []
    # Both players are free: Boris opens a table elsewhere and Anna joins it.
    other = fake_telegram.add_group("Other club", users, admins=users[1:])
    elsewhere = Table(fake_telegram, other)
    await elsewhere.open(users[1], "moscow")
    await elsewhere.join(users[0])


async def test_a_deep_link_join_while_the_lobby_is_being_sent_breaks_nothing(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna, boris = fake_telegram.add_user("Anna"), fake_telegram.add_user("Boris")
    group = fake_telegram.add_group("Kozel club", [anna, boris], admins=[anna])
    table = Table(fake_telegram, group)
    for user in (anna, boris):
        await table.start_private(user)
    fake_telegram.set_delay("sendMessage", 1.0)  # Telegram is slow to take the lobby
    mark, sends = fake_telegram.mark(), fake_telegram.received_count("sendMessage")
    await anna.send(group, "/newgame street")
    await fake_telegram.wait_for(
        lambda: fake_telegram.received_count("sendMessage") > sends, timeout=10, what="the send"
    )
    await boris.start_bot("j1")  # the link from a lobby that is on its way
    reply = await fake_telegram.wait_for_message(boris, since=mark, timeout=10)
    assert "You have a seat at the table in Kozel club" in (reply.text or "")
    fake_telegram.set_delay("sendMessage", 0)
    lobby = await fake_telegram.wait_for_message(
        group, lambda m: "Boris" in (m.text or ""), since=mark, timeout=10
    )
    lobbies = [m for m in fake_telegram.messages(group) if "new table" in (m.text or "")]
    assert [m.message_id for m in lobbies] == [lobby.message_id]
