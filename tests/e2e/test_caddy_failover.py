"""The sample deployment's proxy, proven: Debian's Caddy with the project's ``deploy/Caddyfile``
in front of two webhook workers on one PostgreSQL database, while Telegram (the fake) posts
updates steadily and one worker is killed (SIGKILL), then the other restarted (SIGTERM, as a
rolling upgrade does).

Telegram sends a post again until it is answered 200, so a failed post costs only time; but a
proxy that gives up on the healthy worker too (as Caddy 2.6 did with the Caddyfile's earlier
retry settings: ~10 s of 503 "no upstreams available" after one worker went away) holds up
every chat for as long. Here: no failed post more than ``MAX_FAILING`` seconds after the
proxy's health check found the killed worker gone, none around a SIGTERM (the worker drains:
``/healthz`` answers 503 while it still takes posts, so Caddy moves on before its port
closes), and no update lost (every one answered 200 in the end, every ``/help`` answered).

``caddy`` comes from the PATH (Debian's package; ``.ci/run`` installs it) or ``KOZEL_CADDY``
(another build to verify; docs/operating.md says which versions were).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.process import REPO_ROOT, free_port
from fakebot.server import FakeTelegram
from fakebot.users import SimUser
from fakebot.webhook import Delivery, Retry

from bot.telegram.webhook import STALE_AFTER

from .driver import ENV_FAST
from .test_workers import Worker

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.waits(15),
    pytest.mark.parametrize("bot_database", ["postgres"], indirect=True),
]

CADDYFILE = REPO_ROOT / "deploy" / "Caddyfile"
SECRET = "caddy-secret_for-the-tests"
WORKER_PORT = 8080  # the port compose.yaml's workers listen on, as the Caddyfile names it
POST_EVERY = 0.1  # seconds between two updates (each from the next of PEOPLE)
PEOPLE = 20
# Seconds of failed posts around a kill after the proxy's health check first found the worker
# gone (posts already sent to it then fail too). Counted from Caddy's own finding, not from
# the kill: on a loaded machine the check itself may come late, which is not the proxy's
# configuration giving up on the healthy worker.
MAX_FAILING = 1.0
WAIT = 60.0  # seconds: only a guard against a hang (a loaded machine is slow, not stuck)
ENV = {
    **{k: v for k, v in ENV_FAST.items() if k != "KOZEL_DRAIN_SECONDS"},  # the default's drain
    "KOZEL_WEBHOOK_SECRET": SECRET,
    "KOZEL_LEASE_SECONDS": "3",
    "KOZEL_LEASE_RENEW": "0.5",
}


def caddy_binary() -> str | None:
    return os.environ.get("KOZEL_CADDY") or shutil.which("caddy")


def caddy_version(binary: str) -> str:
    result = subprocess.run([binary, "version"], capture_output=True, text=True, check=False)
    return result.stdout.strip().split()[0] if result.stdout.strip() else "unknown"


def local_caddyfile(workers: list[int]) -> str:
    """The project's Caddyfile with compose's worker addresses replaced by local ports, and
    global options for a test: plain HTTP (the site address says http://, from KOZEL_DOMAIN),
    no admin endpoint (no port 2019 shared with other tests)."""
    text = CADDYFILE.read_text(encoding="utf-8")
    for number, port in enumerate(workers, 1):
        name = f"worker{number}:{WORKER_PORT}"
        assert re.search(rf"\b{name}\b", text), f"{name} not in {CADDYFILE}"
        text = re.sub(rf"\b{name}\b", f"127.0.0.1:{port}", text)
    assert not text.lstrip().startswith("{\n"), "the Caddyfile has global options: merge them"
    return "{\n\tadmin off\n\tauto_https off\n}\n\n" + text


@dataclass
class Caddy:
    binary: str
    folder: Path
    port: int
    workers: list[int]
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.folder / "caddy.log"

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def checks(self, port: int, *, up: bool) -> list[float]:
        """When Caddy's active health check said the worker on ``port`` is back ("host is
        up"), or (``up=False``) found it failing (no answer, or not 200): its log's times,
        wall-clock seconds like the fake's."""
        found = []
        for line in self.log_text().splitlines():
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                if not str(entry.get("logger", "")).endswith("health_checker.active"):
                    continue
                if entry.get("host") == f"127.0.0.1:{port}" and (
                    (entry.get("msg") == "host is up") == up
                ):
                    found.append(float(entry["ts"]))
        return found

    async def taken_back(self, port: int, since: int) -> None:
        """Until Caddy says the worker on ``port`` is up again (more than ``since`` times):
        from then on it sends that worker posts (the "second or two more" that
        docs/operating.md's rolling upgrade waits before it stops the next worker)."""
        deadline = time.monotonic() + WAIT
        while len(self.checks(port, up=True)) <= since:
            assert time.monotonic() < deadline, f"caddy never took {port} back:\n{self.log_text()}"
            await asyncio.sleep(0.1)

    async def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        config = self.folder / "Caddyfile"
        config.write_text(local_caddyfile(self.workers), encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.folder),
            "XDG_DATA_HOME": str(self.folder / "data"),
            "XDG_CONFIG_HOME": str(self.folder / "config"),
            "KOZEL_DOMAIN": self.url,
        }
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [self.binary, "run", "--config", str(config), "--adapter", "caddyfile"],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 20
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as http:
            while True:
                assert self.process.poll() is None, f"caddy exited:\n{self.log_text()}"
                with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                    async with http.get(self.url + "/healthz") as answer:
                        if answer.status == 200:
                            return
                assert time.monotonic() < deadline, f"caddy did not answer:\n{self.log_text()}"
                await asyncio.sleep(0.2)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@dataclass
