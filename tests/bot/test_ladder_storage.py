"""The ladder on both backends (``target``): rating recorded matches, seasons, queries; on SQLite
also its query plans and the upgrade from version 1."""

from __future__ import annotations

import copy
import json
import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import aiosqlite
import pytest
from conftest import MakeTarget
from ladder_fixtures import START, free_for_all, teams
from storage_targets import Target

from bot.service.rating import rate
from bot.storage import (
    ALL_VARIANTS,
    ChatRecord,
    MatchRecord,
    Rating,
    RatingChange,
    SqliteStorage,
    Storage,
    TableRecord,
    TableStatus,
    UserRecord,
    player_key,
)
from bot.storage import ladder_queries as sql
from bot.storage.migrations import MIGRATIONS, apply_migrations, latest_version


class Clock:
    def __init__(self, start: float = START) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "kozel.sqlite3")


@pytest.fixture
async def storage(target: Target) -> AsyncIterator[Storage]:
    store = await target.open(clock=Clock())
    yield store
    await store.close()


def query(db_path: str, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    try:
        return list(conn.execute(sql, params))
    finally:
        conn.close()


async def dump_ladder(target: Target) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    standings = await target.query(
        "SELECT * FROM ladder_standings ORDER BY chat_id, player, season, variant"
    )
    changes = await target.query("SELECT * FROM rating_changes ORDER BY match_id, seat, variant")
    return [tuple(r) for r in standings], [tuple(r) for r in changes]


CHAT = -100


# ------------------------------------------------------------------ rating on record


async def test_a_recorded_match_is_rated_in_its_variant_and_overall(
    storage: Storage, target: Target
) -> None:
    match_id = await storage.ladder.record(teams(1, CHAT, [1, 2], [3, "strong"]), rate=rate)

    for scope in ("street", ALL_VARIANTS):
        lines = {line.player: line for line in await storage.ladder.top(CHAT, 1, scope)}
        assert set(lines) == {"u1", "u2", "u3", "ai:strong"}
        assert lines["u1"].rating.value > 1000 > lines["u3"].rating.value
        assert lines["u1"].rating.mu > 25 > lines["ai:strong"].rating.mu
        assert (lines["u1"].tally.matches, lines["u1"].tally.wins, lines["u1"].tally.goats) == (
            1,
            1,
            0,
        )
        assert (lines["u3"].tally.wins, lines["u3"].tally.goats, lines["u3"].tally.losses) == (
            0,
            1,
            1,
        )
        loser = lines["ai:strong"]
        assert loser.user_id is None and loser.ai_level == "strong"
        assert (loser.tally.defeat_points_taken, loser.tally.defeat_points_given) == (12, 4)
        assert (lines["u2"].tally.defeat_points_taken, lines["u2"].tally.defeat_points_given) == (
            4,
            12,
        )
        assert lines["u2"].last_match_id == match_id
    assert await storage.ladder.top(CHAT, 1, "moscow") == []

    # every seat's rating before and after, per scope
    changes = await target.query(
        "SELECT seat, variant, rank, rating_before, rating_after FROM rating_changes "
        "WHERE match_id = ? ORDER BY variant, seat",
        (match_id,),
    )
    assert len(changes) == 8
    for row in changes:
        assert row["rating_before"] == pytest.approx(1000)
        won = row["seat"] % 2 == 0
        assert row["rank"] == (1 if won else 2)
        assert (row["rating_after"] > row["rating_before"]) is won
    assert (await target.query("SELECT in_ladder, season FROM matches"))[0][:] == (1, 1)


async def test_recording_the_same_table_again_counts_once(storage: Storage, target: Target) -> None:
    record = teams(7, CHAT, [1, 2], [3, 4])
    first = await storage.ladder.record(record, rate=rate)
    before = await dump_ladder(target)
    assert await storage.ladder.record(copy.deepcopy(record), rate=rate) == first
    assert await dump_ladder(target) == before
    line = await storage.ladder.standing(CHAT, 1, ALL_VARIANTS, "u1")
    assert line is not None and line[1].tally.matches == 1


async def test_rating_later_gives_the_same_ladder_as_rating_at_once(
    make_target: MakeTarget,
) -> None:
    matches = [
        teams(1, CHAT, [1, 2], [3, 4]),
        teams(2, CHAT, [3, 1], [2, "basic"], variant="ziege"),
        free_for_all(3, CHAT, [4, 2, 1]),
        teams(4, -200, [1, 5], [6, 7]),
        teams(5, CHAT, [2, 4], [1, 3]),
    ]
    at_once, later = await make_target(), await make_target()
    store = await at_once.open(clock=Clock())
    for match in matches:
        await store.ladder.record(match, rate=rate)
    await store.close()
    store = await later.open(clock=Clock())
    for match in matches:
        await store.ladder.record(match)
    assert await dump_ladder(later) == ([], [])
    assert await store.ladder.update(rate, CHAT) == 4
    assert await store.ladder.update(rate) == 1  # the other chat
    assert await store.ladder.update(rate) == 0
    await store.close()
    assert await dump_ladder(later) == await dump_ladder(at_once)


async def test_a_backlog_is_rated_in_batches_in_order(make_target: MakeTarget) -> None:
    matches = [teams(n, CHAT, [n % 5, 10 + n % 3], [20 + n % 4, "basic"]) for n in range(1, 12)]
    at_once, batched = await make_target(), await make_target()
    store = await at_once.open(clock=Clock())
    for match in matches:
        await store.ladder.record(match, rate=rate)
    await store.close()
    store = await batched.open(clock=Clock())
    store.ladder.batch = 3  # type: ignore[attr-defined]
    for match in matches[:8]:
        await store.ladder.record(match)  # a backlog, as after an upgrade
    # a new match catches up three older ones; the rest and the new one wait, in order
    await store.ladder.record(matches[8], rate=rate)
    assert await batched.count("SELECT count(*) FROM matches WHERE in_ladder = 1") == 3
    assert await store.ladder.update(rate, CHAT) == 6
    for match in matches[9:]:
        await store.ladder.record(match, rate=rate)
    await store.close()
    assert await dump_ladder(batched) == await dump_ladder(at_once)


async def test_records_without_sides_do_not_break_the_ladder(storage: Storage) -> None:
    empty = teams(1, CHAT, [1, 2], [3, 4])
    empty.players_list.clear()
    lonely = teams(2, CHAT, [1, 2], [3, 4])
    for player in lonely.players_list:
        player.side = 0
    await storage.ladder.record(empty, rate=rate)
    await storage.ladder.record(lonely, rate=rate)
    await storage.ladder.record(teams(3, CHAT, [1, 2], [3, 4]), rate=rate)
    lines = {line.player: line for line in await storage.ladder.top(CHAT, 1, ALL_VARIANTS)}
    assert lines["u1"].tally.matches == 2 and lines["u1"].rating.value > 1000


async def test_a_failing_rater_records_nothing(storage: Storage, target: Target) -> None:
    def broken(match: MatchRecord, before: Sequence[Rating | None]) -> list[RatingChange]:
        raise RuntimeError("model exploded")

    with pytest.raises(RuntimeError):
        await storage.ladder.record(teams(1, CHAT, [1, 2], [3, 4]), rate=broken)
    assert (await target.query("SELECT count(*) FROM matches"))[0][0] == 0
    assert await dump_ladder(target) == ([], [])


async def test_finishing_a_table_records_and_rates_in_one_transaction(
    storage: Storage, target: Target
) -> None:
    table = await storage.tables.create(
        TableRecord(
            id=0, chat_id=CHAT, status=TableStatus.PLAYING, variant="street", creator_id=1, seed=1
        )
    )
    stale = copy.deepcopy(table)
    table.status = TableStatus.FINISHED
    await storage.tables.save(
        table, expected_version=1, match=teams(table.id, CHAT, [1, 2], [3, 4]), rate=rate
    )
    assert len(await storage.ladder.top(CHAT, 1, ALL_VARIANTS)) == 4
    with pytest.raises(Exception, match="version"):
        await storage.tables.save(
            stale, expected_version=1, match=teams(table.id + 1, CHAT, [5, 6], [7, 8]), rate=rate
        )
    assert (await target.query("SELECT count(*) FROM ladder_standings WHERE player = 'u5'"))[0][
        0
    ] == 0


async def test_one_computer_level_in_several_seats_is_one_line(storage: Storage) -> None:
    await storage.ladder.record(teams(1, CHAT, [1, "strong"], ["strong", 2]), rate=rate)
    lines = {line.player: line for line in await storage.ladder.top(CHAT, 1, ALL_VARIANTS)}
    assert set(lines) == {"u1", "u2", "ai:strong"}
    bot = lines["ai:strong"].tally
    assert (bot.matches, bot.wins, bot.goats) == (2, 1, 1)  # one seat won, one lost


# ------------------------------------------------------------------ seasons


async def test_a_reset_starts_a_season_and_keeps_the_old_one(
    storage: Storage, target: Target
) -> None:
    assert (await storage.ladder.season(CHAT)).season == 1
    await storage.ladder.record(teams(1, CHAT, [1, 2], [3, 4]), rate=rate)
    old_top = await storage.ladder.top(CHAT, 1, ALL_VARIANTS)

    started = await storage.ladder.start_season(CHAT, after=1, by=1)
    assert started is not None and started.season == 2 and started.started_by == 1
    assert await storage.ladder.start_season(CHAT, after=1, by=1) is None  # a second press: stale
    assert (await storage.ladder.season(CHAT)).season == 2
    assert (await storage.ladder.season(CHAT, 1)).started_at is None
    assert await storage.ladder.top(CHAT, 2, ALL_VARIANTS) == []
    assert await storage.ladder.top(CHAT, 1, ALL_VARIANTS) == old_top

    await storage.ladder.record(teams(2, CHAT, [3, 4], [1, 2]), rate=rate)
    new_top = await storage.ladder.top(CHAT, 2, ALL_VARIANTS)
    assert {line.player for line in new_top} == {"u1", "u2", "u3", "u4"}
    fresh = {line.player: line for line in new_top}
    # a fresh start: the old winners begin again from the newcomers' rating
    assert all(line.tally.matches == 1 for line in new_top)
    assert fresh["u3"].rating.value > 1000 > fresh["u1"].rating.value
    assert [r["season"] for r in await target.query("SELECT season FROM matches ORDER BY id")] == [
        1,
        2,
    ]
    assert [m.season for m in await storage.ladder.history(chat_id=CHAT, season=1)] == [1]
    # other chats are untouched
    assert (await storage.ladder.season(-5)).season == 1


# ------------------------------------------------------------------ queries


async def test_top_ranks_and_the_callers_line(storage: Storage) -> None:
    # 12 players, player i wins i matches against the others' rotating pairs
    table_id = 0
    for round_ in range(6):
        for a in range(1, 13, 4):
            table_id += 1
            players = [a, a + 1, a + 2, a + 3]
            winners = [players[round_ % 4], players[(round_ + 1) % 4]]
            losers = [p for p in players if p not in winners]
            await storage.ladder.record(teams(table_id, CHAT, winners, losers), rate=rate)
    top = await storage.ladder.top(CHAT, 1, ALL_VARIANTS, limit=100)
    assert len(top) == 12 == await storage.ladder.size(CHAT, 1, ALL_VARIANTS)
    ordering = [(-line.rating.value, -line.tally.matches, line.player) for line in top]
    assert ordering == sorted(ordering)
    assert [line.player for line in await storage.ladder.top(CHAT, 1, ALL_VARIANTS, 10)] == [
        line.player for line in top[:10]
    ]
    for rank, line in enumerate(top, start=1):
        found = await storage.ladder.standing(CHAT, 1, ALL_VARIANTS, line.player)
        assert found == (rank, line)
    assert await storage.ladder.standing(CHAT, 1, ALL_VARIANTS, "u999") is None


async def test_player_lines_results_and_history(storage: Storage) -> None:
    await storage.ladder.record(teams(1, CHAT, [1, 2], [3, 4]), rate=rate)
    await storage.ladder.record(free_for_all(2, CHAT, [3, 1, 4]), rate=rate)
    await storage.ladder.record(teams(3, CHAT, [3, 4], [1, 2], variant="ziege"), rate=rate)
    await storage.ladder.record(teams(4, -200, [1, 5], [6, 7]), rate=rate)

    here = await storage.ladder.player_standings("u1", CHAT)
    assert {(line.season, line.variant) for line in here} == {
        (1, ALL_VARIANTS),
        (1, "street"),
        (1, "moscow"),
        (1, "ziege"),
    }
    overall = next(line for line in here if line.variant == ALL_VARIANTS)
    assert (overall.tally.matches, overall.tally.wins, overall.tally.goats) == (3, 1, 2)

    everywhere = await storage.ladder.player_standings("u1")
    assert {line.chat_id for line in everywhere} == {CHAT, -200}
    assert all(line.variant == ALL_VARIANTS for line in everywhere)

    results = await storage.ladder.player_results(CHAT, 1, "u1", limit=10)
    assert [(r.variant, r.won, r.goat) for r in results] == [
        ("ziege", False, True),
        ("moscow", False, True),
        ("street", True, False),
    ]
    assert results[0].change.after.value == overall.rating.value
    assert [r.change.rank for r in results] == [2, 2, 1]

    history = await storage.ladder.history(chat_id=CHAT, season=1, limit=2)
    assert [m.record.table_id for m in history] == [3, 2]
    assert set(history[0].changes) == {0, 1, 2, 3}
    moscow = history[1]
    assert moscow.record.variant == "moscow" and moscow.record.players == 3
    assert sorted(c.rank for c in moscow.changes.values()) == [1, 2, 3]
    only_street = await storage.ladder.history(chat_id=CHAT, season=1, variant="street")
    assert [m.record.table_id for m in only_street] == [1]
    mine = await storage.ladder.history(user_id=1, limit=3)
    assert [m.record.table_id for m in mine] == [4, 3, 2]
    assert await storage.ladder.history(chat_id=CHAT, season=2) == []


async def test_find_user_by_username(storage: Storage) -> None:
    await storage.users.upsert(UserRecord(5, "Vera", username="VeraK"))
    await storage.users.upsert(UserRecord(6, "Gleb"))
    found = await storage.users.find_by_username("@verak")
    assert found is not None and found.user_id == 5
    assert await storage.users.find_by_username("gleb") is None


async def test_a_chat_migration_moves_and_rebuilds_its_ladder(
    storage: Storage, target: Target
) -> None:
    await storage.chats.upsert(ChatRecord(-1, "group"))
    await storage.ladder.record(teams(1, -1, [1, 2], [3, 4]), rate=rate)
    await storage.ladder.start_season(-1, after=1, by=1)
    await storage.ladder.record(teams(2, -1, [3, 4], [1, 2]), rate=rate)
    before = {season: await storage.ladder.top(-1, season, ALL_VARIANTS) for season in (1, 2)}
    await storage.chats.migrate(-1, -1001)
    assert await dump_ladder(target) == ([], [])  # to be rebuilt from the moved matches
    assert (await storage.ladder.season(-1001)).season == 2
    assert (await storage.ladder.season(-1)).season == 1
    assert await storage.ladder.update(rate, -1001) == 2
    for season, lines in before.items():
        moved = await storage.ladder.top(-1001, season, ALL_VARIANTS)
        assert [(line.player, line.tally, line.rating) for line in moved] == [
            (line.player, line.tally, line.rating) for line in lines
        ]


async def test_the_ladder_queries_use_their_indexes(db_path: str) -> None:
    storage = await SqliteStorage.open(db_path, clock=Clock())
    for table_id in range(1, 30):
        await storage.ladder.record(teams(table_id, CHAT, [1, 2], [3, 4]), rate=rate)
    await storage.ladder.record(teams(99, -5, [1, 2], [3, 4]), rate=rate)
    plans = {
        "top": (sql.TOP_SQL, (CHAT, 1, "*", 10)),
        "line": (sql.LINE_SQL, (CHAT, "u1", 1, "*")),
        "rank": (sql.RANK_SQL, (CHAT, 1, "*", 1000.0, 1000.0, 1, 1, "u1")),
        "size": (sql.SIZE_SQL, (CHAT, 1, "*")),
        "player lines": (sql.PLAYER_LINES_SQL, (CHAT, "u1")),
        "player everywhere": (sql.PLAYER_EVERYWHERE_SQL, ("u1", "*")),
        "results": (sql.RESULTS_SQL, (CHAT, "u1", "*", 1, 10)),
        "history": (sql.CHAT_HISTORY_SQL, (CHAT, 1, 10)),
        "history by variant": (sql.VARIANT_HISTORY_SQL, (CHAT, 1, "street", 10)),
        "user history": (sql.USER_HISTORY_SQL, (1, 10)),
    }
    for name, (text, params) in plans.items():
        steps = [str(r[3]) for r in query(db_path, "EXPLAIN QUERY PLAN " + text, params)]
        plan = " | ".join(steps)
        assert any("INDEX" in step or "PRIMARY KEY" in step for step in steps), (name, plan)
        # Only the small, already limited subquery results may be scanned or sorted.
        for step in steps:
            if step.startswith("SCAN"):
                assert step in ("SCAN r", "SCAN x"), (name, plan)
            if "TEMP B-TREE" in step:
                assert "MATERIALIZE" in plan, (name, plan)
    await storage.close()


# ------------------------------------------------------------------ upgrading version 1


async def test_a_version_1_database_with_matches_upgrades_in_place(db_path: str) -> None:
    # A real file made by the version-1 schema, filled the way version-1 code filled it.
    async with aiosqlite.connect(db_path, isolation_level=None) as setup:
        assert await apply_migrations(setup, MIGRATIONS[:1]) == [1]
    conn = sqlite3.connect(db_path)
    try:
        conn.execute(
            "INSERT INTO users (user_id, first_name, username, created_at, updated_at) "
            "VALUES (1, 'Anna', 'anna', 0, 0)"
        )
        conn.execute(
            "INSERT INTO chats (chat_id, title, created_at, updated_at) VALUES (?, 'club', 0, 0)",
            (CHAT,),
        )
        old = [teams(1, CHAT, [1, 2], [3, "basic"]), free_for_all(2, CHAT, [3, 1, 2])]
        for number, record in enumerate(old, start=1):
            conn.execute(
                "INSERT INTO matches (id, table_id, chat_id, variant, players, started_at, "
                "finished_at, deals, goat_with_eggs, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    number,
                    record.table_id,
                    record.chat_id,
                    record.variant,
                    record.players,
                    record.started_at,
                    record.finished_at,
                    record.deals,
                    int(record.goat_with_eggs),
                    json.dumps(record.result),
                ),
            )
            for p in record.players_list:
                conn.execute(
                    f"INSERT INTO match_players VALUES ({', '.join('?' * 15)})",
                    (
                        number,
                        p.seat,
                        p.side,
                        p.user_id,
                        p.name,
                        p.ai_level,
                        int(p.won),
                        int(p.goat),
                        p.defeat_points,
                        p.deals_won,
                        p.deals_lost,
                        p.eggs,
                        p.queens_caught,
                        p.tricks,
                        p.card_points,
                    ),
                )
        conn.commit()
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    finally:
        conn.close()

    store = await SqliteStorage.open(db_path, clock=Clock())
    try:
        assert query(db_path, "PRAGMA user_version")[0][0] == latest_version()
        rows = query(db_path, "SELECT id, table_id, season, in_ladder FROM matches ORDER BY id")
        assert [tuple(r) for r in rows] == [(1, 1, 1, 0), (2, 2, 1, 0)]
        anna = await store.users.get(1)
        assert anna is not None and anna.first_name == "Anna"
        assert (await store.users.find_by_username("ANNA")) == anna  # the new username index works

        assert await store.ladder.update(rate, CHAT) == 2
        lines = {line.player: line for line in await store.ladder.top(CHAT, 1, ALL_VARIANTS)}
        assert set(lines) == {"u1", "u2", "u3", "ai:basic"}
        assert (lines["u1"].tally.matches, lines["u1"].tally.wins, lines["u1"].tally.goats) == (
            2,
            1,
            1,
        )
        assert (lines["u3"].tally.wins, lines["u3"].tally.goats) == (1, 1)
        # new matches continue the same ladder
        await store.ladder.record(teams(3, CHAT, [3, "basic"], [1, 2]), rate=rate)
        line = await store.ladder.standing(CHAT, 1, ALL_VARIANTS, player_key(3, None))
        assert line is not None and line[1].tally.matches == 3
    finally:
        await store.close()
    # and reopening applies nothing more
    store = await SqliteStorage.open(db_path)
    await store.close()
    assert query(db_path, "SELECT count(*) FROM matches")[0][0] == 3
