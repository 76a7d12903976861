"""Safe in public groups, in process: one seat per person even when joins race in two chats,
no escaping a loss by /kick or /cancel, chosen cards written alone, no computer-only match."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from service_fakes import (
    GROUP,
    PEOPLE,
    FakeMessenger,
    fire_next,
    make_core,
    press,
    reload,
    seat_four,
    settle,
)

from bot.callback import Callback, Op, encode_card
from bot.service import admin, lobby, moves
from bot.service.core import Core
from bot.service.feed import lobby_key, seating_key
from bot.service.ports import ChatInfo, Person
from bot.service.reply import Press, answered
from bot.storage import SqliteStorage, TableRecord, TableStatus

OTHER = ChatInfo(-200, "Second club", is_private=False)
EVE = Person(900, "Eve", None, "en")


@pytest.fixture
def core(storage: SqliteStorage) -> Core:
    return make_core(storage, FakeMessenger())


async def open_lobby(core: Core, chat: ChatInfo, creator: Person) -> TableRecord:
    await lobby.start_private(core, creator, "")
    await lobby.new_game(core, chat, creator, "street")
    table = await core.storage.tables.active_for_chat(chat.chat_id)
    assert table is not None
    return table


def join_press(table: TableRecord, chat: ChatInfo, person: Person) -> Press:
    return Press(Callback(table.id, table.version, Op.JOIN, ""), person, chat, answered(False))


async def seats_of(core: Core, person: Person) -> int:
    count = 0
    for table in await core.storage.tables.active():
        count += sum(s.user_id == person.user_id for s in table.seats)
    return count


# ------------------------------------------------------------------ one seat per person


async def test_two_joins_at_once_in_two_chats_seat_the_person_once(core: Core) -> None:
    first = await open_lobby(core, GROUP, PEOPLE[0])
    second = await open_lobby(core, OTHER, PEOPLE[1])
    await lobby.start_private(core, EVE, "")
    answers = await asyncio.gather(
        lobby.join(core, join_press(first, GROUP, EVE)),
        lobby.join(core, join_press(second, OTHER, EVE)),
    )
    texts = sorted(a.text for a in answers)
    assert await seats_of(core, EVE) == 1, texts
    assert "You joined the table." in texts
    assert any(text.startswith("You already play at a table in") for text in texts), texts


async def test_a_button_join_and_a_deep_link_at_once_seat_the_person_once(core: Core) -> None:
    first = await open_lobby(core, GROUP, PEOPLE[0])
    second = await open_lobby(core, OTHER, PEOPLE[1])
    await lobby.start_private(core, EVE, "")
    await asyncio.gather(
        lobby.start_private(core, EVE, f"j{second.id}"),
        lobby.join(core, join_press(first, GROUP, EVE)),
    )
    assert await seats_of(core, EVE) == 1


async def test_opening_a_table_while_joining_another_seats_the_opener_once(core: Core) -> None:
    first = await open_lobby(core, GROUP, PEOPLE[0])
    await lobby.start_private(core, EVE, "")
    await asyncio.gather(
        lobby.new_game(core, OTHER, EVE, "street"),
        lobby.join(core, join_press(first, GROUP, EVE)),
    )
    assert await seats_of(core, EVE) == 1
    assert await core.storage.tables.active_for_chat(OTHER.chat_id) is not None  # opened


# ------------------------------------------------------------------ no escaping a loss


async def test_players_cannot_cancel_their_running_match_an_admin_who_does_not_play_can(
    core: Core,
) -> None:
    table = await seat_four(core)
    creator = PEOPLE[0]
    answer = await admin.cancel_command(core, GROUP, creator, answered(True))
    assert answer.text.startswith("You play in this match, so you cannot cancel it")
    onlooker = Person(777, "Olga", None, "en")
    answer = await admin.cancel_command(core, GROUP, onlooker, answered(False))
    assert answer.text.startswith("Only a chat admin who does not play in it")
    assert (await reload(core, table)).status == TableStatus.PLAYING
    answer = await admin.cancel_command(core, GROUP, onlooker, answered(True))
    assert answer.text == "The table is cancelled."
    assert (await reload(core, table)).status == TableStatus.CANCELLED


async def test_a_removed_player_keeps_their_result_and_cannot_cancel_or_sit_elsewhere(
    core: Core, storage: SqliteStorage
) -> None:
    table = await seat_four(core)
    creator = PEOPLE[0]
    for person in (*PEOPLE[1:], creator):  # the opener removes everybody, himself last
        answer = await admin.kick(core, GROUP, creator, person, answered(False))
        assert answer.text.endswith("was removed from the table."), answer.text
    answer = await admin.cancel_command(core, GROUP, creator, answered(True))
    assert answer.text.startswith("You play in this match")
    await lobby.new_game(core, OTHER, creator, "street")
    other = await core.storage.tables.active_for_chat(OTHER.chat_id)
    assert other is not None and other.seats == []  # opened, but he has a seat still
    # The computers play the match out; every seat's result counts for its person.
    while (await reload(core, table)).status == TableStatus.PLAYING:
        assert await fire_next(core)
    await settle(core)
    with sqlite3.connect(storage.path) as conn:
        rows = conn.execute("SELECT user_id, ai_level FROM match_players").fetchall()
    assert sorted(rows) == sorted((p.user_id, None) for p in PEOPLE), rows


# ------------------------------------------------------------------ cheap toggles, people


async def test_choosing_a_card_writes_its_seat_and_the_version_not_the_match(
    core: Core,
) -> None:
    table = await seat_four(core)
    match = core.matches.of(table)
    seat = match.to_move
    assert seat is not None
    view = match.view(seat)
    person = PEOPLE[seat]
    for card in view.hand:
        toggle = press(table, Op.TOGGLE, person, version=match.ply, arg=encode_card(card))
        answer = await moves.toggle(core, toggle)
        fresh = await reload(core, table)
        if fresh.match_state != table.match_state:  # a card that can only go alone was played
            assert answer.text.startswith("Played")
            break
        if fresh.seats[seat].selection:
            assert answer.text.startswith(f"Selected: {card}")
            assert fresh.seats[seat].selection == [str(card)]
            # The version moves on (another worker's older read cannot save over it).
            assert fresh.version == table.version + 1
            break
    else:
        pytest.fail("no card could be chosen")


async def test_computers_alone_cannot_start(core: Core) -> None:
    table = await open_lobby(core, GROUP, PEOPLE[0])
    leave = press(table, Op.LEAVE, PEOPLE[0], version=table.version)
    await lobby.leave(core, leave)
    for _ in range(4):
        table = await reload(core, table)
        add = press(table, Op.ADD_COMPUTER, PEOPLE[0], version=lobby_key(table), arg="strong")
        await lobby.add_computer(core, add)
    table = await reload(core, table)
    start = press(table, Op.START, PEOPLE[0], version=lobby_key(table), arg=seating_key(table))
    answer = await lobby.start(core, start)
    assert answer.alert and answer.text == "At least one person has to sit at the table."
    assert (await reload(core, table)).status == TableStatus.LOBBY
