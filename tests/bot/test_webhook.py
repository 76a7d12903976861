"""The webhook route in-process: the secret check, malformed bodies, repeats, failures; the
webhook settings; the database ping behind /healthz."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import aiohttp
import pytest
from fakebot.server import TEST_TOKEN, FakeTelegram
from storage_targets import Target
from telegram import Bot, Update

from bot.config import Config, ConfigError
from bot.storage import SqliteStorage, StorageUnavailable, Taken, UpdateRepo
from bot.telegram.webhook import (
    SECRET_HEADER,
    STALE_WHILE_ALIVE,
    Intake,
    routes,
    secret_matches,
    webhook_path,
)
from bot.web.server import WebServer

SECRET = "a-secret_0123"
UPDATE = {
    "update_id": 7,
    "message": {
        "message_id": 1,
        "date": 0,
        "chat": {"id": 5, "type": "private", "first_name": "Anna"},
        "from": {"id": 5, "is_bot": False, "first_name": "Anna"},
        "text": "/help",
    },
}


def test_the_secret_must_match_exactly() -> None:
    assert secret_matches(SECRET, SECRET)
    for given in (None, "", SECRET[:-1], SECRET + "3", SECRET.upper(), " " + SECRET):
        assert not secret_matches(given, SECRET)


def test_the_route_listens_on_the_webhook_urls_path() -> None:
    assert webhook_path("https://bot.example.org/telegram/hook") == "/telegram/hook"
    assert webhook_path("https://bot.example.org") == "/"


class FakeApplication:
    """What the route uses of the bot (``webhook.Receiver``): running, bot, and handling an
    update the way the bot does (``Intake``: taken in the database, handled, finished)."""

    def __init__(self, updates: UpdateRepo | None = None) -> None:
        self.running = True
        self.bot = Bot("1:x")
        self.processed: list[int] = []
        self.fail = False
        self.handle = Intake(updates, self.process, holder=f"worker {id(self)}")

    async def process(self, update: Update) -> bool:
        await asyncio.sleep(0.05)  # handling takes a moment: a repeat may come meanwhile
        if self.fail:
            return False  # a handler failed (PTB's error handler saw it)
        self.processed.append(update.update_id)
        return True


async def healthy() -> bool:
    return True


@asynccontextmanager
async def serving(app: FakeApplication) -> AsyncIterator[str]:
    server = WebServer("127.0.0.1", 0, health=healthy)
    server.add_routes(routes(app, path="/hook", secret=SECRET))
    await server.start()
    try:
        yield f"http://127.0.0.1:{server.bound_port}/hook"
    finally:
        await server.stop()


@pytest.fixture
async def hook(tmp_path: Path) -> AsyncIterator[tuple[FakeApplication, str]]:
    storage = await SqliteStorage.open(str(tmp_path / "kozel.sqlite3"))
    app = FakeApplication(storage.updates)
    try:
        async with serving(app) as url:
            yield app, url
    finally:
        await storage.close()


async def post(url: str, body: bytes | Any, headers: dict[str, str]) -> int:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=data, headers=headers) as r,
    ):
        return r.status


async def test_without_the_right_secret_nothing_is_processed(
    hook: tuple[FakeApplication, str],
) -> None:
    app, url = hook
    for headers in ({}, {SECRET_HEADER: "nope"}, {SECRET_HEADER: SECRET + "x"}):
        assert await post(url, UPDATE, headers) == 401
    assert app.processed == []
    assert await post(url, UPDATE, {SECRET_HEADER: SECRET}) == 200
    assert app.processed == [7]


async def test_a_malformed_body_is_400_and_processes_nothing(
    hook: tuple[FakeApplication, str],
) -> None:
    app, url = hook
    for body in (b"", b"{", b"null", b"[]", b'{"message": {}}', b'{"update_id": 1.5}'):
        assert await post(url, body, {SECRET_HEADER: SECRET}) == 400, body
    assert app.processed == []


async def test_a_repeated_update_is_processed_once(hook: tuple[FakeApplication, str]) -> None:
    app, url = hook
    for _ in range(3):
        assert await post(url, UPDATE, {SECRET_HEADER: SECRET}) == 200
    assert app.processed == [7]


async def test_while_not_running_or_failing_telegram_is_told_to_retry(
    hook: tuple[FakeApplication, str],
) -> None:
    app, url = hook
    app.running = False
    assert await post(url, UPDATE, {SECRET_HEADER: SECRET}) == 503
    app.running, app.fail = True, True
    assert await post(url, UPDATE, {SECRET_HEADER: SECRET}) == 500
    app.fail = False
    assert await post(url, UPDATE, {SECRET_HEADER: SECRET}) == 200  # the retry is taken
    assert app.processed == [7]


async def test_an_update_delivered_to_two_workers_is_handled_by_one(target: Target) -> None:
    """Telegram (or a balancer) hands the same update to two workers at once, and again later:
    it is taken once in the shared database, and handled once."""
    one, two = await target.open(), await target.open()
    first, second = FakeApplication(one.updates), FakeApplication(two.updates)
    try:
        async with serving(first) as a, serving(second) as b:
            statuses = await asyncio.gather(
                *(post(url, UPDATE, {SECRET_HEADER: SECRET}) for url in (a, b, a, b))
            )
            assert set(statuses) <= {200, 503}, statuses  # 503: the other one is on it
            for url in (a, b):
                assert await post(url, UPDATE, {SECRET_HEADER: SECRET}) == 200
        assert first.processed + second.processed == [7]
    finally:
        await one.close()
        await two.close()


async def test_an_update_that_cannot_be_taken_while_the_database_is_away_is_sent_again(
    tmp_path: Path,
) -> None:
    class Away:
        async def take(
            self, update_id: int, holder: str, *, stale_after: float, alive_prefix: str | None
        ) -> Taken:
            raise StorageUnavailable("restarting")

        async def give_back(self, update_id: int, holder: str) -> None:
            raise StorageUnavailable("restarting")

    app = FakeApplication(cast(UpdateRepo, Away()))
    async with serving(app) as url:
        assert await post(url, UPDATE, {SECRET_HEADER: SECRET}) == 503
    assert app.processed == []


async def test_an_update_whose_worker_died_is_taken_again_after_a_while(tmp_path: Path) -> None:
    now = [1000.0]
    storage = await SqliteStorage.open(str(tmp_path / "kozel.sqlite3"), clock=lambda: now[0])
    try:
        updates = storage.updates
        assert await updates.take(7, "a", stale_after=60) is Taken.NEW
        assert await updates.take(7, "b", stale_after=60) is Taken.BUSY  # its worker is on it
        await updates.give_back(7, "b")  # not b's to give back
        assert await updates.take(7, "b", stale_after=60) is Taken.BUSY
        now[0] += 61  # ... or died on it
        assert await updates.take(7, "b", stale_after=60) is Taken.NEW
        await updates.finish(7)
        now[0] += 600
        assert await updates.take(7, "a", stale_after=60) is Taken.DONE
        await updates.give_back(7, "b")  # finished: not given back
        assert await updates.take(7, "a", stale_after=60) is Taken.DONE
        assert await updates.forget(before=now[0] - 3600) == 0
        assert await updates.forget(before=now[0] + 1) == 1  # bounded: old ids go
        assert await updates.take(7, "a", stale_after=60) is Taken.NEW
    finally:
        await storage.close()


async def test_an_update_whose_worker_lease_ran_out_is_taken_over_within_seconds(
    target: Target,
) -> None:
    """A worker SIGKILLed while it handled a press: the update stays taken by it, and Telegram
    sends it again to another worker. Once the dead worker's own lease has run out (a few
    seconds, as for its chats and timers) the update is the other's, not after a minute."""
    now = [1000.0]
    storage = await target.open(clock=lambda: now[0])
    try:
        updates, leases = storage.updates, storage.leases
        prefix = "worker:"
        assert await leases.take("worker:a", "a", 3)
        assert await leases.take("worker:b", "b", 3)
        assert await updates.take(7, "a", stale_after=60, alive_prefix=prefix) is Taken.NEW
        # a lives (its lease renewed): b leaves the update alone
        assert await updates.take(7, "b", stale_after=60, alive_prefix=prefix) is Taken.BUSY
        for _ in range(40):  # ... even a handler slower than a minute (STALE_WHILE_ALIVE)
            now[0] += 2
            assert await leases.take("worker:a", "a", 3)
        assert await leases.take("worker:b", "b", 3)
        assert (
            await updates.take(7, "b", stale_after=STALE_WHILE_ALIVE, alive_prefix=prefix)
            is Taken.BUSY
        )
        now[0] += 2
        assert await leases.take("worker:a", "a", 3)  # renewed
        assert await leases.take("worker:b", "b", 3)
        now[0] += 2
        assert (
            await updates.take(7, "b", stale_after=STALE_WHILE_ALIVE, alive_prefix=prefix)
            is Taken.BUSY
        )
        now[0] += 1.5  # a died 3.5 s ago: its lease has run out
        assert await leases.take("worker:b", "b", 3)
        assert (
            await updates.take(7, "b", stale_after=STALE_WHILE_ALIVE, alive_prefix=prefix)
            is Taken.NEW
        )
        # ... and now b's: a's restart (a new holder) does not take it from b
        assert await leases.take("worker:a2", "a2", 3)
        assert (
            await updates.take(7, "a2", stale_after=STALE_WHILE_ALIVE, alive_prefix=prefix)
            is Taken.BUSY
        )
        await updates.finish(7)
        now[0] += 100  # finished: never taken again, whoever asks
        assert (
            await updates.take(7, "a2", stale_after=STALE_WHILE_ALIVE, alive_prefix=prefix)
            is Taken.DONE
        )
    finally:
        await storage.close()


