"""The bot's lifespan in process, against the fake Telegram: it builds the runtime that every
handler reaches as ``context.bot_data``, and tears all of it down once, in reverse."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakebot.server import TEST_TOKEN, FakeTelegram

from bot.config import Config
from bot.release import RELEASE
from bot.storage import SqliteStorage
from bot.telegram.app import build
from bot.telegram.lifespan import Stopped, lifespan
from bot.telegram.runtime import Runtime


def config_for(fake_telegram: FakeTelegram, tmp_path: Path) -> Config:
    return Config.from_env(
        {
            "KOZEL_BOT_TOKEN": TEST_TOKEN,
            "KOZEL_BOT_API_URL": fake_telegram.url,
            "KOZEL_DB": str(tmp_path / "kozel.sqlite3"),
            "KOZEL_LEASE_SECONDS": "30",
            "KOZEL_LEASE_RENEW": "10",
        }
    )


async def test_the_lifespan_builds_the_runtime_and_tears_it_down_once(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    config = config_for(fake_telegram, tmp_path)
    app = build(config)
    assert isinstance(app.bot_data, Runtime)
    with pytest.raises(RuntimeError, match="not running"):
        app.bot_data.core  # noqa: B018 (nothing runs before the lifespan)
    async with lifespan(app, config, asyncio.Event()) as runtime:
        assert runtime is app.bot_data
        assert runtime.core.settings.bot_username == "kozel_test_bot"
        assert runtime.core.scheduler is runtime.runner
        assert runtime.lease is not None and runtime.workers is None  # polling: one bot
        assert runtime.web is None  # neither a webhook nor a Mini App
        storage = runtime.storage
        assert storage is not None and await storage.ping()
        tasks = list(runtime.tasks)
        # The database lock, this worker's release, the timers, the sender, the pruning and
        # the watch on Telegram.
        names = sorted(task.get_name() for task in tasks)
        assert len(tasks) == 6 and not any(task.done() for task in tasks), names
        assert "release" in names
        assert [row.release for row in await storage.releases.live()] == [RELEASE]
        assert runtime.supervisor.down() == []
        assert app.running
        polled = lambda: fake_telegram.received_count("getUpdates") > 0  # noqa: E731
        await fake_telegram.wait_for(polled, 5, what="polling")
    assert all(task.done() for task in tasks)
    assert not app.running
    assert await storage.ping() is False  # closed
    other = await SqliteStorage.open(config.db)
    lock = other.process_lock()
    try:  # the lock was given back: the next process starts at once
        assert await other.releases.live() == []  # a clean stop says it runs no more
        assert await lock.take("next")
    finally:
        await lock.release()
        await other.close()


async def test_a_stop_while_waiting_for_the_lease_ends_the_start_and_closes_the_database(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    config = config_for(fake_telegram, tmp_path)
    holder = await SqliteStorage.open(config.db)
    lock = holder.process_lock()
    try:
        assert await lock.take("another bot")
        app = build(config)
        stop = asyncio.Event()

        async def start() -> None:
            async with lifespan(app, config, stop):
                raise AssertionError("started while another bot holds the lease")

        starting = asyncio.create_task(start())
        while app.bot_data.storage is None:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # waiting for the lease
        stop.set()
        with pytest.raises(Stopped):
            await asyncio.wait_for(starting, 5)
        storage = app.bot_data.storage
        assert storage is not None and await storage.ping() is False
        assert app.bot_data.lease is None and not app.bot_data.tasks
        assert await lock.held() and await lock.holder() == "another bot"  # untouched
    finally:
        await lock.release()
        await holder.close()
