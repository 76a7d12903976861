"""Polling on PostgreSQL across a network partition: the path to the database drops every
packet for 7 s. The bot's check of its lock times out and it gives the session up, while the
server still has that session holding the lock (it never heard of its end). Back on the path,
the bot finds its own old session there, ends it and takes the lock again: it keeps running
(no "another process took the lock", no exit) and serves people as before.
"""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlsplit

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram
from netcut import NetCut

from .driver import ENV_FAST, Table, rows

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.waits(15),
    pytest.mark.parametrize("bot_database", ["postgres"], indirect=True),
]

CUT = 7.0  # seconds: more than the lock check's 5 s


async def test_a_partition_from_postgresql_is_survived_and_the_lock_kept(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    direct = bot.db
    assert isinstance(direct, str)
    address = urlsplit(direct)  # postgresql://user@/db?host=<the socket's folder>
    path = NetCut.unix(f"{parse_qs(address.query)['host'][0]}/.s.PGSQL.5432")
    await path.start()
    through = f"postgresql://{address.username}@127.0.0.1:{path.listen_port}{address.path}"
    bot.extra_env["KOZEL_DATABASE_URL"] = through
    try:
        await bot.start()
        anna = fake.add_user("Anna")
        group = fake.add_group("Kozel club", [anna], admins=[anna])
        before = Table(fake, group)
        await before.open(anna, "street")

        path.cut()
        await asyncio.sleep(CUT)
        path.heal()
        await asyncio.sleep(8.0)  # back on the path: the lock is checked every second

        assert bot.running, bot.log_text()[-3000:]
        log = bot.log_text()
        assert "took the database's lock" not in log, log[-3000:]
        assert "own earlier database session held the lock: ended it" in log, log[-3000:]
        holders = rows(
            direct,
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a "
            "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
            "AND a.datname = current_database()",
        )
        assert len(holders) == 1, holders  # one session holds it: the bot's new one
        # It serves people as before.
        bob = fake.add_user("Bob")
        other = fake.add_group("Kozel corner", [bob], admins=[bob])
        after = Table(fake, other)
        await after.open(bob, "moscow")
    finally:
        if bot.running:
            await bot.stop()
        await path.stop()
