"""Two bot workers in webhook mode on one PostgreSQL database, behind a round-robin proxy.

Telegram (the fake) posts every update to the proxy, which hands each request to the next
worker; either worker may get any update of any table. Ten tables play at once, and in the
middle one worker is killed with SIGKILL and started again. Afterwards the database and the
groups must agree: every match ended once, every move is in the log once and only once (and the
log is the match's own history), every press the players saw answered "Played" is one of those
moves, every deal result reached its group, no timer (computer move, turn timeout) fired twice.
PostgreSQL only: SQLite is one process's file.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp
import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import Button, StoredMessage
from fakebot.process import BotProcess, free_port
from fakebot.proxy import RoundRobinProxy
from fakebot.server import FakeTelegram
from fakebot.users import SimUser
from fakebot.webhook import SECRET_HEADER

from .driver import ENV_FAST, MATCH_OVER, Table, forged_newgame, rows

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.parametrize("bot_database", ["postgres"], indirect=True),
]

SECRET = "workers-secret_for-the-tests"
HOOK_PATH = "/telegram/hook"
DEAL_OVER = re.compile(r"Deal (\d+) is over")
# Quick computers (50 ms a move, about what a full search took: no match may end before the
# slowest table is mid-way), short turn timers (60 s x 0.1: a person's turn times out after
# 6 s, which happens around the kill), and a dead worker's claims free 3 s after its last
# renewal.
ENV = {
    **ENV_FAST,
    "KOZEL_AI_DELAY": "0.05",
    "KOZEL_TIMEOUT_SCALE": "0.1",
    "KOZEL_LEASE_SECONDS": "3",
    "KOZEL_LEASE_RENEW": "0.5",
}
# (variant, computers beside the one person): the shortest matches, and a few of each kind.
TABLES = [("ziege", 3)] * 6 + [("moscow", 1)] * 2 + [("street", 3)] * 2
REPEAT_WINDOW = 1.0  # seconds before a SIGKILL in which a sent post may not be marked sent yet
MID_WAY = 12  # moves every table has made when the worker is killed (a match to 6: ~50-150)
ONE_DEAL = {"street", "moscow"}  # 6 for a side with no trick: a match to 6 in one deal
PRESS_WAIT = 10.0  # seconds a player waits for a press's answer before looking again


@dataclass
class Worker:
    process: BotProcess
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def healthy(self) -> bool:
        try:
            async with (
                aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as http,
                http.get(self.url + "/healthz") as answer,
            ):
                return answer.status == 200
        except (aiohttp.ClientError, TimeoutError):
            return False

    async def start(self, timeout: float = 30.0) -> None:
        """Start the process and wait until its web server answers /healthz with 200."""
        await self.process.start(until_polling=False)
        deadline = time.monotonic() + timeout
        while not await self.healthy():
            if not self.process.running:
                raise AssertionError(f"worker on port {self.port} exited:\n{self.tail()}")
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"worker on port {self.port} did not answer /healthz within {timeout} s "
                    f"(does it still wait for the single bot lease?):\n{self.tail()}"
                )
            await asyncio.sleep(0.2)

    def tail(self, lines: int = 15) -> str:
        return "\n".join(self.process.log_text().splitlines()[-lines:])


async def start_workers(
    bot_process: BotProcessFactory, count: int, env: dict[str, str], secret: str = SECRET
) -> tuple[RoundRobinProxy, list[Worker]]:
    """``count`` webhook workers with ``env`` behind one round-robin proxy, all answering."""
    ports = [free_port() for _ in range(count)]
    proxy = RoundRobinProxy([f"http://127.0.0.1:{port}" for port in ports])
    await proxy.start()
    made = []
    for number, port in enumerate(ports, 1):
        worker_env = {
            **env,
            "KOZEL_WEBHOOK_URL": proxy.url + HOOK_PATH,
            "KOZEL_WEBHOOK_SECRET": secret,
            "KOZEL_LISTEN": f"127.0.0.1:{port}",
        }
        made.append(Worker(bot_process(env=worker_env, name=f"worker{number}"), port))
    try:
        await asyncio.gather(*(worker.start() for worker in made))
    except BaseException:
        await proxy.stop()
        raise
    return proxy, made


async def two_workers(
    bot_process: BotProcessFactory,
) -> tuple[RoundRobinProxy, Worker, Worker]:
    proxy, (first, second) = await start_workers(bot_process, 2, ENV)
    return proxy, first, second


@dataclass
class RecordedTable(Table):
    """A table whose player notes every press answered "Played" (table, ply, person)."""

    played: list[tuple[int, int, int]] = field(default_factory=list)
    unanswered: int = 0

    async def _press(self, user: SimUser, message: StoredMessage, button: Button) -> str:
        current = self.server.chat(user).messages.get(message.message_id)
        if current is None or not current.has_callback_data(button.callback_data or ""):
            # The screen changed under the player's finger (a timeout made them "away", a
            # worker caught up on an edit): they look again instead.
            return "out of date (the hand changed)"
        try:
            text = await super()._press(user, message, button)
        except TimeoutError:
            # No answer (the worker that held the press died; the retry came too late for the
            # query): like a person, look at the hand again. Not counted as played.
            self.unanswered += 1
            return "out of date (no answer)"
        if text.startswith("Played"):
            _, table_id, ply, *_ = (button.callback_data or "").split(":")
            self.played.append((int(table_id), int(ply), user.id))
        return text


async def open_tables(fake: FakeTelegram) -> list[tuple[RecordedTable, SimUser]]:
    async def one(index: int, variant: str, computers: int) -> tuple[RecordedTable, SimUser]:
        person = fake.add_user(f"Player{index}")
        group = fake.add_group(f"Kozel club {index}", [person], admins=[person])
        # Every press is answered within 10 s, the SIGKILL's too: one the killed worker had
        # taken goes to the other once its lease runs out (3 s), not after the dedupe's minute.
        table = RecordedTable(fake, group, hand_wait=20.0, press_wait=PRESS_WAIT)
        await table.start_private(person)
        await table.open(person, f"{variant} goat=6")
        for level in ("random", "basic", "random")[:computers]:
            await table.add_computer(person, level)
        await table.start(person)
        return table, person

    return list(await asyncio.gather(*(one(i + 1, v, c) for i, (v, c) in enumerate(TABLES))))


def count(db: str, sql: str, params: tuple[object, ...] = ()) -> int:
    return int(str(rows(db, sql, params)[0][0]))


def posts(
    fake: FakeTelegram, table: Table, pattern: Callable[[str], str | None]
) -> list[tuple[str, float]]:
    """(what, when it was shown) for every bot message of the group ``pattern`` names: the
    first version that says it (a deal's result is its table message, edited)."""
    found = []
    for message in fake.messages(table.group, from_bot=True):
        for version in message.versions:
            what = pattern(version.text)
            if what is not None:
                found.append((what, version.at))
                break
    return found


def repeats(found: list[tuple[str, float]], killed_at: float) -> tuple[list[str], list[str]]:
    """Posts that came twice: (not allowed, allowed). Allowed only when the first copy went
    out just before the SIGKILL: the outbox sends, then marks sent, and a worker killed in
    between leaves the post owed (at least once, as Telegram's sendMessage is not idempotent)."""
    first: dict[str, float] = {}
    bad, allowed = [], []
    for what, at in found:
        if what not in first:
            first[what] = at
        elif killed_at - REPEAT_WINDOW <= first[what] <= killed_at:
            allowed.append(what)
        else:
            bad.append(what)
    return bad, allowed


def deal_post(text: str) -> str | None:
    match = DEAL_OVER.search(text)
    return None if match is None else match.group(1)


def match_post(text: str) -> str | None:
    return "match" if MATCH_OVER in text else None


async def wait_until(what: str, check: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out ({timeout} s) waiting for {what}"
        await asyncio.sleep(0.25)


async def test_two_workers_share_ten_tables_and_one_is_killed_mid_match(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    began = time.monotonic()
    proxy, first, second = await two_workers(bot_process)
    db = first.process.db
    assert isinstance(db, str) and db == second.process.db  # one PostgreSQL database
    try:
        tables = await open_tables(fake)
        playing = [
            asyncio.create_task(table.play([person], timeout=60)) for table, person in tables
        ]

        # Mid-way: every table has moved a few times, or its match is over (see ONE_DEAL).
        # Then SIGKILL one.
        def mid_way() -> bool:
            sql = (
                "SELECT t.chat_id, count(l.id) FROM game_tables t LEFT JOIN table_log l "
                "ON l.table_id = t.id AND l.kind = 'action' GROUP BY t.chat_id"
            )
            plies = {int(str(chat)): int(str(n)) for chat, n in rows(db, sql)}
            return all(
                table.match_over() or plies.get(table.group.id, 0) >= MID_WAY for table, _ in tables
            )

        await wait_until("every table to be mid-way", mid_way, timeout=60)
        ended = [v for (table, _), (v, _) in zip(tables, TABLES, strict=True) if table.match_over()]
        assert set(ended) <= ONE_DEAL, f"matches ended before the kill: {ended}"
        before_kill = {target: proxy.ok_posts(target) for target in proxy.targets}
        victim = first if proxy.ok_posts(first.url) >= proxy.ok_posts(second.url) else second
        victim.process.kill()
        killed_at = time.time()
        await asyncio.sleep(0.5)
        await victim.start()

        done, pending = await asyncio.wait(playing, timeout=150)
        for task in pending:
            task.cancel()
        for task in done:
            task.result()  # a player's failure shows here
        assert not pending, f"{len(pending)} matches did not end in time"
        await wait_until(
            "the outbox to empty", lambda: count(db, "SELECT count(*) FROM outbox") == 0, 30
        )
    finally:
        await proxy.stop()

    # Both workers took updates while both ran.
    assert all(n > 0 for n in before_kill.values()), f"updates per worker: {before_kill}"

    ids = dict(rows(db, "SELECT chat_id, id FROM game_tables"))
    assert len(ids) == len(TABLES)
    problems: list[str] = []
    repeated: list[str] = []  # posts repeated in the SIGKILL's send-then-mark window
    for table, person in tables:
        table_id = int(str(ids[table.group.id]))
        name = f"table {table_id} ({table.group.title})"
        # Exactly one "match over" per group, and one match record.
        over = posts(fake, table, match_post)
        doubled, allowed = repeats(over, killed_at)
        repeated += allowed
        if not over or doubled:
            problems.append(f"{name}: {len(over)} match-over posts")
        if count(db, "SELECT count(*) FROM matches WHERE table_id = ?", (table_id,)) != 1:
            problems.append(f"{name}: not one match record")
        # The log is the match's history: each ply once, in order, the same actions.
        log = rows(
            db,
            "SELECT ply, seat, text, by FROM table_log WHERE table_id = ? AND kind = 'action' "
            "ORDER BY id",
            (table_id,),
        )
        plies = [int(str(ply)) for ply, _, _, _ in log]
        if plies != list(range(1, len(plies) + 1)):
            doubled = [p for p, n in Counter(plies).items() if n > 1]
            missing = sorted(set(range(1, max(plies) + 1)) - set(plies))
            problems.append(f"{name}: plies doubled {doubled}, missing {missing}")
        state = rows(db, "SELECT status, match_state FROM game_tables WHERE id = ?", (table_id,))
        status, match_state = state[0]
        history = json.loads(str(match_state))["actions"]
        if status != "finished":
            problems.append(f"{name}: status {status}")
        if [str(text) for _, _, text, _ in log] != history:
            problems.append(
                f"{name}: the log ({len(log)} actions) is not the match's history "
                f"({len(history)} actions)"
            )
        # Every press answered "Played" is the person's move at the next ply, once.
        by_ply = {int(str(ply)): (seat, str(by)) for ply, seat, _, by in log}
        seat_rows = rows(
            db,
            "SELECT seat FROM seats WHERE table_id = ? AND (user_id = ? OR left_user_id = ?)",
            (table_id, person.id, person.id),
        )
        seat = int(str(seat_rows[0][0]))
        for pressed_table, ply, _ in table.played:
            assert pressed_table == table_id, (pressed_table, table_id)
            if by_ply.get(ply + 1) != (seat, "human"):
                problems.append(
                    f"{name}: press at ply {ply} answered 'Played' but ply {ply + 1} in the log "
                    f"is {by_ply.get(ply + 1)}"
                )
        if len(table.played) != len(set(table.played)):
            problems.append(f"{name}: one press at a ply answered 'Played' twice")
        # Every deal result reached the group, once.
        deals = count(
            db, "SELECT count(*) FROM table_log WHERE table_id = ? AND kind = 'deal'", (table_id,)
        )
        results = posts(fake, table, deal_post)
        numbers = sorted({int(n) for n, _ in results})
        if numbers != list(range(1, deals + 1)):
            problems.append(f"{name}: deal posts {numbers}, deals in the log {deals}")
        doubled, allowed = repeats(results, killed_at)
        repeated += [f"deal {n}" for n in allowed]
        if doubled:
            problems.append(f"{name}: deal results posted twice: {doubled}")
    # No timer fired twice: no two moves of a table share a ply (computer and timeout moves
    # are the timers' work; people's moves are checked the same way).
    twice = rows(
        db,
        "SELECT table_id, ply, count(*) FROM table_log WHERE kind = 'action' "
        "GROUP BY table_id, ply HAVING count(*) > 1",
    )
    if twice:
        problems.append(f"moves logged twice (table, ply, times): {twice}")
    # A finished table waits for nothing: no timer row is left to fire once more.
    left = rows(db, "SELECT table_id, slot, kind, ply FROM timers")
    if left:
        problems.append(f"timers left after the matches ended: {left}")
    moves = dict(rows(db, "SELECT by, count(*) FROM table_log WHERE kind = 'action' GROUP BY by"))
    played = sum(len(table.played) for table, _ in tables)
    unanswered = sum(table.unanswered for table, _ in tables)
    summary = (
        f"updates per worker {dict(proxy.answered)}, dropped {dict(proxy.dropped)}; "
        f"presses played {played}, unanswered {unanswered}; moves by {moves}; "
        f"posts repeated at the kill {repeated}; "
        f"{time.monotonic() - began:.0f} s"
    )
    print(summary)
    assert problems == [], summary
    assert played > 0
    assert unanswered == 0, f"presses not answered within {PRESS_WAIT} s: {summary}"
    # Both workers took updates after the restart too (the restarted one is back in turn).
    assert all(proxy.ok_posts(t) > before_kill[t] for t in proxy.targets), summary


async def test_a_wrong_secret_through_the_proxy_changes_nothing(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    proxy, first, _ = await two_workers(bot_process)
    try:
        anna = fake.add_user("Anna")
        group = fake.add_group("Kozel club", [anna], admins=[anna])
        body = await forged_newgame(fake, group, anna)
        sent_before = len(fake.messages(group, from_bot=True))
        answered_before = Counter(proxy.answered)

        async with aiohttp.ClientSession() as http:

            async def post(secret: str | None) -> int:
                headers = {"Content-Type": "application/json"}
                if secret is not None:
                    headers[SECRET_HEADER] = secret
                async with http.post(proxy.url + HOOK_PATH, data=body, headers=headers) as r:
                    return r.status

            # Four wrong ones: round robin hands each worker two of them.
            statuses = [await post(s) for s in (None, "wrong", SECRET[:-1], SECRET + "x")]
            assert statuses == [401] * 4
            refused = Counter(proxy.answered) - answered_before
            assert {t: refused[t, 401] for t in proxy.targets} == dict.fromkeys(proxy.targets, 2)
            await asyncio.sleep(0.5)  # time for a wrongly taken update to show
            assert len(fake.messages(group, from_bot=True)) == sent_before
            assert count(first.process.db, "SELECT count(*) FROM game_tables") == 0

            # The right secret opens the table: the 401s were the check.
            mark = fake.mark()
            assert await post(SECRET) == 200
            await fake.wait_for_message(group, lambda m: bool(m.buttons), since=mark)
            assert count(first.process.db, "SELECT count(*) FROM game_tables") == 1
    finally:
        await proxy.stop()


@pytest.mark.waits(7)
async def test_a_press_in_flight_to_a_killed_worker_is_answered_within_seconds(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """A worker takes a press in the database and is SIGKILLed while it handles it (here: it
    waits for Telegram's answer to an admin check). Telegram sends the press again, to the
    other worker, which takes it over once the dead worker's lease has run out (3 s here): the
    press is answered within 10 s, not after the minute an update may stay taken."""
    fake = fake_telegram
    proxy, first, second = await two_workers(bot_process)
    workers = {first.url: first, second.url: second}
    try:
        anna, boris = fake.add_user("Anna"), fake.add_user("Boris")
        group = fake.add_group("Kozel club", [anna, boris], admins=[anna])
        table = Table(fake, group)
        await table.start_private(anna)
        await table.open(anna, "street")
        # Boris's Cancel (not his table) asks Telegram whether he is an admin: it hangs.
        fake.set_delay("getChatMember", 60.0)
        began = time.monotonic()
        cancel = asyncio.create_task(
            boris.press_button(group, table.lobby_id, contains="Cancel", timeout=30)
        )
        await wait_until(
            "a worker to hold the press",
            lambda: any(proxy.in_flight[t] for t in proxy.targets),
            timeout=10,
        )
        await asyncio.sleep(1.0)  # it took the press and waits for the admin check
        (holding,) = [t for t in proxy.targets if proxy.in_flight[t]]
        victim = workers[holding]
        taken = count(first.process.db, "SELECT count(*) FROM updates WHERE done = 0")
        assert taken == 1, f"the press is not taken in the database ({taken} rows)"
        victim.process.kill()
        fake.set_delay("getChatMember", 0)  # the survivor's check is answered at once
        answer = await cancel
        waited = time.monotonic() - began
        assert "Only the player who opened" in (answer.text or ""), answer
        press = next(p for p in fake.press_log if p.user_id == boris.id)
        assert press.latency is not None and press.latency < 10.0, (press.latency, waited)
        print(f"press answered {press.latency:.1f} s after it was made (worker killed)")
    finally:
        await proxy.stop()
