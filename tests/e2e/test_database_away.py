"""PostgreSQL restarted under a running bot, as an operator meets it (an upgrade, a failover):
for a few seconds every query fails, then the database is back. Nothing may hang: the sender,
the timers and the listener wait it out and carry on, an update the bot could not take is
taken when Telegram sends it again, and the log says once that the database went away and
once that it is back. A cluster of this module's own: restarting the shared one would cut the
other tests' databases."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from functools import partial

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.proxy import RoundRobinProxy
from fakebot.server import FakeTelegram
from fakebot.users import SimUser
from pgcluster import PgCluster, find_bindir

from .driver import ENV_FAST, rows
from .test_workers import (
    RecordedTable,
    Worker,
    deal_post,
    match_post,
    posts,
    start_workers,
    wait_until,
)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.parametrize("bot_database", ["postgres"], indirect=True),
]

SECRET = "database-away_secret"
AWAY = "the database cannot be reached"
BACK = "the database answers again"
OUTAGE = 3.0  # seconds the server is down
ENV = {
    **ENV_FAST,
    "KOZEL_AI_DELAY": "0.01",
    "KOZEL_TIMEOUT_SCALE": "0.1",  # a person's turn lasts 6 s: when they stop, computers go on
    "KOZEL_LEASE_SECONDS": "10",
    "KOZEL_LEASE_RENEW": "1",
}


@pytest.fixture(scope="module")
def pg_cluster() -> Iterator[PgCluster]:
    """A cluster these tests may restart (overrides the session's shared one)."""
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries not found")
    cluster = PgCluster(bindir)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def restart(cluster: PgCluster, during: list[Worker]) -> tuple[float, list[int]]:
    """Stop the server for ``OUTAGE`` seconds; returns when it is back and what each worker's
    /healthz said meanwhile (503 at least once: a bot without its database is not healthy)."""
    await asyncio.to_thread(cluster.stop_server)
    seen: list[int] = []
    end = time.monotonic() + OUTAGE
    while time.monotonic() < end:
        for worker in during:
            seen.append(200 if await worker.healthy() else 503)
        await asyncio.sleep(0.3)
    await asyncio.to_thread(cluster.start_server)
    return time.time(), seen


async def workers(
    bot_process: BotProcessFactory, count: int
) -> tuple[RoundRobinProxy, list[Worker]]:
    return await start_workers(bot_process, count, ENV, SECRET)


def said_after(worker: Worker, phrase: str, since: str) -> list[str]:
    lines = worker.process.log_text().splitlines()
    return [line for line in lines if phrase in line and line[:23] >= since]


@pytest.mark.waits(25)
async def test_a_database_restart_mid_match_freezes_no_table(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory, pg_cluster: PgCluster
) -> None:
    fake = fake_telegram
    proxy, (first, second) = await workers(bot_process, 2)
    db = first.process.db
    assert isinstance(db, str)
    try:

        async def one(index: int) -> tuple[RecordedTable, SimUser]:
            person = fake.add_user(f"Player{index}")
            group = fake.add_group(f"Kozel club {index}", [person], admins=[person])
            table = RecordedTable(fake, group, hand_wait=20.0, press_wait=20.0)
            await table.start_private(person)
            await table.open(person, "street")
            for level in ("random", "basic", "random"):
                await table.add_computer(person, level)
            await table.start(person)
            return table, person

        tables = list(await asyncio.gather(*(one(i) for i in range(1, 5))))
        back_at = float("inf")

        def played_on(table: RecordedTable) -> bool:
            """A deal ended after the database was back (or the whole match did)."""
            return table.match_over() or any(
                at > back_at for _, at in posts(fake, table, deal_post)
            )

        # The people play until the database has been away and back and each table finished
        # a deal since; then they stop, their turn timers (6 s) hand their seats to computers,
        # and the computers play the matches to their ends at once.
        playing = [
            asyncio.create_task(t.play([p], until=partial(played_on, t), timeout=60))
            for t, p in tables
        ]

        def mid_way() -> bool:
            sql = "SELECT table_id, count(*) FROM table_log WHERE kind = 'action' GROUP BY table_id"
            plies = dict(rows(db, sql))
            return len(plies) == 4 and min(int(str(n)) for n in plies.values()) >= 20

        began = time.monotonic()
        deadline = began + 60
        while not mid_way():
            assert time.monotonic() < deadline, "the tables did not get mid-way"
            await asyncio.sleep(0.25)
        assert not any(t.match_over() for t, _ in tables)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        mid = time.monotonic()
        back_at, health = await restart(pg_cluster, [first, second])
        back = time.monotonic()

        done, pending = await asyncio.wait(playing, timeout=90)
        for task in pending:
            task.cancel()
        for task in done:
            task.result()
        assert not pending, f"{len(pending)} of 4 tables did not play on after the restart"
        played = time.monotonic()
        await wait_until(
            "every match to end", lambda: all(t.match_over() for t, _ in tables), timeout=90
        )
        print(
            f"mid-way after {mid - began:.0f} s, database back {back - mid:.0f} s later, "
            f"a deal over at every table {played - back:.0f} s after that, "
            f"every match over {time.monotonic() - played:.0f} s later"
        )

    finally:
        await proxy.stop()

    assert 503 in health, health
    assert await first.healthy() and await second.healthy()
    for table, _ in tables:
        results = [what for what, _ in posts(fake, table, deal_post)]
        assert sorted(results) == sorted(set(results)), f"deal results posted twice: {results}"
        deals = int(
            str(
                rows(
                    db,
                    "SELECT count(*) FROM table_log JOIN game_tables ON game_tables.id = table_id "
                    "WHERE kind = 'deal' AND chat_id = ?",
                    (table.group.id,),
                )[0][0]
            )
        )
        assert sorted(int(n) for n in results) == list(range(1, deals + 1))
        assert len(posts(fake, table, match_post)) == 1
    # Every press was answered: those made while the database was away too (Telegram sent
    # them again until the bot could take them).
    after = [p for p in fake.press_log if p.at >= back_at]
    unanswered = [p for p in fake.press_log if p.answered_at is None]
    assert after and unanswered == [] and sum(t.unanswered for t, _ in tables) == 0, unanswered
    statuses = [str(s) for (s,) in rows(db, "SELECT status FROM game_tables")]
    assert statuses == ["finished"] * 4
    for worker in (first, second):
        away, back = said_after(worker, AWAY, stamp), said_after(worker, BACK, stamp)
        tracebacks = said_after(worker, "Traceback", "")
        assert (len(away), len(back)) == (1, 1), (away, back, worker.tail(40))
        assert tracebacks == [], worker.tail(60)


@pytest.mark.waits(6)
async def test_a_command_sent_while_the_database_is_down_is_answered_once_it_is_back(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory, pg_cluster: PgCluster
) -> None:
    fake = fake_telegram
    proxy, (worker,) = await workers(bot_process, 1)
    try:
        anna = fake.add_user("Anna")
        group = fake.add_group("Kozel club", [anna], admins=[anna])
        mark = fake.mark()
        await anna.send(group, "/help")
        await fake.wait_for_message(group, since=mark)

        await asyncio.to_thread(pg_cluster.stop_server)
        mark = fake.mark()
        await anna.send(group, "/top")
        await asyncio.sleep(OUTAGE)
        await asyncio.to_thread(pg_cluster.start_server)
        answer = await fake.wait_for_message(group, since=mark, timeout=20)
        assert answer.text
        await asyncio.sleep(1.0)
        replies = [m for m in fake.messages(group, from_bot=True) if m.changed_seq > mark]
        assert len(replies) == 1
        assert await worker.healthy()
    finally:
        await proxy.stop()
    failed = [d for d in fake.webhook_deliveries if d.status not in (None, 200)]
    assert failed, "the update was never refused: Telegram had no reason to send it again"
