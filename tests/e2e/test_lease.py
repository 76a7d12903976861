"""Two bot processes on one database (an overlapping deploy, a crash): the second one waits,
silent, while the first one runs, and takes over the moment the first one is gone, whether it
stopped cleanly or was killed (the lock on the database goes with its process)."""

from __future__ import annotations

import asyncio

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram

from .driver import BOTH_BACKENDS, ENV_FAST, Table

pytestmark = pytest.mark.e2e

# Leases of an hour (30 s as shipped): a process that waited one out would fail the test by
# its timeout, so "at once" is shown without timing a start on a loaded machine (a start takes
# a second or two when idle, ten and more when it is not).
HOUR_LEASE = {"KOZEL_LEASE_SECONDS": "3600", "KOZEL_LEASE_RENEW": "10"}
TAKEOVER = 120  # seconds: a guard against a hang, far below the lease
WAITING = "the database is in use by another running bot"
READY = "unfinished tables resumed"
QUIET = {"getMe", "getUpdates"}  # what a bot that waits for the database may have asked


@BOTH_BACKENDS
async def test_a_killed_bot_restarted_at_once_polls_again_without_waiting_out_a_lease(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env={**ENV_FAST, **HOUR_LEASE})
    await bot.start()
    host = fake_telegram.add_user("Host")
    group = fake_telegram.add_group("Kozel club", [host], admins=[host])
    table = Table(fake_telegram, group)
    await table.start_private(host)
    await table.open(host, "street")

    bot.kill()
    mark = fake_telegram.mark()
    polls = fake_telegram.received_count("getUpdates")
    await bot.start(until_polling=False)
    await fake_telegram.wait_for(
        lambda: fake_telegram.received_count("getUpdates") > polls,
        timeout=TAKEOVER,
        what="the restarted bot to poll (not after the killed one's hour of lease)",
    )
    assert WAITING not in bot.log_text()  # the dead one's lock went with its process
    # And it serves the table the killed one left (its lobby shown anew).
    lobby = await fake_telegram.wait_for_message(
        group, lambda m: any("Join" in b.text for b in m.buttons), since=mark
    )
    table.lobby_id = lobby.message_id
    await table.add_computer(host)


@pytest.mark.waits(5)
async def test_a_second_process_waits_silently_and_takes_over_at_once_after_a_crash(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    env = {**ENV_FAST, **HOUR_LEASE}
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
    lines = [x for x in second.log_text().splitlines() if WAITING in x]
    assert len(lines) == 1 and lines[0].startswith("kozel-bot: "), lines  # said once, in one line

    # While the first one runs, the second one neither polls nor sends: every call is the
    # first one's (its long poll is never cut short by a competing one: no 409 Conflict).
    await table.join(guest)
    await asyncio.sleep(2.0)
    assert second.running
    assert [c for c in fake_telegram.calls_to("getUpdates") if c.status == 409] == []
    assert READY not in second.log_text()

    first.kill()
    await fake_telegram.wait_for(
        lambda: READY in second.log_text(),
        timeout=TAKEOVER,  # at once: not after the hour of the killed one's lease
        what="the second bot to take over",
    )
    assert len([x for x in second.log_text().splitlines() if WAITING in x]) == 1
    # The table goes on under the second process.
    await table.join(third)
    assert "Tom" in table.lobby_text()


async def test_a_cleanly_stopped_bot_frees_the_database_at_once(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    env = {**ENV_FAST, "KOZEL_LEASE_SECONDS": "3600", "KOZEL_LEASE_RENEW": "1"}
    first = bot_process(env=env)
    await first.start()
    second = bot_process(env=env, name="second")
    second.db_path = first.db_path
    await second.start(until_polling=False)
    await fake_telegram.wait_for(lambda: WAITING in second.log_text(), timeout=20, what="waiting")
    assert await first.stop() == 0
    await fake_telegram.wait_for(
        lambda: READY in second.log_text(),
        timeout=TAKEOVER,  # not the hour of the lease: it was given back
        what="the second bot to take over",
    )
    calls = [c for c in fake_telegram.calls if c.method not in QUIET]
    assert calls  # the second one works