class Poster:
    """Telegram's side of the traffic: a ``/help`` from the next person every ``POST_EVERY``."""

    people: list[SimUser]
    sent: dict[int, int]  # person id -> /help sent
    task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        began, n = loop.time(), 0
        while True:
            person = self.people[n % len(self.people)]
            await person.send(person, "/help")
            self.sent[person.id] += 1
            n += 1
            await asyncio.sleep(max(0.0, began + n * POST_EVERY - loop.time()))

    async def stop(self) -> None:
        assert self.task is not None
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


@dataclass(frozen=True)
class Outage:
    """The failed posts between ``began`` and ``ended`` (wall-clock seconds)."""

    what: str
    failed: list[Delivery]
    posts: int
    noticed: float | None = None  # when the proxy's health check first found the worker gone

    @property
    def late(self) -> list[Delivery]:
        """Failed posts more than ``MAX_FAILING`` after the proxy noticed (all, if it never
        did while some failed)."""
        if self.noticed is None:
            return list(self.failed)
        return [d for d in self.failed if d.at > self.noticed + MAX_FAILING]

    @property
    def seconds(self) -> float:
        if not self.failed:
            return 0.0
        return max(d.at for d in self.failed) - min(d.at for d in self.failed)

    def __str__(self) -> str:
        kinds: dict[str, int] = {}
        for d in self.failed:
            key = f"{d.status} {d.answer}" if d.status is not None else (d.error or "no answer")
            kinds[key] = kinds.get(key, 0) + 1
        noticed = "" if self.noticed is None else f", {len(self.late)} late"
        return (
            f"{self.what}: {len(self.failed)} of {self.posts} posts failed over "
            f"{self.seconds:.2f} s {kinds}{noticed}"
        )


def by_the_proxy(delivery: Delivery) -> bool:
    """A failed post the proxy failed: not a live worker's own 503 "not now" (an update the
    killed worker had taken is refused so by the others until it goes stale: the proxy did
    its part, and the update's wait is the bot's, see ``STALE_AFTER``)."""
    said_by_a_worker = delivery.status == 503 and delivery.answer.startswith("not now")
    return delivery.status != 200 and not said_by_a_worker


def outage(
    fake: FakeTelegram, what: str, began: float, ended: float, noticed: float | None = None
) -> Outage:
    window = [d for d in fake.webhook_deliveries if began <= d.at <= ended]
    return Outage(what, [d for d in window if by_the_proxy(d)], len(window), noticed)


@pytest.fixture
async def caddy(tmp_path: Path) -> AsyncIterator[Caddy]:
    binary = caddy_binary()
    if binary is None:
        reason = "caddy not found (apt-get install caddy, or set KOZEL_CADDY)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: CI runs the proxy test (.ci/run installs it)")
        pytest.skip(reason)
    proxy = Caddy(binary, tmp_path / "caddy", free_port(), [free_port(), free_port()])
    try:
        yield proxy
    finally:
        proxy.stop()


