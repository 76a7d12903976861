"""One active seat per person, kept by the database; a seat's chosen cards written alone."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import pytest

from bot.storage import (
    SeatedElsewhereError,
    SeatRecord,
    SqliteStorage,
    StaleVersionError,
    TableNotFoundError,
    TableRecord,
    TableStatus,
)
from bot.storage.migrations import MIGRATIONS, apply_migrations


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "kozel.sqlite3")


@pytest.fixture
async def storage(db_path: str) -> AsyncIterator[SqliteStorage]:
    store = await SqliteStorage.open(db_path)
    yield store
    await store.close()


def lobby(chat_id: int, *users: int) -> TableRecord:
    seats = [SeatRecord(seat=i, user_id=u, name=f"p{u}") for i, u in enumerate(users)]
    creator = users[0] if users else 1
    return TableRecord(0, chat_id, TableStatus.LOBBY, "street", creator, 7, seats=seats)


def sit(table: TableRecord, user_id: int) -> None:
    table.seats.append(SeatRecord(seat=len(table.seats), user_id=user_id, name=f"p{user_id}"))


async def test_a_person_cannot_hold_seats_at_two_active_tables(storage: SqliteStorage) -> None:
    first = await storage.tables.create(lobby(-1, 1, 2))
    with pytest.raises(SeatedElsewhereError):
        await storage.tables.create(lobby(-2, 2))
    other = await storage.tables.create(lobby(-2, 3))
    sit(other, 1)
    with pytest.raises(SeatedElsewhereError):
        await storage.tables.save(other, expected_version=other.version)
    stored = await storage.tables.get(other.id)
    assert stored is not None and [s.user_id for s in stored.seats] == [3]  # nothing written
    # Once the first table is over, its people may sit elsewhere.
    first.status = TableStatus.CANCELLED
    await storage.tables.save(first, expected_version=first.version)
    stored.seats.append(SeatRecord(seat=1, user_id=1, name="p1"))
    await storage.tables.save(stored, expected_version=stored.version)
    found = await storage.tables.active_for_user(1)
    assert found is not None and found.id == other.id


async def test_two_joins_racing_in_two_chats_seat_the_person_once(
    storage: SqliteStorage,
) -> None:
    a = await storage.tables.create(lobby(-1, 10))
    b = await storage.tables.create(lobby(-2, 20))
    sit(a, 5)
    sit(b, 5)
    results = await asyncio.gather(
        storage.tables.save(a, expected_version=a.version),
        storage.tables.save(b, expected_version=b.version),
        return_exceptions=True,
    )
    assert sum(isinstance(r, SeatedElsewhereError) for r in results) == 1, results
    seats = [await storage.tables.get(t.id) for t in (a, b)]
    assert sum(5 in [s.user_id for s in t.seats] for t in seats if t is not None) == 1


async def test_a_removed_player_keeps_the_seat_for_the_rule(storage: SqliteStorage) -> None:
    table = await storage.tables.create(lobby(-1, 1, 2))
    table.status = TableStatus.PLAYING
    table.seats[1].user_id, table.seats[1].left_user_id = None, 2
    table.seats[1].ai_level = "strong"
    await storage.tables.save(table, expected_version=table.version)
    loaded = await storage.tables.get(table.id)
    assert loaded is not None and loaded.seats[1].left_user_id == 2
    assert loaded.seats[1].person_id == 2
    found = await storage.tables.active_for_user(2)
    assert found is not None and found.id == table.id
    with pytest.raises(SeatedElsewhereError):
        await storage.tables.create(lobby(-2, 2))


async def test_any_status_change_frees_the_seats(storage: SqliteStorage, db_path: str) -> None:
    table = await storage.tables.create(lobby(-1, 1))
    async with aiosqlite.connect(db_path) as conn:  # like any other writer would
        await conn.execute("UPDATE game_tables SET status = 'cancelled' WHERE id = ?", (table.id,))
        await conn.commit()
    await storage.tables.create(lobby(-2, 1))


async def test_selecting_cards_rewrites_only_the_seat_and_moves_the_version_on(
    storage: SqliteStorage,
) -> None:
    table = await storage.tables.create(lobby(-1, 1, 2))
    version = await storage.tables.select(
        table.id, 1, ["K♠", "9♠"], active_at=5.0, expected_version=table.version
    )
    loaded = await storage.tables.get(table.id)
    assert loaded is not None
    assert loaded.seats[1].selection == ["K♠", "9♠"] and loaded.seats[1].active_at == 5.0
    assert loaded.version == version == table.version + 1
    assert loaded.updated_at == table.updated_at and loaded.match_state == table.match_state


async def test_a_save_from_before_a_choice_cannot_write_the_seats_back_without_it(
    storage: SqliteStorage,
) -> None:
    """Two workers: one stores a message id on the table it read a moment ago while the
    other stores a tap's choice. The save would write every seat back as it read them: the
    choice would be gone, and the hand's edit would show none (a player waits for a card
    they tapped). The choice moved the version on: the save is told to read again."""
    table = await storage.tables.create(lobby(-1, 1, 2))
    read_earlier = await storage.tables.get(table.id)
    assert read_earlier is not None
    await storage.tables.select(table.id, 1, ["K♠"], active_at=5.0, expected_version=table.version)
    read_earlier.table_message_id = 77
    with pytest.raises(StaleVersionError):
        await storage.tables.save(read_earlier, expected_version=read_earlier.version)
    loaded = await storage.tables.get(table.id)
    assert loaded is not None and loaded.seats[1].selection == ["K♠"]
    loaded.table_message_id = 77  # read again, as ``retry_stale`` does: both are kept
    saved = await storage.tables.save(loaded, expected_version=loaded.version)
    again = await storage.tables.get(saved.id)
    assert again is not None
    assert again.seats[1].selection == ["K♠"] and again.table_message_id == 77


async def test_cards_chosen_at_a_table_that_moved_on_are_not_written(
    storage: SqliteStorage,
) -> None:
    """A tap judged at version v (say, on another worker) while the table moved on to v+1 (a
    card was played, the choices cleared): its choice would come back from the past."""
    table = await storage.tables.create(lobby(-1, 1, 2))
    read_at = table.version
    moved = await storage.tables.get(table.id)
    assert moved is not None
    moved.seats[1].selection = []
    await storage.tables.save(moved, expected_version=moved.version)
    with pytest.raises(StaleVersionError):
        await storage.tables.select(
            table.id, 1, ["K♠", "9♠"], active_at=5.0, expected_version=read_at
        )
    loaded = await storage.tables.get(table.id)
    assert loaded is not None and loaded.seats[1].selection == []
    with pytest.raises(TableNotFoundError):
        await storage.tables.select(404, 1, [], active_at=None, expected_version=1)


async def test_people_seated_twice_before_the_rule_keep_their_newest_seat(db_path: str) -> None:
    async with aiosqlite.connect(db_path, isolation_level=None) as conn:
        await apply_migrations(conn, MIGRATIONS[:4])  # everything before the rule (5)
    conn = sqlite3.connect(db_path)
    try:
        for table_id, chat in ((1, -1), (2, -2), (3, -3)):
            status = "finished" if table_id == 1 else "playing"
            conn.execute(
                "INSERT INTO game_tables (id, chat_id, status, variant, creator_id, seed, "
                "version, created_at, updated_at) VALUES (?, ?, ?, 'street', 9, 1, 1, 0, 0)",
                (table_id, chat, status),
            )
            conn.execute(
                "INSERT INTO seats (table_id, seat, user_id, name) VALUES (?, 0, 9, 'Nine')",
                (table_id,),
            )
        conn.commit()
    finally:
        conn.close()
    store = await SqliteStorage.open(db_path)
    try:
        older, newer = await store.tables.get(2), await store.tables.get(3)
        assert older is not None and newer is not None
        assert older.seats[0].user_id is None and older.seats[0].ai_level == "strong"
        assert newer.seats[0].user_id == 9
        finished = await store.tables.get(1)
        assert finished is not None and finished.seats[0].user_id == 9  # history untouched
    finally:
        await store.close()


async def test_version_9_drops_the_turn_notice_column_and_keeps_the_seats(db_path: str) -> None:
    async with aiosqlite.connect(db_path, isolation_level=None) as conn:
        await apply_migrations(conn, MIGRATIONS[:8])  # before the column went (9)
    conn = sqlite3.connect(db_path)
    try:
        conn.execute(
            "INSERT INTO game_tables (id, chat_id, status, variant, creator_id, seed, version, "
            "created_at, updated_at) VALUES (1, -1, 'playing', 'street', 9, 1, 1, 0, 0)"
        )
        conn.execute(
            "INSERT INTO seats (table_id, seat, user_id, name, hand_message_id, "
            "notice_message_id, active) VALUES (1, 0, 9, 'Nine', 55, 77, 1)"
        )
        conn.commit()
    finally:
        conn.close()
    store = await SqliteStorage.open(db_path)
    try:
        table = await store.tables.get(1)
        assert table is not None and table.seats[0].hand_message_id == 55
        assert table.seats[0].user_id == 9 and table.seats[0].name == "Nine"
    finally:
        await store.close()
    conn = sqlite3.connect(db_path)
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(seats)")}
    finally:
        conn.close()
    assert "notice_message_id" not in columns and "hand_message_id" in columns
