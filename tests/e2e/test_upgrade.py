"""A rolling upgrade, as an operator runs one: the previous release (``deploy/previous-release``)
and this tree on one database at once.

Webhook (PostgreSQL): two workers of the previous release behind a round-robin proxy, tables
playing at a person's pace; worker A is replaced by this tree's (which migrates the schema),
then worker B. Play goes on through both: no press lost or answered twice, every press
answered within 10 s, no move applied twice, no deal result posted twice, no update left
undelivered, every table moving after each replacement.

Polling (SQLite and PostgreSQL): this tree started beside the previous release waits for the
database's lock without touching the schema, and migrates only once the old process is gone.

The previous release runs from its own files (``git archive`` of its commit) with this venv's
Python: ``PYTHONPATH`` puts its ``bot`` first (checked: it never says its release in the
database, which this tree does).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import Button, StoredMessage
from fakebot.process import REPO_ROOT, BotProcess, free_port
from fakebot.proxy import RoundRobinProxy
from fakebot.server import FakeTelegram
from fakebot.users import SimUser
from pgcluster import PgCluster

from bot.release import RELEASE, VERSION
from bot.storage import PostgresStorage
from bot.storage.migrations import latest_version

from .driver import ENV_FAST, Table, rows
from .test_workers import (
    HOOK_PATH,
    SECRET,
    RecordedTable,
    Worker,
    count,
    deal_post,
    match_post,
    posts,
    wait_until,
)

pytestmark = pytest.mark.e2e

PREVIOUS_RELEASE = REPO_ROOT / "deploy" / "previous-release"
ANSWER_WITHIN = 10.0  # seconds a press may wait for its answer
ENV = {
    **ENV_FAST,
    "KOZEL_AI_DELAY": "0.05",
    # A worker that died frees its claims within 3 s (a clean stop gives them back at once).
    "KOZEL_LEASE_SECONDS": "3",
    "KOZEL_LEASE_RENEW": "0.5",
}
TABLES = [("ziege", 3)] * 3 + [("street", 3)] * 2 + [("moscow", 1)]
PHASE = 5.0  # seconds of play before the first replacement, between them, and after the last
PACE = 0.3  # seconds a person looks at a new hand before pressing
# Seconds a person waits for their hand to show a tap before they look again. v0.31 wrote a
# tap's choice without moving the table's version on: a new worker's save from a moment
# before wrote the seat back without it (the answer said "Selected", the hand showed
# nothing). v0.32 on move the version on; beside v0.31 the person taps again.
ECHO_WAIT = 4.0
OLD_STOP_WITHIN = 10.0  # seconds an old worker has to stop after SIGTERM (Docker's grace)
STOP_WITHIN = 30.0  # seconds this release's worker has to stop (a loaded machine is slow)


def previous_release() -> tuple[str, str]:
    """(tag, full sha) of the release this one replaces."""
    tag, sha = PREVIOUS_RELEASE.read_text(encoding="utf-8").split()
    return tag, sha


@pytest.fixture(scope="session")
def old_tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The previous release's files, from this repository's history. CI must have them (a
    fresh clone of main holds that commit); elsewhere a shallow clone may skip."""
    tag, sha = previous_release()
    found = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "cat-file", "-e", f"{sha}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    if found.returncode != 0:
        reason = f"the previous release {tag} ({sha}) is not in this repository's history"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (deploy/previous-release; CI needs the full history)")
        pytest.skip(reason)
    where = tmp_path_factory.mktemp(f"kozel-{tag}")
    archive = where / "release.tar"
    git_archive = ["git", "-C", str(REPO_ROOT), "archive", "-o", str(archive), sha]
    subprocess.run([*git_archive, "bot", "kozel_rules", "locales"], check=True)
    subprocess.run(["tar", "-xf", str(archive), "-C", str(where)], check=True)
    archive.unlink()
    yield where


UNREGISTERED = 30  # v0.30 never says its release: a live worker without a row counts as 30


def release_of(tree: Path) -> int:
    """The release a tree's code says it is (``bot/release.py``; v0.30 predates it)."""
    if not (tree / "bot" / "release.py").exists():
        return UNREGISTERED
    probe = "from bot.release import RELEASE; print(RELEASE)"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=tree, capture_output=True, text=True, check=True
    )
    return int(done.stdout)


