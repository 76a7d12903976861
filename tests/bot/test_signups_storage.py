"""Sign-ups for a chat's next table, a post's buttons and a chat's newest table, on both
backends: what /nextgame and the rematch rely on the database for."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from storage_targets import Target

from bot.storage import (
    ActiveTableExistsError,
    OutboxKind,
    Owed,
    Priority,
    Storage,
    TableRecord,
    TableStatus,
)


@pytest.fixture
async def storage(target: Target) -> AsyncIterator[Storage]:
    store = await target.open()
    yield store
    await store.close()


def note(user_id: int, text: str = "a new table") -> Owed:
    return Owed(OutboxKind.POST, user_id, Priority.WAITING, 7, text=text, buttons='[["x"]]')


async def test_a_sign_up_toggles_and_is_per_topic(storage: Storage) -> None:
    assert await storage.signups.toggle(-1, None, 5) is True
    assert await storage.signups.toggle(-1, 9, 6) is True
    assert await storage.signups.toggle(-1, None, 7) is True
    assert await storage.signups.of(-1, None) == [5, 7]
    assert await storage.signups.of(-1, 9) == [6]
    assert await storage.signups.toggle(-1, None, 5) is False  # taken back
    assert await storage.signups.of(-1, None) == [7]
    assert await storage.signups.of(-2, None) == []


async def test_a_sign_up_is_used_once_with_its_message(storage: Storage) -> None:
    for user in (5, 6):
        await storage.signups.toggle(-1, None, user)
    # Two workers opening tables at once: each sign-up brings one message, whoever wins.
    first, second = await asyncio.gather(
        storage.signups.take(-1, None, {5: [note(5)], 6: [note(6)], 8: [note(8)]}),
        storage.signups.take(-1, None, {5: [note(5)], 6: [note(6)]}),
    )
    assert sorted(first + second) == [5, 6]
    due = await storage.outbox.due(now=10**10)
    assert sorted(item.chat_id for item in due) == [5, 6]  # 8 never signed up
    assert {item.buttons for item in due} == {'[["x"]]'}  # a post keeps its buttons
    assert await storage.signups.of(-1, None) == []
    assert await storage.signups.take(-1, None, {5: [note(5)]}) == []


async def test_sign_ups_move_with_a_group_that_became_a_supergroup(storage: Storage) -> None:
    await storage.signups.toggle(-1, None, 5)
    await storage.chats.migrate(-1, -100)
    assert await storage.signups.of(-1, None) == []
    assert await storage.signups.of(-100, None) == [5]


def lobby(chat_id: int, thread_id: int | None = None) -> TableRecord:
    return TableRecord(0, chat_id, TableStatus.LOBBY, "moscow", 1, 7, thread_id=thread_id)


async def test_the_newest_table_of_a_chat_and_one_open_table(storage: Storage) -> None:
    assert await storage.tables.newest_id(-1) is None
    first = await storage.tables.create(lobby(-1))
    topic = await storage.tables.create(lobby(-1, 4))
    assert await storage.tables.newest_id(-1) == first.id
    assert await storage.tables.newest_id(-1, 4) == topic.id
    # A second open table in the chat is refused by the database (two rematch presses).
    with pytest.raises(ActiveTableExistsError):
        await storage.tables.create(lobby(-1))
    first.status = TableStatus.FINISHED
    await storage.tables.save(first, expected_version=first.version)
    second = await storage.tables.create(lobby(-1))
    assert await storage.tables.newest_id(-1) == second.id > first.id
