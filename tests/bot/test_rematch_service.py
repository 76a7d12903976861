"""The rematch and /nextgame as use cases: two workers pressing 🔁 at once open one lobby,
and presses that are not a player's, or not of this chat, change nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from service_fakes import GROUP, PEOPLE, FakeMessenger, make_core, no
from storage_targets import Target

from bot.callback import Callback, Op
from bot.service import lobby, nextgame, rematch
from bot.service.core import Core
from bot.service.people import chat_record
from bot.service.ports import ChatInfo, Person
from bot.service.reply import Press
from bot.storage import SeatRecord, Storage, TableRecord, TableStatus

ANN, BOB, CID, DAN = PEOPLE


@pytest.fixture
async def stores(target: Target) -> AsyncIterator[tuple[Storage, Storage]]:
    """Two workers' connections to one database."""
    first, second = await target.open(), await target.open()
    yield first, second
    await first.close()
    await second.close()


def again(table_id: int, person: Person, chat: ChatInfo = GROUP) -> Press:
    return Press(Callback(table_id, 0, Op.AGAIN), person, chat, no)


async def finished_table(
    core: Core, status: TableStatus = TableStatus.FINISHED, options: dict[str, object] | None = None
) -> TableRecord:
    """Ann, Bob, a computer and Cid played a street match in GROUP; Cid sits at another table
    now (in another group); Dan only watched."""
    for person in PEOPLE:
        await lobby.start_private(core, person, "")
    await chat_record(core, GROUP)
    seats = [
        SeatRecord(0, ANN.user_id, "Ann"),
        SeatRecord(1, BOB.user_id, "Bob"),
        SeatRecord(2, None, "Ivan", ai_level="expert"),
        SeatRecord(3, CID.user_id, "Cid"),
    ]
    table = TableRecord(0, GROUP.chat_id, status, "street", ANN.user_id, 5, seats=seats)
    table.options = dict(options or {})
    table = await core.storage.tables.create(table)
    elsewhere = TableRecord(0, -200, TableStatus.LOBBY, "moscow", CID.user_id, 6)
    elsewhere.seats = [SeatRecord(0, CID.user_id, "Cid")]
    await core.storage.tables.create(elsewhere)
    return table


async def posts_to(target: Target, chat_id: int) -> list[str]:
    rows = await target.query(
        "SELECT text FROM outbox WHERE kind = 'post' AND chat_id = ? ORDER BY id", (chat_id,)
    )
    return [str(row[0]) for row in rows]


async def test_two_workers_pressing_rematch_at_once_open_one_lobby(
    target: Target, stores: tuple[Storage, Storage]
) -> None:
    one = make_core(stores[0], FakeMessenger())  # type: ignore[arg-type]
    two = make_core(stores[1], FakeMessenger())  # type: ignore[arg-type]
    finished = await finished_table(one)
    answers = await asyncio.gather(
        rematch.again(one, again(finished.id, ANN)), rematch.again(two, again(finished.id, BOB))
    )
    assert sorted(a.text for a in answers) == [
        "A new table is already open in this chat (see above).",
        "Rematch! The new table is open in the group.",
    ]
    (table,) = [t for t in await one.storage.tables.active_in_chat(GROUP.chat_id)]
    assert table.status == TableStatus.LOBBY and table.variant == "street"
    # The same seats, in order, but Cid's: he sits at another table now.
    assert [(s.user_id, s.name, s.ai_level) for s in table.seats] == [
        (ANN.user_id, "Ann", None),
        (BOB.user_id, "Bob", None),
        (None, "Ivan", "expert"),
    ]
    for person in (ANN, BOB):
        (line,) = await posts_to(target, person.user_id)
        assert line.startswith("🔁 Rematch in <b>Kozel club</b>")
    assert await posts_to(target, CID.user_id) == []
    # A third press, later, opens nothing either.
    answer = await rematch.again(two, again(finished.id, ANN))
    assert answer.text == "A new table is already open in this chat (see above)."
    assert await one.storage.tables.newest_id(GROUP.chat_id) == table.id
    # Bob will not play again: the Leave under his private line gives his seat up.
    private = ChatInfo(BOB.user_id, "Bob", is_private=True)
    leave = Press(Callback(table.id, 0, Op.LEAVE), BOB, private, no)
    assert (await lobby.leave(two, leave)).text == "You left the table."
    fresh = await one.storage.tables.get(table.id)
    assert fresh is not None and [s.name for s in fresh.seats] == ["Ann", "Ivan"]


async def test_presses_that_are_not_a_players_change_nothing(
    target: Target, stores: tuple[Storage, Storage]
) -> None:
    core = make_core(stores[0], FakeMessenger())  # type: ignore[arg-type]
    finished = await finished_table(core)
    other_chat = ChatInfo(-300, "Elsewhere", is_private=False)
    refusals = [
        (again(finished.id, DAN), "Only the players of that table can ask for a rematch."),
        (again(finished.id, ANN, other_chat), "This button does not belong to this chat."),
        (again(finished.id + 1000, ANN), "This button does not belong to this chat."),
    ]
    for press, text in refusals:
        answer = await rematch.again(core, press)
        assert (answer.text, answer.alert) == (text, True)
    # A table still open is no rematch's to copy.
    still_open = await open_table_in(core, -400)
    answer = await rematch.again(core, again(still_open.id, ANN, ChatInfo(-400, "B", False)))
    assert answer.text == "This button is not valid."
    assert await core.storage.tables.newest_id(GROUP.chat_id) == finished.id
    assert await core.storage.tables.newest_id(-400) == still_open.id
    # The bell from another chat signs nobody up.
    bell = Press(Callback(finished.id, 0, Op.NEXT), ANN, other_chat, no)
    assert (await nextgame.press(core, bell)).alert
    assert await core.storage.signups.of(-300, None) == []
    assert await core.storage.signups.of(GROUP.chat_id, None) == []


async def open_table_in(core: Core, chat_id: int) -> TableRecord:
    seats = [SeatRecord(0, None, "Ivan", ai_level="expert")]
    table = TableRecord(0, chat_id, TableStatus.LOBBY, "moscow", ANN.user_id, 5, seats=seats)
    return await core.storage.tables.create(table)


async def test_a_rematch_keeps_the_house_rules(stores: tuple[Storage, Storage]) -> None:
    """A match played to 6 with eggs doubling: its rematch plays by the same house rules."""
    core = make_core(stores[0], FakeMessenger())  # type: ignore[arg-type]
    finished = await finished_table(core, options={"goat_at": 6, "eggs": "double"})
    answer = await rematch.again(core, again(finished.id, BOB))
    assert answer.text == "Rematch! The new table is open in the group."
    (table,) = await core.storage.tables.active_in_chat(GROUP.chat_id)
    assert table.variant == "street" and table.options == {"goat_at": 6, "eggs": "double"}