def test_webhook_settings() -> None:
    base = {"KOZEL_BOT_TOKEN": "1:x"}
    polling = Config.from_env(base)
    assert polling.webhook_url is None and not polling.web_server
    assert (polling.listen_host, polling.listen_port) == ("0.0.0.0", 8080)
    hooked = Config.from_env(
        {
            **base,
            "KOZEL_WEBHOOK_URL": "https://bot.example.org/hook",
            "KOZEL_WEBHOOK_SECRET": SECRET,
            "KOZEL_LISTEN": "[::]:8443",
        }
    )
    assert hooked.web_server and hooked.webhook_secret == SECRET
    assert (hooked.listen_host, hooked.listen_port) == ("::", 8443)
    assert Config.from_env({**base, "KOZEL_PUBLIC_URL": "https://x.org/"}).web_server


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"KOZEL_WEBHOOK_URL": "https://bot.example.org/hook"}, "KOZEL_WEBHOOK_SECRET is not set"),
        (
            {"KOZEL_WEBHOOK_URL": "https://b.org/h", "KOZEL_WEBHOOK_SECRET": "no spaces"},
            "KOZEL_WEBHOOK_SECRET must be",
        ),
        ({"KOZEL_WEBHOOK_URL": "bot.example.org/hook"}, "KOZEL_WEBHOOK_URL must be"),
        ({"KOZEL_LISTEN": "8080"}, "KOZEL_LISTEN must be host:port"),
        ({"KOZEL_LISTEN": "0.0.0.0:99999"}, "KOZEL_LISTEN must be host:port"),
    ],
)
def test_webhook_settings_that_cannot_work_are_refused(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Config.from_env({"KOZEL_BOT_TOKEN": "1:x", **env})


async def test_ping_answers_while_the_database_is_open(tmp_path: Path) -> None:
    storage = await SqliteStorage.open(str(tmp_path / "kozel.sqlite3"))
    assert await storage.ping() is True
    await storage.close()
    assert await storage.ping() is False


def test_a_webhook_without_a_secret_refuses_to_start_with_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOZEL_")}
    env.update(
        KOZEL_BOT_TOKEN="1:x",
        KOZEL_DB=str(tmp_path / "kozel.sqlite3"),
        KOZEL_WEBHOOK_URL="https://bot.example.org/hook",
    )
    result = subprocess.run(
        [sys.executable, "-m", "bot"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "kozel-bot: KOZEL_WEBHOOK_SECRET is not set: webhook mode needs a secret "
        "(1-256 characters A-Z a-z 0-9 _ -)"
    ]


async def test_a_port_in_use_ends_the_bot_with_one_clear_line(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        env = {k: v for k, v in os.environ.items() if not k.startswith("KOZEL_")}
        env.update(
            KOZEL_BOT_TOKEN=TEST_TOKEN,
            KOZEL_BOT_API_URL=fake_telegram.url,
            KOZEL_DB=str(tmp_path / "kozel.sqlite3"),
            KOZEL_LOG_LEVEL="INFO",
            KOZEL_WEBHOOK_URL=f"http://127.0.0.1:{port}/hook",
            KOZEL_WEBHOOK_SECRET=SECRET,
            KOZEL_LISTEN=f"127.0.0.1:{port}",
            NO_PROXY="127.0.0.1,localhost",
            no_proxy="127.0.0.1,localhost",
        )
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=env, stderr=asyncio.subprocess.PIPE
        )
        try:
            _, err = await asyncio.wait_for(proc.communicate(), 60)
        except TimeoutError:
            proc.kill()
            said = await proc.stderr.read() if proc.stderr else b""
            pytest.fail(f"the bot did not end in 60 s; it said:\n{said.decode()}")
    assert proc.returncode == 2, err.decode()
    lines = err.decode().strip().splitlines()
    assert not any("Traceback" in line for line in lines), err.decode()
    assert lines[-1].startswith(f"kozel-bot: cannot listen on 127.0.0.1:{port} (KOZEL_LISTEN): ")
    assert not fake_telegram.calls_to("setWebhook")