def schema_of(tree: Path) -> int:
    """The schema version a tree's code migrates to."""
    probe = "from bot.storage.migrations import latest_version; print(latest_version())"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=tree, capture_output=True, text=True, check=True
    )
    return int(done.stdout)


def imported_from(tree: Path) -> Path:
    """Where ``import bot`` finds the package with ``tree`` first on PYTHONPATH, as its
    workers run (this venv's editable install of this tree must not win)."""
    probe = "import bot; print(bot.__file__)"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=tree, capture_output=True, text=True, check=True
    )
    return Path(done.stdout.strip())


# ------------------------------------------------------------------ webhook: two workers


@dataclass
class TimedTable(RecordedTable):
    """A recorded table that also times every press's answer."""

    waits: list[float] = field(default_factory=list)

    async def _press(self, user: SimUser, message: StoredMessage, button: Button) -> str:
        began = time.monotonic()
        try:
            return await super()._press(user, message, button)
        finally:
            self.waits.append(time.monotonic() - began)


async def open_tables(fake: FakeTelegram) -> list[tuple[TimedTable, SimUser]]:
    async def one(index: int, variant: str, computers: int) -> tuple[TimedTable, SimUser]:
        person = fake.add_user(f"Player{index}")
        group = fake.add_group(f"Kozel club {index}", [person], admins=[person])
        table = TimedTable(fake, group, hand_wait=ECHO_WAIT, press_wait=ANSWER_WITHIN, pause=PACE)
        await table.start_private(person)
        await table.open(person, variant)
        for level in ("random", "basic", "random")[:computers]:
            await table.add_computer(person, level)
        await table.start(person)
        return table, person

    return list(await asyncio.gather(*(one(i + 1, v, c) for i, (v, c) in enumerate(TABLES))))


def plies(db: str) -> dict[int, int]:
    sql = "SELECT chat_id, count(*) FROM table_log AS l JOIN game_tables AS t ON t.id = l.table_id"
    found = rows(db, sql + " WHERE l.kind = 'action' GROUP BY chat_id")
    return {int(str(chat)): int(str(n)) for chat, n in found}


async def oldest_live(db: str, *, settling_to: int | None = None) -> int | None:
    """The oldest live release; with ``settling_to``, once it says that (or after 20 s)."""
    store = await PostgresStorage.open(db, migrate=False)
    try:
        deadline = time.monotonic() + 20.0
        while True:
            found = await store.oldest_live_release()
            if found == settling_to or settling_to is None or time.monotonic() > deadline:
                return found
            await asyncio.sleep(0.25)
    finally:
        await store.close()


@pytest.fixture
async def empty_pg(pg_cluster: PgCluster) -> AsyncIterator[str]:
    """A PostgreSQL database without the schema: the previous release makes its own."""
    url = await pg_cluster.create_database(empty=True)
    yield url
    await pg_cluster.drop_database(url)


