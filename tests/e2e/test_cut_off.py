"""A webhook worker that cannot reach Telegram steps aside: two workers on one PostgreSQL
database, each reaching the (fake) Bot API through a path of its own, and one path is cut
(connections refused). The cut-off worker gives back the groups it held, claims no chat and no
timer, and says 503 on ``/healthz`` (a balancer sends the updates to the other); the other
worker delivers to its groups within seconds. When the path is back, so is the worker.
"""

from __future__ import annotations

import asyncio
import time
from urllib.parse import urlsplit

import aiohttp
import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.process import free_port
from fakebot.proxy import RoundRobinProxy
from fakebot.server import FakeTelegram
from netcut import NetCut

from .driver import Table, rows
from .test_workers import ENV, HOOK_PATH, SECRET, Worker

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.waits(6),
    pytest.mark.parametrize("bot_database", ["postgres"], indirect=True),
]

GROUPS = 4
STEP_ASIDE = 10.0  # seconds the cut-off worker has to say 503 (it counts as away after 1.5 s)
DELIVERED = 10.0  # seconds a group of the cut-off worker waits for the other to deliver


async def health(url: str) -> int | None:
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as http,
            http.get(url + "/healthz") as answer,
        ):
            return answer.status
    except (aiohttp.ClientError, TimeoutError):
        return None


async def until_health(url: str, status: int, timeout: float) -> float:
    """Seconds until ``url``'s /healthz answers ``status``."""
    began = time.monotonic()
    while await health(url) != status:
        assert time.monotonic() - began < timeout, f"{url}/healthz is not {status}"
        await asyncio.sleep(0.2)
    return time.monotonic() - began


async def test_a_worker_cut_off_from_telegram_steps_aside_and_comes_back(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    address = urlsplit(fake.url)
    assert address.hostname is not None and address.port is not None
    paths = [NetCut.tcp(address.hostname, address.port) for _ in range(2)]
    for path in paths:
        await path.start()
    ports = [free_port() for _ in paths]
    proxy = RoundRobinProxy([f"http://127.0.0.1:{port}" for port in ports])
    await proxy.start()
    workers = []
    for number, (path, port) in enumerate(zip(paths, ports, strict=True), 1):
        env = {
            **ENV,
            "KOZEL_BOT_API_URL": path.url,
            "KOZEL_WEBHOOK_URL": proxy.url + HOOK_PATH,
            "KOZEL_WEBHOOK_SECRET": SECRET,
            "KOZEL_LISTEN": f"127.0.0.1:{port}",
        }
        workers.append(Worker(bot_process(env=env, name=f"worker{number}"), port))
    try:
        await asyncio.gather(*(worker.start() for worker in workers))
        db = workers[0].process.db
        tables = []
        for number in range(GROUPS):
            person = fake.add_user(f"Player{number}")
            group = fake.add_group(f"Kozel club {number}", [person], admins=[person])
            table = Table(fake, group)
            await table.open(person, "ziege")
            tables.append((table, person))
        # Every lobby delivered and booked first: a cut drops the connections under way, and a
        # post whose answer was cut off is (rightly) sent again by the other worker, as a second
        # lobby message the driver would not follow.
        chat_ids = tuple(table.group.id for table, _ in tables)
        marks = ", ".join("?" for _ in chat_ids)
        await fake.wait_for(
            lambda: not rows(db, f"SELECT id FROM outbox WHERE chat_id IN ({marks})", chat_ids),
            timeout=30,
            what="every lobby delivered and booked",
        )
        # Who holds which group (a group stays its sender's while its calls count: a minute).
        held = {
            int(str(name).removeprefix("chat:")): str(holder)
            for name, holder in rows(db, "SELECT name, holder FROM leases WHERE name LIKE 'chat:%'")
        }
        pids = {worker.process.pid: worker for worker in workers}
        by_worker = {
            id(w): [c for c, h in held.items() if int(h.split(":")[1]) == w.process.pid]
            for w in workers
        }
        victim = max(workers, key=lambda w: len(by_worker[id(w)]))
        other = next(w for w in workers if w is not victim)
        assert pids and by_worker[id(victim)], f"no group is held by a worker: {held}"
        cut_at = time.monotonic()
        await paths[workers.index(victim)].refuse()

        stepped_aside = await until_health(victim.url, 503, STEP_ASIDE)
        assert await health(other.url) == 200
        proxy.targets = [other.url]  # the balancer heeds /healthz
        # Its groups are the other's now: a computer seated shows in the lobby within seconds.
        waits = []
        for table, person in tables:
            if table.group.id not in by_worker[id(victim)]:
                continue
            began = time.monotonic()
            await asyncio.wait_for(table.add_computer(person, "random"), DELIVERED)
            waits.append(time.monotonic() - began)
        now_held = rows(
            db,
            "SELECT name FROM leases WHERE name LIKE 'chat:%' AND holder LIKE ?",
            (f"%:{victim.process.pid}:%",),
        )
        assert now_held == [], f"the cut-off worker still holds {now_held}"
        # The path back: the worker answers 200 again by itself.
        healed_at = time.monotonic()
        await paths[workers.index(victim)].accept()
        back = await until_health(victim.url, 200, 20)
        print(
            f"503 after {stepped_aside:.1f} s; its {len(waits)} groups delivered by the other "
            f"in {max(waits):.1f} s at most; 200 again {back:.1f} s after the path was back "
            f"(cut for {healed_at - cut_at:.0f} s)"
        )
    finally:
        await proxy.stop()
        for path in paths:
            await path.stop()
