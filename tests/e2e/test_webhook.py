"""Webhook mode end to end: the fake Bot API POSTs updates to the real bot's web server."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.process import BotProcess, free_port
from fakebot.server import TEST_TOKEN, FakeTelegram
from fakebot.webhook import SECRET_HEADER

from .driver import ENV_FAST, MATCH_OVER, Table, forged_newgame

pytestmark = pytest.mark.e2e

SECRET = "s3cret-for_the-tests"


def webhook_env(port: int) -> dict[str, str]:
    return {
        **ENV_FAST,
        "KOZEL_WEBHOOK_URL": f"http://127.0.0.1:{port}/telegram/hook",
        "KOZEL_WEBHOOK_SECRET": SECRET,
        "KOZEL_LISTEN": f"127.0.0.1:{port}",
    }


async def webhook_bot(bot_process: BotProcessFactory) -> tuple[BotProcess, int]:
    port = free_port()
    bot = bot_process(env=webhook_env(port))
    await bot.start()
    return bot, port


def tables_in(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM game_tables").fetchone()[0])


async def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=body, headers=headers or {}) as response,
    ):
        return response.status, await response.text()


async def test_a_whole_match_through_the_webhook(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot, port = await webhook_bot(bot_process)
    assert fake.webhook_url == f"http://127.0.0.1:{port}/telegram/hook"
    # While the webhook is set, nobody can poll: Telegram answers 409.
    info = fake.api_getWebhookInfo({})
    assert info["url"] == fake.webhook_url and info["pending_update_count"] == 0

    anna = fake.add_user("Anna")
    group = fake.add_group("Kozel club", [anna], admins=[anna])
    table = Table(fake, group)
    await table.start_private(anna)
    await table.open(anna, "street")
    for level in ("basic", "random", "basic"):
        await table.add_computer(anna, level)
    await table.start(anna)
    await table.play([anna])

    assert sum(MATCH_OVER in (m.text or "") for m in fake.messages(group)) == 1
    assert table.presses > 0
    assert not fake.calls_to("getUpdates"), "the bot polled although it has a webhook"
    delivered = {d.update_id for d in fake.webhook_deliveries if d.status == 200}
    assert delivered == {u["update_id"] for u in fake.update_log}
    assert fake.api_getWebhookInfo({})["pending_update_count"] == 0
    fake.assert_no_unknown_calls()

    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/healthz") as response,
    ):
        assert response.status == 200
    assert await bot.stop() == 0


async def test_updates_wait_while_the_bot_is_down_and_come_after_it_is_back(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot, _ = await webhook_bot(bot_process)
    anna = fake.add_user("Anna")
    await bot.stop()

    await anna.start_bot()  # the bot is down: Telegram keeps the update and retries
    await fake.wait_for(
        lambda: sum(d.status is None for d in fake.webhook_deliveries) >= 2,
        what="two failed deliveries",
    )
    info = fake.api_getWebhookInfo({})
    assert info["pending_update_count"] == 1
    assert info["last_error_message"] == "Connection refused"
    assert not fake.messages(anna, from_bot=True)

    mark = fake.mark()
    await bot.start()
    hello = await fake.wait_for_message(anna, since=mark, timeout=10)
    assert hello.text
    await fake.wait_for(lambda: fake.api_getWebhookInfo({})["pending_update_count"] == 0)


async def test_a_stopping_worker_says_so_on_healthz_and_still_answers_posts_meanwhile(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """SIGTERM: for ``KOZEL_DRAIN_SECONDS`` the balancer's health check is told 503 while a
    post that still comes is handled and answered (then the bot stops cleanly)."""
    fake = fake_telegram
    port = free_port()
    bot = bot_process(env={**webhook_env(port), "KOZEL_DRAIN_SECONDS": "3"})
    await bot.start()
    anna = fake.add_user("Anna")

    async def healthz() -> int:
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{port}/healthz") as response,
        ):
            return response.status

    assert await healthz() == 200
    stopping = asyncio.create_task(bot.stop())
    async with asyncio.timeout(2):
        while await healthz() != 503:
            await asyncio.sleep(0.05)
    mark = fake.mark()
    await anna.start_bot()
    hello = await fake.wait_for_message(anna, since=mark, timeout=2)
    assert hello.text
    assert not stopping.done()
    assert await stopping == 0
    assert [d.status for d in fake.webhook_deliveries] == [200]
    assert "taking requests for 3.0 s more" in bot.log_text()


async def test_requests_without_the_secret_get_401_and_change_nothing(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot, port = await webhook_bot(bot_process)
    url = f"http://127.0.0.1:{port}/telegram/hook"
    anna = fake.add_user("Anna")
    group = fake.add_group("Kozel club", [anna], admins=[anna])
    body = await forged_newgame(fake, group, anna)
    sent_before = len(fake.messages(group, from_bot=True))

    for headers in (
        {},
        {SECRET_HEADER: "wrong"},
        {SECRET_HEADER: SECRET[:-1]},
        {SECRET_HEADER: SECRET + "x"},
        {SECRET_HEADER: SECRET.upper()},
    ):
        assert (await post(url, body, {"Content-Type": "application/json", **headers}))[0] == 401
    # Right secret, but not an update: refused too.
    for junk in (b"{not json", b"[1, 2]", b'{"update_id": "x"}', b"\xff\xfe"):
        assert (await post(url, junk, {SECRET_HEADER: SECRET}))[0] == 400

    await asyncio.sleep(0.5)  # give a wrongly accepted update time to show
    assert len(fake.messages(group, from_bot=True)) == sent_before
    assert tables_in(bot.db_path) == 0

    # The same update with the secret does open a table: the 401s above were the check.
    mark = fake.mark()
    assert await post(url, body, {SECRET_HEADER: SECRET}) == (200, "ok\n")
    await fake.wait_for_message(group, lambda m: bool(m.buttons), since=mark)
    assert tables_in(bot.db_path) == 1
    # Telegram repeating a delivery (its answer got lost) does not act twice.
    assert await post(url, body, {SECRET_HEADER: SECRET}) == (200, "ok\n")
    await asyncio.sleep(0.3)
    assert len(fake.messages(group, from_bot=True)) == sent_before + 1


async def test_a_second_webhook_worker_on_the_same_sqlite_file_is_refused_in_one_line(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """Its caches of people and chats would read the other worker's writes minutes late and
    write stale rows back (an admin's /language undone): it refuses, exit 2, one line; the
    first worker goes on."""
    fake = fake_telegram
    bot, _ = await webhook_bot(bot_process)
    assert isinstance(bot.db, Path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOZEL_")}
    env |= {
        **webhook_env(free_port()),
        "KOZEL_BOT_TOKEN": TEST_TOKEN,
        "KOZEL_BOT_API_URL": fake.url,
        "KOZEL_DB": str(bot.db),
    }
    second = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    output, _ = await asyncio.wait_for(second.communicate(), timeout=60)
    lines = output.decode().strip().splitlines()
    assert second.returncode == 2, lines
    assert len(lines) == 1 and lines[0].startswith(
        "kozel-bot: the SQLite database is in use by another running bot ("
    ), lines
    assert "several webhook workers need PostgreSQL (KOZEL_DATABASE_URL)" in lines[0]
    # The first one still takes updates.
    anna = fake.add_user("Anna")
    group = fake.add_group("Kozel club", [anna], admins=[anna])
    table = Table(fake, group)
    await table.open(anna, "street")
    assert bot.running and tables_in(bot.db) == 1
