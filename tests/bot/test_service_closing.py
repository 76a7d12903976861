"""Tables nobody can use are closed: a lobby the group never saw, a lobby nobody starts, a
match nobody plays; and a lobby follows its group when it becomes a supergroup."""

from __future__ import annotations

from dataclasses import replace

from service_fakes import (
    GROUP,
    PEOPLE,
    FakeMessenger,
    due_in,
    fire,
    make_core,
    press,
    reload,
    seat_four,
    settle,
    stored,
)

from bot.callback import Op
from bot.service import admin, lobby
from bot.service.ports import ChatInfo
from bot.service.restart import resume_all
from bot.storage import SqliteStorage, TableStatus


async def test_a_lobby_the_group_cannot_see_is_closed_and_newgame_works_again(
    storage: SqliteStorage,
) -> None:
    messenger = FakeMessenger()
    core = make_core(storage, messenger)
    await lobby.start_private(core, PEOPLE[0], "")
    messenger.unreachable.add(GROUP.chat_id)  # the bot may not write in the group
    await lobby.new_game(core, GROUP, PEOPLE[0], "street")
    await settle(core)
    assert await storage.tables.active_for_chat(GROUP.chat_id) is None
    told = messenger.texts(PEOPLE[0].user_id)[-1]
    assert "could not show the new table in Kozel club" in told

    messenger.unreachable.clear()
    await lobby.new_game(core, GROUP, PEOPLE[0], "street")
    await settle(core)
    table = await storage.tables.active_for_chat(GROUP.chat_id)
    assert table is not None and table.lobby_message_id is not None


async def test_a_lobby_nobody_changes_expires_and_frees_its_players(
    storage: SqliteStorage,
) -> None:
    messenger = FakeMessenger()
    core = make_core(storage, messenger, lobby_expiry=0.0)
    await lobby.start_private(core, PEOPLE[0], "")
    await lobby.new_game(core, GROUP, PEOPLE[0], "street")
    table = await storage.tables.active_for_chat(GROUP.chat_id)
    assert table is not None
    await fire(core, table.id, "expire")
    await settle(core)
    closed = await reload(core, table)
    assert closed.status == TableStatus.CANCELLED
    assert await storage.tables.active_for_user(PEOPLE[0].user_id) is None
    assert any("Nobody started the table" in text for text in messenger.texts(GROUP.chat_id))
    assert await stored(core, table.id) == {}


async def test_an_expiry_that_comes_early_waits_again(storage: SqliteStorage) -> None:
    messenger = FakeMessenger()
    core = make_core(storage, messenger)
    await lobby.new_game(core, GROUP, PEOPLE[0], "street")
    table = await storage.tables.active_for_chat(GROUP.chat_id)
    assert table is not None
    assert await due_in(core, table.id, "expire") > 1790
    await fire(core, table.id, "expire")  # e.g. a clock that ran ahead
    assert (await reload(core, table)).status == TableStatus.LOBBY
    assert await due_in(core, table.id, "expire") > 1790


async def test_a_match_nobody_plays_is_abandoned_and_not_rated(storage: SqliteStorage) -> None:
    messenger = FakeMessenger()
    core = make_core(storage, messenger, idle_match=0.0)
    table = await seat_four(core, timer=0)  # the turn timer is off: nothing moves by itself
    assert "timeout" not in await stored(core, table.id)
    await fire(core, table.id, "expire")
    await settle(core)
    assert (await reload(core, table)).status == TableStatus.CANCELLED
    said = "\n".join(messenger.texts(GROUP.chat_id))
    assert "the match is abandoned. It does not count for the ladder." in said
    assert await storage.ladder.history(chat_id=GROUP.chat_id, season=1) == []
    for person in PEOPLE:
        assert await storage.tables.active_for_user(person.user_id) is None


async def test_a_restart_arms_every_expiry_again_with_time_for_the_downtime(
    storage: SqliteStorage,
) -> None:
    core = make_core(storage, FakeMessenger(), idle_match=10.0)
    table = await seat_four(core, timer=0)
    fresh = make_core(storage, FakeMessenger(), idle_match=10.0)
    await resume_all(fresh)
    assert 9 < await due_in(fresh, table.id, "expire") <= 10


async def test_a_lobby_follows_its_group_into_the_supergroup(storage: SqliteStorage) -> None:
    messenger = FakeMessenger()
    core = make_core(storage, messenger)
    for person in PEOPLE[:2]:
        await lobby.start_private(core, person, "")
    await lobby.new_game(core, GROUP, PEOPLE[0], "street")
    await settle(core)
    new_chat = -1_001_000_000_100
    await admin.chat_migrated(core, GROUP.chat_id, new_chat)
    await admin.chat_migrated(core, GROUP.chat_id, new_chat)  # told twice: posted once
    await settle(core)
    table = await storage.tables.active_for_chat(new_chat)
    assert table is not None and table.lobby_message_id is not None
    (shown,) = messenger.in_chat(new_chat)
    assert shown.message_id == table.lobby_message_id and shown.screen.buttons
    joined = press(table, Op.JOIN, PEOPLE[1], version=table.version)
    joined = replace(joined, chat=ChatInfo(new_chat, GROUP.title, is_private=False))
    answer = await lobby.join(core, joined)
    assert answer.text == "You joined the table."
