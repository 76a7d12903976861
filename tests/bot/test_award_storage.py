"""Achievements and partnerships in the store, on SQLite and PostgreSQL: awarded inside the
transaction that records the match (from each person's past in the chat), kept per chat for
ever (moving with a migrated chat), and the partnerships read from the matches."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator, Mapping

import pytest
from ladder_fixtures import teams
from storage_targets import Target

from bot.service.rating import rate
from bot.storage import (
    Awarding,
    MatchRecord,
    OutboxKind,
    Owed,
    PlayerPast,
    Priority,
    SeatRecord,
    Storage,
    TableRecord,
    TableStatus,
)

CHAT = -100


@pytest.fixture
async def storage(target: Target) -> AsyncIterator[Storage]:
    store = await target.open()
    yield store
    await store.close()


class Recorder:
    """An awarder that gives every person ``first_match`` (once) and remembers what it saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, dict[int, PlayerPast]]] = []

    def __call__(self, match_id: int, pasts: Mapping[int, PlayerPast]) -> Awarding:
        self.seen.append((match_id, dict(pasts)))
        awards = [(user, "first_match") for user, past in pasts.items() if past.matches == 0]
        text = "result " + ",".join(str(user) for user, _ in awards)
        return Awarding(awards, [Owed(OutboxKind.POST, CHAT, Priority.TURN, None, text=text)])


async def finish(storage: Storage, record: MatchRecord, award: Recorder) -> int:
    """Create a table, then save it finished with ``record`` (its id set) and ``award``."""
    users = [p.user_id for p in record.players_list]
    seats = [SeatRecord(seat=i, user_id=u, name=f"P{u}") for i, u in enumerate(users)]
    table = await storage.tables.create(
        TableRecord(0, CHAT, TableStatus.PLAYING, "street", users[0] or 1, 1, seats=seats)
    )
    table.status = TableStatus.FINISHED
    record.table_id = table.id
    owe = [Owed(OutboxKind.POST, CHAT, Priority.TURN, None, text="result without awards")]
    await storage.tables.save(
        table, expected_version=table.version, match=record, award=award, owe=owe
    )
    return table.id


async def write(target: Target, sql: str) -> None:
    """Change the store behind its back, as another process (an older release) would."""
    if target.is_postgres:
        await target.query(sql)
        return
    with contextlib.closing(sqlite3.connect(target.where, isolation_level=None)) as conn:
        conn.execute(sql)


async def posts(target: Target) -> list[str]:
    rows = await target.query("SELECT text FROM outbox WHERE kind = 'post' ORDER BY id")
    return [str(r["text"]) for r in rows]


async def test_awards_are_stored_with_the_match_and_seen_in_the_next_past(
    storage: Storage, target: Target
) -> None:
    award = Recorder()
    await finish(storage, teams(0, CHAT, [1, 2], [3, 4]), award)
    ((match_id, first),) = award.seen
    assert set(first) == {1, 2, 3, 4}
    # Nothing before; the partners of this match have played together 0 times.
    assert first[1] == PlayerPast(partners={2: 0})
    assert first[4] == PlayerPast(partners={3: 0})
    # The awarder's answer takes the place of what the save owed.
    assert await posts(target) == ["result 1,2,3,4"]
    earned = await storage.awards.earned(CHAT)
    assert {(e.user_id, e.achievement, e.name) for e in earned} == {
        (u, "first_match", f"P{u}") for u in (1, 2, 3, 4)
    }
    rows = await target.query("SELECT match_id FROM achievements")
    assert {int(r["match_id"]) for r in rows} == {match_id}

    await finish(storage, teams(0, CHAT, [1, 5], [2, 3]), award)
    _second_id, second = award.seen[1]
    assert second[1].matches == 1 and second[1].wins == 1 and second[1].goats == 0
    assert second[1].recent == ((True, False),)
    assert second[1].partners == {5: 0}  # this match's partner only
    assert second[1].earned == frozenset({"first_match"})
    assert second[3].recent == ((False, True),) and second[3].goats == 1
    assert second[5] == PlayerPast(partners={1: 0})
    assert (await posts(target))[-1] == "result 5"
    assert [e.achievement for e in await storage.awards.earned(CHAT, 5)] == ["first_match"]

    await finish(storage, teams(0, CHAT, [4, 3], [2, 1]), award)
    _third_id, third = award.seen[2]
    assert third[1].partners == {2: 1} and third[2].partners == {1: 1}
    assert third[3].partners == {4: 1}
    assert third[1].matches == 2 and third[1].recent == ((True, False), (True, False))


async def test_another_chat_has_a_past_of_its_own(storage: Storage) -> None:
    award = Recorder()
    await finish(storage, teams(0, CHAT, [1, 2], [3, 4]), award)
    await finish(storage, teams(0, -200, [1, 2], [3, 4]), award)
    assert all(p.matches == 0 for p in award.seen[1][1].values())
    assert len(await storage.awards.earned(-200)) == 4
    assert await storage.awards.count(1) == 2 and await storage.awards.count(9) == 0


