"""Forum topics in process: each topic of a chat holds its own table, everything a table says in
the group goes to its topic, and a table whose topic is gone ends cleanly."""

from __future__ import annotations

from dataclasses import replace

from service_fakes import (
    GROUP,
    PEOPLE,
    FakeMessenger,
    Message,
    press,
    reload,
    settle,
)

from bot.callback import Op
from bot.service import admin, feed, info, lobby
from bot.service.core import Core
from bot.storage import TableRecord, TableStatus

TOPIC_A = replace(GROUP, thread_id=5)
TOPIC_B = replace(GROUP, thread_id=6)


async def table_in(core: Core, thread_id: int | None) -> TableRecord:
    table = await core.storage.tables.active_for_chat(GROUP.chat_id, thread_id)
    assert table is not None
    return table


async def test_each_topic_has_its_own_table_and_its_messages(
    core: Core, messenger: FakeMessenger
) -> None:
    for person in PEOPLE:
        await lobby.start_private(core, person, "")
    assert (await lobby.new_game(core, TOPIC_A, PEOPLE[0], "moscow")).text == ""
    assert (await lobby.new_game(core, TOPIC_B, PEOPLE[1], "street")).text == ""
    assert (await lobby.new_game(core, GROUP, PEOPLE[2], "ziege")).text == ""  # General
    refused = await lobby.new_game(core, TOPIC_A, PEOPLE[3], None)
    assert "already open" in refused.text
    await settle(core)

    a, b, general = await table_in(core, 5), await table_in(core, 6), await table_in(core, None)
    assert (a.variant, b.variant, general.variant) == ("moscow", "street", "ziege")
    for table, thread in ((a, 5), (b, 6), (general, None)):
        assert table.lobby_message_id is not None
        assert messenger.messages[table.lobby_message_id].thread_id == thread

    # Commands act on the table of the topic they were sent in.
    assert "No match is running" in (await info.score(core, TOPIC_A, PEOPLE[0])).text
    cancelled = await admin.cancel_command(core, TOPIC_B, PEOPLE[1], is_admin=_no)
    assert cancelled.text == "The table is cancelled."
    assert (await reload(core, b)).status == TableStatus.CANCELLED
    assert (await reload(core, a)).status == TableStatus.LOBBY
    assert (await reload(core, general)).status == TableStatus.LOBBY
    assert "no open table" in (await admin.cancel_command(core, TOPIC_B, PEOPLE[1], _no)).text

    # Topic A's match: every group message of it goes to topic A.
    a = await reload(core, a)
    answer = await lobby.add_computer(
        core, press(a, Op.ADD_COMPUTER, PEOPLE[0], version=feed.lobby_key(a))
    )
    assert answer.text == "A computer player took a seat."
    a = await reload(core, a)
    start = press(a, Op.START, PEOPLE[0], version=a.version, arg=feed.seating_key(a))
    assert (await lobby.start(core, start)).text == "The match begins!"
    await settle(core)
    a = await reload(core, a)
    assert a.table_message_id is not None
    assert messenger.messages[a.table_message_id].thread_id == 5
    in_group = messenger.in_chat(GROUP.chat_id)
    assert {m.thread_id for m in in_group} == {5, 6, None}
    assert all(m.thread_id == 5 for m in in_group if f"v1:{a.id}:" in _data(m))


async def test_a_table_whose_topic_is_gone_is_closed_and_its_players_are_free(
    core: Core, messenger: FakeMessenger
) -> None:
    for person in PEOPLE[:2]:
        await lobby.start_private(core, person, "")
    await lobby.new_game(core, TOPIC_A, PEOPLE[0], "moscow")
    table = await table_in(core, 5)
    await lobby.join(core, press(table, Op.JOIN, PEOPLE[1], version=table.version))
    table = await reload(core, table)
    start = press(table, Op.START, PEOPLE[0], version=table.version, arg=feed.seating_key(table))
    await lobby.start(core, start)
    await settle(core)

    messenger.gone_topics.add((GROUP.chat_id, 5))  # deleted: its messages went with it
    for message_id in [m.message_id for m in messenger.in_chat(GROUP.chat_id)]:
        await messenger.delete(GROUP.chat_id, message_id)
    # The next deal comes as a new table message (as after every deal: the result takes the
    # old one's place).
    table = await reload(core, table)
    table.table_message_id = None
    await core.storage.tables.save(
        table, expected_version=table.version, owe=[feed.group_table(core, table, renew=True)]
    )
    await settle(core)

    table = await reload(core, table)
    assert table.status == TableStatus.CANCELLED
    assert await core.storage.tables.active_for_user(PEOPLE[1].user_id) is None
    hands = messenger.in_chat(PEOPLE[1].user_id)
    assert hands and hands[-1].screen.text == "The table in Kozel club was cancelled."
    assert messenger.in_chat(GROUP.chat_id) == []  # nothing landed outside the topic
    # The players may open a table elsewhere at once.
    assert (await lobby.new_game(core, TOPIC_B, PEOPLE[1], None)).text == ""
    await settle(core)
    assert [m.thread_id for m in messenger.in_chat(GROUP.chat_id)] == [6]


async def test_a_lobby_whose_topic_is_gone_before_it_shows_is_closed(
    core: Core, messenger: FakeMessenger
) -> None:
    await lobby.start_private(core, PEOPLE[0], "")
    messenger.gone_topics.add((GROUP.chat_id, 5))
    await lobby.new_game(core, TOPIC_A, PEOPLE[0], None)
    table = await table_in(core, 5)
    await settle(core)
    assert (await reload(core, table)).status == TableStatus.CANCELLED
    assert await core.storage.tables.active_for_user(PEOPLE[0].user_id) is None
    assert messenger.in_chat(GROUP.chat_id) == []


async def _no() -> bool:
    return False


def _data(message: Message) -> str:
    return " ".join(b.data or "" for row in message.screen.buttons for b in row)


async def test_the_bot_removed_from_a_forum_closes_the_table_of_every_topic(
    core: Core, messenger: FakeMessenger
) -> None:
    for person in PEOPLE[:3]:
        await lobby.start_private(core, person, "")
    for chat, person in ((TOPIC_A, PEOPLE[0]), (TOPIC_B, PEOPLE[1]), (GROUP, PEOPLE[2])):
        await lobby.new_game(core, chat, person, None)
    await settle(core)
    await admin.bot_removed(core, GROUP.chat_id)
    assert await core.storage.tables.active_in_chat(GROUP.chat_id) == []
    for person in PEOPLE:
        assert await core.storage.tables.active_for_user(person.user_id) is None