async def test_caddy_keeps_posts_flowing_when_a_worker_is_killed_or_restarted(
    fake_telegram: FakeTelegram,
    bot_process: BotProcessFactory,
    caddy: Caddy,
    request: pytest.FixtureRequest,
) -> None:
    fake = fake_telegram
    # Telegram's pauses before it sends a failed post again are longer; short ones here make
    # every second of a proxy's outage show as failed posts.
    fake.webhook_retry = Retry(first=0.05, longest=0.5, timeout=15.0)
    env = {**ENV, "KOZEL_WEBHOOK_URL": caddy.url + "/telegram"}
    workers = [
        Worker(bot_process(env={**env, "KOZEL_LISTEN": f"127.0.0.1:{port}"}, name=f"w{n}"), port)
        for n, port in enumerate(caddy.workers, 1)
    ]
    await asyncio.gather(*(worker.start() for worker in workers))
    await caddy.start()
    people = [fake.add_user(f"Person{n}") for n in range(PEOPLE)]
    for person in people:
        await person.start_bot()
    await fake.wait_for(
        lambda: all(fake.messages(p, from_bot=True) for p in people), 20, what="hellos"
    )
    hellos = {p.id: len(fake.messages(p, from_bot=True)) for p in people}
    poster = Poster(people, dict.fromkeys((p.id for p in people), 0))
    poster.start()
    outages = []
    try:
        await fake.wait_for(
            lambda: len(fake.webhook_deliveries) >= PEOPLE, WAIT, what="posts to the workers"
        )

        # A crash: SIGKILL, then the worker comes back (as `restart: unless-stopped` does).
        port = workers[0].port
        began, ups = time.time(), len(caddy.checks(port, up=True))
        workers[0].process.kill()
        await asyncio.sleep(2)
        await workers[0].start()  # until it answers /healthz
        await caddy.taken_back(port, ups)
        noticed = min((t for t in caddy.checks(port, up=False) if t >= began), default=None)
        outages.append(outage(fake, "SIGKILL worker1", began, time.time(), noticed))

        # A rolling upgrade right after: each worker in turn stopped with SIGTERM, started
        # again, and the next one stopped once the proxy takes updates to it again.
        for number in (2, 1):
            worker = workers[number - 1]
            began, ups = time.time(), len(caddy.checks(worker.port, up=True))
            await worker.process.stop()
            await asyncio.sleep(1)
            await worker.start()
            await caddy.taken_back(worker.port, ups)
            outages.append(outage(fake, f"SIGTERM worker{number}", began, time.time()))
    finally:
        await poster.stop()

    # No update lost: every one answered 200 in the end, every /help answered in its chat. An
    # update the killed worker had taken is refused by the others ("another worker has it")
    # until it goes stale: that long, and then the guard.
    await fake.wait_for(
        lambda: not fake.pending_updates, STALE_AFTER + WAIT, what="every update delivered"
    )
    answered = {d.update_id for d in fake.webhook_deliveries if d.status == 200}
    assert {u["update_id"] for u in fake.update_log} <= answered

    def unanswered() -> dict[str, int]:
        short = {}
        for person in people:
            replies = len(fake.messages(person, from_bot=True)) - hellos[person.id]
            if replies < poster.sent[person.id]:
                short[person.first_name] = poster.sent[person.id] - replies
        return short

    with contextlib.suppress(TimeoutError):
        await fake.wait_for(lambda: not unanswered(), WAIT, what="every /help answered")
    assert not unanswered(), f"/help sent but never answered: {unanswered()}"

    summary = f"caddy {caddy_version(caddy.binary)}; " + "; ".join(str(o) for o in outages)
    print(summary)
    request.node.user_properties.append(("failover", summary))
    for one in outages:
        assert not one.late, f"{summary}\n--- caddy log ---\n{caddy.log_text()}"
        if one.what.startswith("SIGTERM"):
            assert not one.failed, f"{summary}\n--- caddy log ---\n{caddy.log_text()}"