async def test_two_webhook_workers_are_replaced_by_this_release_during_play(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory, old_tree: Path, empty_pg: str
) -> None:
    fake = fake_telegram
    began = time.monotonic()
    assert imported_from(old_tree) == old_tree / "bot" / "__init__.py"
    old_release = release_of(old_tree)
    ports = [free_port(), free_port()]
    proxy = RoundRobinProxy([f"http://127.0.0.1:{port}" for port in ports])
    await proxy.start()

    def worker(slot: str, port: int, *, old: bool) -> Worker:
        env = {
            **ENV,
            "KOZEL_WEBHOOK_URL": proxy.url + HOOK_PATH,
            "KOZEL_WEBHOOK_SECRET": SECRET,
            "KOZEL_LISTEN": f"127.0.0.1:{port}",
        }
        process: BotProcess = bot_process(env=env, name=f"{slot}-{'old' if old else 'new'}")
        process.database_url = process.db = empty_pg
        if old:
            process.cwd = old_tree
        return Worker(process, port)

    old_a, old_b = worker("a", ports[0], old=True), worker("b", ports[1], old=True)
    db = str(old_a.process.db)
    schema: list[int] = []
    moved: list[dict[int, int]] = []
    live: list[int | None] = []
    replaced: list[Worker] = []
    stops: list[float | str] = []
    try:
        await asyncio.gather(old_a.start(), old_b.start())
        schema.append(count(db, "SELECT max(version) FROM schema_version"))
        if old_release == UNREGISTERED:  # v0.30 knows no table of releases (v0.31 adds it)
            assert rows(db, "SELECT to_regclass('worker_releases')") == [(None,)]

        tables = await open_tables(fake)
        stop = False
        playing = [
            asyncio.create_task(
                table.play([person], until=lambda t=table: stop or t.match_over(), timeout=60)
            )
            for table, person in tables
        ]
        await asyncio.sleep(PHASE)
        moved.append(plies(db))

        # Replace A, then B, as the README's rolling upgrade does: SIGTERM, start the new one.
        for slot, old, port in (("a", old_a, ports[0]), ("b", old_b, ports[1])):
            # Docker gives 10 s before SIGKILL. v0.31 and older may never end on SIGTERM
            # (asyncio.wait_for lost the sender's cancellation: bot/wake.py), and get the
            # SIGKILL: play must go on through that as well. This release stops cleanly
            # (checked below).
            stopping = time.monotonic()
            code = await old.process.stop(timeout=OLD_STOP_WITHIN)
            assert code in (0, -9), old.tail()
            stops.append(round(time.monotonic() - stopping, 1) if code == 0 else "killed")
            replaced.append(worker(slot, port, old=False))
            await replaced[-1].start()
            schema.append(count(db, "SELECT max(version) FROM schema_version"))
            # A killed old worker counts until its leases and row run out (seconds).
            expected = RELEASE if slot == "b" else None
            live.append(await oldest_live(db, settling_to=expected))
            await asyncio.sleep(PHASE)
            moved.append(plies(db))

        stop = True
        done, pending = await asyncio.wait(playing, timeout=30)
        for task in done:
            task.result()  # a player's failure shows here
        assert not pending, f"{len(pending)} players did not stop"
        await wait_until(
            "the outbox to empty", lambda: count(db, "SELECT count(*) FROM outbox") == 0, 30
        )
        await wait_until("every update to be taken", lambda: not fake.pending_updates, 30)
        releases = rows(
            db,
            "SELECT release, version FROM worker_releases WHERE expires_at > ? ORDER BY holder",
            (time.time(),),
        )  # a killed old worker's row stays (expired) until it is forgotten
        # This release's workers end on SIGTERM, however busy (a loaded machine gets longer).
        codes = [await w.process.stop(timeout=STOP_WITHIN) for w in replaced]
        assert codes == [0, 0], [w.tail() for w in replaced]
    finally:
        await proxy.stop()

    new = latest_version()
    old_schema = schema_of(old_tree)
    assert old_schema <= new
    assert schema == [old_schema, new, new], f"schema versions: {schema}"  # A migrated
    said = f"release {VERSION} ({RELEASE}) on this database"
    assert all(said in w.process.log_text() for w in replaced)
    # The old code is what ran: it says its own release (v0.30 says none).
    says = f"release v0.{old_release} ({old_release})"
    old_said = [says in w.process.log_text() for w in (old_a, old_b)]
    assert old_said == [old_release != UNREGISTERED] * 2
    # Beside old B, new A finds B (v0.30 by its leases: it never says its release); then
    # only this one.
    assert live == [old_release, RELEASE], f"oldest live release: {live}"
    assert [int(str(r)) for r, _ in releases] == [RELEASE, RELEASE], releases

    problems: list[str] = []
    ids = dict(rows(db, "SELECT chat_id, id FROM game_tables"))
    for table, person in tables:
        table_id = int(str(ids[table.group.id]))
        name = f"table {table_id} ({table.group.title})"
        log = rows(
            db,
            "SELECT ply, seat, text, by FROM table_log WHERE table_id = ? AND kind = 'action' "
            "ORDER BY id",
            (table_id,),
        )
        numbers = [int(str(ply)) for ply, _, _, _ in log]
        if numbers != list(range(1, len(numbers) + 1)):
            twice = [p for p, n in Counter(numbers).items() if n > 1]
            problems.append(f"{name}: plies doubled {twice} or missing in {numbers}")
        (state,) = rows(db, "SELECT match_state FROM game_tables WHERE id = ?", (table_id,))
        history = json.loads(str(state[0]))["actions"]
        if [str(text) for _, _, text, _ in log] != history:
            problems.append(f"{name}: the log is not the match's history")
        # Every press answered "Played" is the person's move at the next ply, once.
        by_ply = {int(str(ply)): (int(str(seat)), str(by)) for ply, seat, _, by in log}
        (seat_row,) = rows(
            db, "SELECT seat FROM seats WHERE table_id = ? AND user_id = ?", (table_id, person.id)
        )
        seat = int(str(seat_row[0]))
        for _, ply, _ in table.played:
            if by_ply.get(ply + 1) != (seat, "human"):
                problems.append(f"{name}: press at ply {ply} answered 'Played', not in the log")
        if len(table.played) != len(set(table.played)):
            problems.append(f"{name}: a press at one ply answered 'Played' twice")
        if table.unanswered:
            problems.append(f"{name}: {table.unanswered} presses never answered")
        slow = [round(w, 1) for w in table.waits if w > ANSWER_WITHIN]
        if slow:
            problems.append(f"{name}: presses answered after {slow} s")
        # Each deal result reached the group once; a finished match said so once.
        results = posts(fake, table, deal_post)
        if len(results) != len({what for what, _ in results}):
            problems.append(f"{name}: a deal result posted twice: {sorted(results)}")
        if len(posts(fake, table, match_post)) > 1:
            problems.append(f"{name}: the match's end posted twice")
        # The table moved on in every phase (or its match was over).
        chat = table.group.id
        steps = [phase.get(chat, 0) for phase in moved]
        if not table.match_over() and any(b <= a for a, b in itertools.pairwise(steps)):
            seen = stall(db, table, person)
            problems.append(f"{name}: stalled: moves after each phase {steps}; {seen}")
    twice = rows(
        db,
        "SELECT table_id, ply, count(*) FROM table_log WHERE kind = 'action' "
        "GROUP BY table_id, ply HAVING count(*) > 1",
    )
    if twice:
        problems.append(f"moves applied twice (table, ply, times): {twice}")
    statuses = Counter(d.status for d in fake.webhook_deliveries)
    if statuses[500]:
        problems.append(f"{statuses[500]} webhook posts failed with 500")
    waits = sorted(w for table, _ in tables for w in table.waits)
    played = sum(len(table.played) for table, _ in tables)
    missed = sum(table.echoes_missed for table, _ in tables)
    summary = (
        f"presses {len(waits)} (played {played}, taps not shown {missed}), answer time median "
        f"{waits[len(waits) // 2]:.2f} s, max {waits[-1]:.2f} s; moves per phase "
        f"{[sum(m.values()) for m in moved]}; stops took {stops} s; posts {dict(statuses)}; "
        "updates per worker "
        f"{dict(proxy.answered)}; {time.monotonic() - began:.0f} s"
    )
    print(summary)
    assert problems == [], summary
    assert played > 0, summary


