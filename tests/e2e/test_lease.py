"""Two bot processes on one database (an overlapping deploy): the second one waits, silent,
until the first one is gone, then takes over the tables."""

from __future__ import annotations

import asyncio
import time

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram

from .driver import ENV_FAST, Table

pytestmark = pytest.mark.e2e

LEASE = {"KOZEL_LEASE_SECONDS": "3", "KOZEL_LEASE_RENEW": "0.5"}
WAITING = "the database is in use by another running bot"
READY = "unfinished tables resumed"
QUIET = {"getMe", "getUpdates"}  # what a bot that waits for the lease may have asked


async def test_a_second_process_waits_silently_and_takes_over_after_a_crash(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    env = {**ENV_FAST, **LEASE}
    first = bot_process(env=env)
    await first.start()
    host, guest, third = (fake_telegram.add_user(n) for n in ("Host", "Gina", "Tom"))
    group = fake_telegram.add_group("Kozel club", [host, guest, third], admins=[host])
    table = Table(fake_telegram, group)
    for user in (host, guest, third):
        await table.start_private(user)
    await table.open(host, "street")

    second = bot_process(env=env, name="second")
    second.db_path = first.db_path
    await second.start(until_polling=False)
    await fake_telegram.wait_for(lambda: WAITING in second.log_text(), timeout=20, what="waiting")
    line = next(x for x in second.log_text().splitlines() if WAITING in x)
    # One line, with the real expiry (not the default 30 s; the holder id is random hex).
    assert line.startswith("kozel-bot: ") and "(at most 3 s after it dies)" in line

    # While the first one runs, the second one neither polls nor sends: every call is the
    # first one's (its long poll is never cut short by a competing one: no 409 Conflict).
    await table.join(guest)
    await asyncio.sleep(2.0)
    assert second.running
    assert [c for c in fake_telegram.calls_to("getUpdates") if c.status == 409] == []
    assert READY not in second.log_text()

    first.kill()
    killed_at, mark = time.time(), fake_telegram.mark()
    await fake_telegram.wait_for(
        lambda: READY in second.log_text(), timeout=20, what="the second bot to take over"
    )
    taken = [c for c in fake_telegram.calls if c.seq > mark and c.method not in QUIET]
    # Nothing before the dead process's lease expired (3 s after its last renewal).
    when = [(c.method, round(c.time - killed_at, 2)) for c in taken]
    assert taken and taken[0].time - killed_at > 2.0, when
    # The table goes on under the second process.
    await table.join(third)
    assert "Tom" in table.lobby_text()


async def test_a_cleanly_stopped_bot_frees_the_database_at_once(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    env = {**ENV_FAST, "KOZEL_LEASE_SECONDS": "60", "KOZEL_LEASE_RENEW": "1"}
    first = bot_process(env=env)
    await first.start()
    second = bot_process(env=env, name="second")
    second.db_path = first.db_path
    await second.start(until_polling=False)
    await fake_telegram.wait_for(lambda: WAITING in second.log_text(), timeout=20, what="waiting")
    stopped = time.time()
    assert await first.stop() == 0
    await fake_telegram.wait_for(
        lambda: READY in second.log_text(), timeout=20, what="the second bot to take over"
    )
    assert time.time() - stopped < 10  # not the 60 s of the lease: it was given back