async def test_a_migrated_chat_keeps_its_achievements(storage: Storage) -> None:
    await finish(storage, teams(0, CHAT, [1, 2], [3, 4]), Recorder())
    await storage.chats.migrate(CHAT, -1009)
    assert await storage.awards.earned(CHAT) == []
    assert len(await storage.awards.earned(-1009)) == 4


async def test_pairs_count_partners_whichever_seats_they_took(storage: Storage) -> None:
    award = Recorder()
    await finish(storage, teams(0, CHAT, [1, 2], [3, 4], loser_points=12, winner_points=4), award)
    await finish(storage, teams(0, CHAT, [2, 1], [4, 3], loser_points=12, winner_points=2), award)
    await finish(storage, teams(0, CHAT, [3, 4], [1, 2], loser_points=13, winner_points=0), award)
    await finish(storage, teams(0, CHAT, [1, "strong"], [3, "basic"]), award)
    pairs = {(p.low, p.high): p for p in await storage.awards.pairs(CHAT)}
    assert set(pairs) == {(1, 2), (3, 4)}  # a computer partner is not a partnership
    one_two = pairs[(1, 2)]
    assert (one_two.matches, one_two.wins, one_two.defeat_points) == (3, 2, 4 + 2 + 13)
    assert (one_two.low_name, one_two.high_name) == ("P1", "P2")
    assert [(p.low, p.high) for p in await storage.awards.pairs(CHAT, user_id=4)] == [(3, 4)]
    assert await storage.awards.pairs(-200) == []


async def test_waits_are_stored_per_seat_and_summed_per_person(storage: Storage) -> None:
    first = teams(0, CHAT, [1, 2], [3, 4])
    first.players_list[0].timeouts = 2
    first.players_list[0].stand_in_deals = 1
    second = teams(0, CHAT, [3, 1], [2, 4])
    second.players_list[1].timeouts = 1  # seat 1 is person 2 (a loser)
    second.players_list[2].stand_in_deals = 3  # seat 2 is person 1
    await finish(storage, first, Recorder())
    await finish(storage, second, Recorder())
    await finish(storage, teams(0, -200, [1, 2], [3, 4]), Recorder())
    assert await storage.awards.waits(CHAT, 1) == (2, 4)
    assert await storage.awards.waits(CHAT, 2) == (1, 0)
    assert await storage.awards.waits(CHAT, 4) == (0, 0)
    assert await storage.awards.waits(-200, 1) == (0, 0)
    (match,) = await storage.ladder.history(chat_id=-200, season=1, limit=1)
    assert all(p.timeouts == 0 for p in match.record.players_list)
    recorded = await storage.ladder.history(chat_id=CHAT, season=1, limit=2)
    oldest = recorded[-1].record.players_list[0]
    assert (oldest.user_id, oldest.timeouts, oldest.stand_in_deals) == (1, 2, 1)


async def test_the_past_counts_rated_and_unrated_matches_alike(storage: Storage) -> None:
    for number in range(3):  # rated into the ladder as they are recorded, two seasons
        await storage.ladder.record(teams(500 + number, CHAT, [1, 2], [3, 4]), rate=rate)
        if number == 0:
            await storage.ladder.start_season(CHAT, after=1)
    await storage.ladder.record(teams(600, CHAT, [3, 4], [1, 2]))  # waits to be rated
    award = Recorder()
    await finish(storage, teams(0, CHAT, [1, 3], [2, 4]), award)
    _id, past = award.seen[0]
    assert (past[1].matches, past[1].wins, past[1].goats) == (4, 3, 1)
    assert (past[3].matches, past[3].wins, past[3].goats) == (4, 1, 3)
    assert past[1].recent == ((False, True), (True, False), (True, False), (True, False))
    assert past[1].partners == {3: 0} and past[2].partners == {4: 0}


async def test_pairs_an_older_release_recorded_are_counted_when_read(
    storage: Storage, target: Target
) -> None:
    for _ in range(3):
        await finish(storage, teams(0, CHAT, [1, 2], [3, 4]), Recorder())
    # As an older release leaves them: recorded, never added to the pairs.
    await write(target, "UPDATE matches SET in_pairs = 0")
    await write(target, "DELETE FROM pair_lines")
    assert await target.count("SELECT COUNT(*) FROM matches WHERE in_pairs = 0") == 3
    lines = await storage.awards.pairs(CHAT, least=3)
    assert {(p.low, p.high, p.matches) for p in lines} == {(1, 2, 3), (3, 4, 3)}
    assert await target.count("SELECT COUNT(*) FROM matches WHERE in_pairs = 0") == 0
    again = await storage.awards.pairs(CHAT, least=3)  # counted once
    assert {(p.low, p.high, p.matches) for p in again} == {(1, 2, 3), (3, 4, 3)}
    await storage.chats.migrate(CHAT, -1009)
    moved = await storage.awards.pairs(-1009, least=3)
    assert {(p.low, p.high, p.matches) for p in moved} == {(1, 2, 3), (3, 4, 3)}
    assert await storage.awards.pairs(CHAT) == []