def stall(db: str, table: TimedTable, person: SimUser) -> str:
    """What a stalled table looks like, to tell a lost message from a stuck match."""
    (state,) = rows(db, "SELECT status, id FROM game_tables WHERE chat_id = ?", (table.group.id,))
    table_id = state[1]
    timers = rows(db, "SELECT slot, kind, ply, seat, claimed_by FROM timers WHERE table_id = ?",
                  (table_id,))  # fmt: skip
    owed = rows(db, "SELECT kind, chat_id FROM outbox WHERE table_id = ?", (table_id,))
    last = [(m.text or "").split("\n")[0][:60] for m in table.server.messages(table.group)[-3:]]
    hand = [(m.text or "")[-120:] for m in table.server.messages(person)[-1:]]
    return f"status {state[0]}, timers {timers}, owed {owed}, group ends {last}, hand {hand}"


# ------------------------------------------------------------------ polling: one at a time

WAITING = "the database is in use by another running bot"
READY = "unfinished tables resumed"


@pytest.mark.waits(6)
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_polling_bot_waits_for_the_old_one_before_it_migrates(
    fake_telegram: FakeTelegram,
    bot_process: BotProcessFactory,
    old_tree: Path,
    backend: str,
    request: pytest.FixtureRequest,
) -> None:
    fake = fake_telegram
    old, new = bot_process(env=ENV_FAST, name="old"), bot_process(env=ENV_FAST, name="new")
    old.cwd = old_tree
    new.db_path = old.db_path
    cluster: PgCluster | None = None
    if backend == "postgres":  # the lock is a session's advisory lock there
        cluster = request.getfixturevalue("pg_cluster")
        url = await cluster.create_database(empty=True)
        for process in (old, new):
            process.database_url = process.db = url
    db = str(old.db)
    try:
        await _polling_upgrade(fake, old, new, db, backend)
    finally:
        for process in (old, new):
            await process.aclose()  # before the database goes
        if cluster is not None:
            await cluster.drop_database(db)


