"""A cup in the database, on both backends: four sign up and no fifth, a round's table and
its link are written together (a round opens once), and the cup's message is kept."""

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
    SeatRecord,
    Storage,
    TableRecord,
    TableStatus,
)
from bot.storage.conn import Conn
from bot.storage.cups import CupFullError, CupPlayer, CupRecord, CupStatus, post_id


@pytest.fixture
async def storage(target: Target) -> AsyncIterator[Storage]:
    store = await target.open()
    yield store
    await store.close()


def cup_post(text: str, table_id: int = 0) -> Owed:
    return Owed(OutboxKind.POST, -100, Priority.TURN, table_id, text=text)


async def new_cup(storage: Storage) -> CupRecord:
    cup = CupRecord(0, -100, None, "street", 1, options={"goat_at": 6})
    cup.players.append(CupPlayer(0, 1, "Anna"))
    return await storage.cups.create(cup, owe=[cup_post("sign up")])


async def test_four_sign_up_and_a_fifth_is_refused(storage: Storage, target: Target) -> None:
    cup = await new_cup(storage)
    rows = await target.query("SELECT table_id, text FROM outbox")
    assert [(r["table_id"], r["text"]) for r in rows] == [(post_id(cup.id), "sign up")]
    # Four at once for the three places left: three get one, in order, and nothing more.
    joins = await asyncio.gather(
        *(storage.cups.join(cup.id, CupPlayer(0, u, f"P{u}")) for u in (2, 3, 4, 5)),
        return_exceptions=True,
    )
    assert sum(isinstance(j, CupFullError) for j in joins) == 1
    stored = await storage.cups.get(cup.id)
    assert stored is not None
    assert [p.seat for p in stored.players] == [0, 1, 2, 3]
    assert stored.players[0].user_id == 1
    assert stored.options == {"goat_at": 6}
    with pytest.raises(CupFullError):
        await storage.cups.join(cup.id, CupPlayer(0, 9, "Late"))


async def test_a_round_opens_with_its_table_once(storage: Storage) -> None:
    cup = await new_cup(storage)

    def table() -> TableRecord:
        seats = [SeatRecord(i, 10 + i, f"P{i}") for i in range(4)]
        return TableRecord(0, -100, TableStatus.LOBBY, "street", 1, 7, seats=seats)

    async def link(conn: Conn, table_id: int) -> None:
        await storage.cups.link_round(conn, cup.id, 1, table_id, [12])

    first = await storage.tables.create(
        table(), owe=[cup_post("round 1", post_id(cup.id))], also=link
    )
    stored = await storage.cups.get(cup.id)
    assert stored is not None and stored.status is CupStatus.PLAYING
    assert stored.rounds == {1: first.id}
    found = await storage.cups.of_table(first.id)
    assert found is not None and found[1] == 1
    # A second try fails as a whole: no second table, no second link, no second post.
    with pytest.raises(ActiveTableExistsError):
        await storage.tables.create(table(), owe=[cup_post("again", post_id(cup.id))], also=link)
    again = await storage.cups.get(cup.id)
    assert again is not None and again.rounds == {1: first.id}
    assert [p.forfeited for p in again.players] == [False]
    await storage.cups.set_message(cup.id, 55)
    await storage.cups.set_message(cup.id, 66)  # the first message sent stays the cup's
    assert (await storage.cups.get(cup.id)).message_id == 55  # type: ignore[union-attr]


async def test_a_cup_whose_newest_match_is_over_is_found_stalled(storage: Storage) -> None:
    """A stop between a cup's match ending and the cup going on: the start finds it."""
    cup = await new_cup(storage)
    seats = [SeatRecord(i, 10 + i, f"P{i}") for i in range(4)]
    table = TableRecord(0, -100, TableStatus.LOBBY, "street", 1, 7, seats=seats)

    async def link(conn: Conn, table_id: int) -> None:
        await storage.cups.link_round(conn, cup.id, 1, table_id, [])

    table = await storage.tables.create(table, also=link)
    assert await storage.cups.stalled() == []  # its match is still to be played
    table.status = TableStatus.FINISHED
    await storage.tables.save(table, expected_version=table.version)
    assert await storage.cups.stalled() == [table.id]
    assert await storage.cups.update(cup.id, finished=True)
    assert await storage.cups.stalled() == []


async def test_a_cup_finishes_once_and_shows_in_its_chat(storage: Storage) -> None:
    cup = await new_cup(storage)
    await storage.cups.join(cup.id, CupPlayer(0, 2, "Boris"))
    assert await storage.cups.update(cup.id, forfeited=[2], finished=True) is True
    assert await storage.cups.update(cup.id, finished=True) is False  # another worker's turn
    (done,) = await storage.cups.finished_in_chat(-100)
    assert done.status is CupStatus.FINISHED and done.finished_at is not None
    assert [p.forfeited for p in done.players] == [False, True]
    assert await storage.cups.finished_in_chat(-200) == []