async def _polling_upgrade(
    fake: FakeTelegram, old: BotProcess, new: BotProcess, db: str, backend: str
) -> None:
    def version() -> int:
        if backend == "postgres":
            return count(db, "SELECT max(version) FROM schema_version")
        return count(db, "PRAGMA user_version")

    await old.start()
    host = fake.add_user("Host")
    group = fake.add_group("Kozel club", [host], admins=[host])
    table = Table(fake, group)
    await table.start_private(host)
    await table.open(host, "street")
    before = version()
    assert before == schema_of(old.cwd) <= latest_version()

    await new.start(until_polling=False)
    await fake.wait_for(lambda: WAITING in new.log_text(), timeout=30, what="the new one waiting")
    # While it waits, the old bot works on the schema it knows, untouched.
    await table.add_computer(host, "random")
    await asyncio.sleep(1.0)
    assert version() == before
    assert READY not in new.log_text()

    assert await old.stop() == 0
    await fake.wait_for(lambda: READY in new.log_text(), timeout=30, what="the new one to run")
    assert version() == latest_version()
    # The new release serves the old one's lobby (shown anew, or the same message).
    await asyncio.sleep(1.0)
    lobbies = [m for m in fake.messages(group) if any("Join" in b.text for b in m.buttons)]
    table.lobby_id = lobbies[-1].message_id
    await table.add_computer(host, "random")


# ------------------------------------------------------------------ stored enums

STORED_ENUMS = {
    "bot.storage.outbox": ("OutboxKind", "Priority"),
    "bot.storage.records": ("TableStatus", "LogKind", "Actor"),
    "bot.service.ports": ("DueKind",),
}
# Values this release added to a stored enum, each written only once no worker of the
# previous release is alive (``previous_release_alive``): name the code that asks. None yet.
GATED: dict[str, set[str]] = {}
ENUMS_PROBE = """
import importlib, json, sys
wanted = json.loads(sys.argv[1])
print(json.dumps({
    f"{module}.{name}": {m.name: m.value for m in getattr(importlib.import_module(module), name)}
    for module, names in wanted.items() for name in names
}))
"""


def stored_enums(tree: Path) -> dict[str, dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", ENUMS_PROBE, json.dumps(STORED_ENUMS)],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, dict[str, object]] = json.loads(done.stdout)
    return found


def test_stored_enums_only_grow_since_the_previous_release(old_tree: Path) -> None:
    """Every value the previous release stores means the same here; a value added since is
    written only behind ``previous_release_alive`` (listed in GATED)."""
    old, new = stored_enums(old_tree), stored_enums(REPO_ROOT)
    assert old.keys() == new.keys()
    for enum, members in old.items():
        values = new[enum]
        changed = {m: (v, values.get(m)) for m, v in members.items() if values.get(m) != v}
        assert changed == {}, f"{enum}: renamed, renumbered or removed: {changed}"
        fresh = set(values.values()) - set(members.values())
        added = {m for m, v in values.items() if v in fresh}
        assert added <= GATED.get(enum, set()), f"{enum}: new values not gated: {added}"
