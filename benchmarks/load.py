"""Load benchmark: many tables of people playing Kozel against Telegram's flood limits.

Run by hand (it is not a test)::

    .venv/bin/python benchmarks/load.py --tables 10 [--seconds 90] [--bot-dir DIR] [--seed N]

It starts the fake Bot API (``tests/fakebot``) with Telegram's limits on (30 calls a second
overall, 20 a minute per group, about 1 a second per private chat; see
``tests/fakebot/limits.py``), then the real bot (``python -m bot``) with Telegram's numbers
in its own limiter (``KOZEL_RATE_LIMIT=30``, ``KOZEL_GROUP_RATE_LIMIT=20``), the default
``KOZEL_AI_DELAY`` and intervals, and turn timers scaled out of the way
(``KOZEL_TIMEOUT_SCALE=1000``). ``--bot-dir DIR`` runs the bot of another checkout
(cwd=DIR, PYTHONPATH=DIR), e.g. ``git worktree add /tmp/bench-before <commit>``, so an old
commit is measured with the same harness.

Each of ``--tables`` groups has four simulated people. The first opens a ``street`` table
(``/newgame street``), the others join through the lobby's deep link, the first starts. Then
each person plays at a human pace: when their private hand shows "👉", they think for
``--think`` seconds (uniform, seeded by ``--seed``) and tap a legal play the way the e2e driver
does (toggle cards, wait for the hand to show each tap, confirm). When a match ends, the
creator opens the next one. After a warm-up (until every table has started) the benchmark
measures for ``--seconds``, stops the people, stops the bot (SIGTERM) and prints:

- cards played per second (cards, not plays: a street lead may hold 1-3 cards), from the
  bot's ``table_log``;
- rate-limited calls per card (every call with a chat_id the bot made, 429s included), in
  total and by method;
- turn lag p50/p95/p99: from the answer "Played ..." to the next moment a hand of that table
  shows "👉";
- answer latency p50/p95/p99 of presses (press -> answerCallbackQuery) and presses never
  answered;
- 429 answers, by limit, and how many the bot did not wait out;
- deals and matches finished (``table_log`` rows ``deal``/``match``) vs the result posts that
  reached the groups (whole run, counted after the bot stopped; before it stops the bot, the
  benchmark waits up to 30 s for result posts still in the outbox).

It also prints how often the bot's own limiter slept (PTB's AIORateLimiter logs "Retrying
after N seconds" and holds every request meanwhile) and the stretches longer than 1 s in
which the bot made no call at all but getUpdates.

Several workers: ``--workers N`` (N >= 2) runs N bot processes in webhook mode on one
PostgreSQL database, behind the tests' round-robin proxy (``tests/fakebot/proxy.py``): the
fake posts every update to the proxy, which hands each request to the next worker; each worker
listens on its own ``KOZEL_LISTEN`` port, all share ``KOZEL_WEBHOOK_URL`` (the proxy's URL) and
``KOZEL_WEBHOOK_SECRET``. The database is a throwaway cluster (``tests/pgcluster.py``: Debian's
PostgreSQL binaries, a unix socket in a temporary folder, deleted afterwards).
``--workers 1 --database postgres`` runs one worker the same way (webhook, proxy, PostgreSQL),
so 1 vs 2 workers compare like with like; plain ``--workers 1`` is today's single polling bot
on SQLite. With the proxy the benchmark also prints each worker's share of the updates (the
webhook posts it answered with 200, in the window and in all)::

    .venv/bin/python benchmarks/load.py --tables 30 --seconds 60 --workers 1 --database postgres
    .venv/bin/python benchmarks/load.py --tables 30 --seconds 60 --workers 2

``--lease SECONDS RENEW`` sets ``KOZEL_LEASE_SECONDS``/``KOZEL_LEASE_RENEW`` (default the
production 30 and 10: with several workers, how long a claim on a chat or a timer lasts). The
three slowest turns are printed with their table and clock time, to look them up in the bots'
logs (``--keep --log-level DEBUG`` keeps every worker's log in ``<work dir>/worker<N>/``).

The machine's load average is printed before and after: on a shared machine other work
slows the bots, so compare runs made under similar load. At 30 tables of people the people's
own pace bounds the cards per second (some 9-10 a second with one worker or two); on a 2-core
machine a second worker adds processes competing for the same cores, so what it shows there
is the sharing (each worker's share of the updates) rather than more throughput.

People in the Mini App: ``--webapp SHARE`` (0 to 1; one polling worker) has round(4 x
SHARE) people of each table play in the page instead of on their hand message
(``benchmarks/load_webapp.py``: the page's event stream and heartbeat, moves by its API).
The bot's web server runs in every single-worker run, so runs compare like with like. The
turn lag counts only hands that show "👉": a turn in the page is not in it. 10 tables, 60 s:
2.44 rate-limited calls a card with nobody in the page, 1.51 with half, 0.27 with all
(hand edits 2.04, 1.14, 0.00 a card; the rest is the groups' tables).

Options: ``--limits bucket`` (token buckets instead of sliding windows for the overall and
group limits: the shape PTB assumes), ``--think``/``--tap`` (the pace), ``--keep`` (keep the
bot's log and database), ``--json FILE`` (the figures as JSON), ``--help`` for the rest.
The fake shares the harness's loop, so the harness's garbage collector is off until the window
ends (a full collection of the fake's records stalled it 300 ms: the calls it timestamps bunch,
enough for an overall 429); ``--harness-gc`` leaves it on; the report prints the loop's lag.
Notes: a 429 on the overall limit counts as not waited out when any limited call comes
before its ``retry_after`` (a bot that sends in parallel rarely waits it out); the turn lag
counts a turn on another person's hand from the press, on the player's own hand (a trick
won) only from the answer. Only plays inside the window count; posts are for the whole run.
``--seed`` seeds the people only: the bot deals from its own random seed, so two runs differ
by some 10-15 % in cards per second; compare several runs, or long ones.

Everything runs on 127.0.0.1; each wait is bounded; the run stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run as ``python -m benchmarks.NAME`` or ``python benchmarks/NAME.py``: the repository and the
# tests' helpers (the fake Bot API, the e2e driver, throwaway PostgreSQL clusters) import alike.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp
import asyncpg
from e2e.driver import rows as store_rows
from fakebot.limits import TelegramLimits
from fakebot.process import REPO_ROOT, BotProcess, free_port
from fakebot.proxy import RoundRobinProxy
from fakebot.server import FakeTelegram
from pgcluster import PgCluster, find_bindir

from benchmarks.load_people import Pace, Person, TableRun
from benchmarks.load_report import measure, render, summary
from benchmarks.load_webapp import WebPerson

NAMES = ("Anna", "Boris", "Vera", "Gleb")
WEBHOOK_SECRET = "bench-secret"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Load benchmark of the Kozel bot against Telegram's flood limits.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--tables", type=int, default=10, help="groups of four people")
    parser.add_argument("--seconds", type=float, default=90.0, help="measured time")
    parser.add_argument("--bot-dir", type=Path, default=None, help="checkout to run the bot from")
    parser.add_argument("--seed", type=int, default=1, help="seed of the people's choices")
    parser.add_argument("--think", type=float, nargs=2, default=(0.8, 2.0), metavar=("MIN", "MAX"))
    parser.add_argument(
        "--tap",
        type=float,
        nargs=2,
        default=(0.2, 0.5),
        metavar=("MIN", "MAX"),
        help="seconds between the taps of one play",
    )
    parser.add_argument(
        "--fidget",
        type=float,
        default=0.0,
        metavar="RATE",
        help="each person also presses a live button RATE times a second (a greyed card "
        "while waiting, a card in and out of the selection on their turn)",
    )
    parser.add_argument(
        "--limits",
        choices=("window", "bucket"),
        default="window",
        help="shape of the overall and group limits: sliding windows or token buckets",
    )
    parser.add_argument(
        "--warmup-timeout",
        type=float,
        default=None,
        help="give up waiting for all tables after this (default 60 + 10/table)",
    )
    parser.add_argument(
        "--setup-concurrency",
        type=int,
        default=5,
        help="tables opening at the same time during the warm-up",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="bot processes; 2 or more: webhook mode on PostgreSQL behind a round-robin proxy",
    )
    parser.add_argument(
        "--database",
        choices=("sqlite", "postgres"),
        default=None,
        help="the bots' store (default: sqlite for one worker, postgres for more); postgres "
        "runs webhook mode behind the proxy, on a throwaway cluster",
    )
    parser.add_argument(
        "--lease",
        type=float,
        nargs=2,
        default=(30.0, 10.0),
        metavar=("SECONDS", "RENEW"),
        help="the bots' KOZEL_LEASE_SECONDS and KOZEL_LEASE_RENEW (with several workers: how "
        "long a claim on a chat or a timer lasts)",
    )
    parser.add_argument(
        "--webapp",
        type=float,
        default=0.0,
        help="the share of people who play in the Mini App (its page open: stream, heartbeat, "
        "moves by its API) instead of on their hand message; of four at a table, round(4 x "
        "share) do",
    )
    parser.add_argument("--log-level", default="INFO", help="the bot's KOZEL_LOG_LEVEL")
    parser.add_argument(
        "--harness-gc",
        action="store_true",
        help="leave the harness's garbage collector on (as before: its full "
        "collections stall the fake Telegram that shares the harness's loop)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the work dir (log, database)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0:
        parser.error("--tables and --seconds must be positive")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if not 0 <= args.webapp <= 1:
        parser.error("--webapp is a share, 0 to 1")
    if args.webapp and (args.workers > 1 or args.database == "postgres"):
        parser.error("--webapp runs with one polling worker (its page talks to that one)")
    if args.database is None:
        args.database = "postgres" if args.workers > 1 else "sqlite"
    if args.workers > 1 and args.database != "postgres":
        parser.error("--workers 2 or more share one PostgreSQL database: --database postgres")
    if args.bot_dir is not None and not (args.bot_dir / "bot" / "__main__.py").is_file():
        parser.error(f"{args.bot_dir} has no bot/__main__.py")
    return args


def in_page_text(share: float, tables: list[TableRun]) -> str:
    """Who played in the page, and how their API calls went."""
    web = [p for t in tables for p in t.people if isinstance(p, WebPerson)]
    if not web:
        return "nobody (everyone plays on the hand message)"
    plays, errors = sum(p.plays for p in web), sum(p.errors for p in web)
    return (
        f"{len(web)} of {4 * len(tables)} people ({share:.0%} asked): page open, stream and "
        f"heartbeat, moves by POST /api/move; {plays} moves made (whole run), {errors} calls failed"
    )


def describe_checkout(path: Path) -> str:
    def git(*cmd: str) -> str:
        result = subprocess.run(
            ["git", "-C", str(path), *cmd], capture_output=True, text=True, timeout=10
        )
        return result.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "?"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "bot", "kozel_rules")
    return f"{path} @ {commit}{' + uncommitted changes in bot/ or kozel_rules/' if dirty else ''}"


def cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) a running process has used so far (0 if unknown)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1/5/15 min; {os.cpu_count()} CPUs)"


async def run(args: argparse.Namespace, workdir: Path) -> int:
    if args.database == "postgres":
        bindir = find_bindir()
        if bindir is None:
            missing = "PostgreSQL server binaries (initdb, pg_ctl) not found"
            print(f"{missing}: install Debian's postgresql package", file=sys.stderr)
            return 2
        cluster = PgCluster(bindir)
        cluster.start()
        try:
            return await measure_run(args, workdir, await cluster.create_database())
        finally:
            cluster.stop()
    return await measure_run(args, workdir, None)


async def start_workers(
    fake: FakeTelegram,
    args: argparse.Namespace,
    workdir: Path,
    env: dict[str, str],
    bot_dir: Path,
    database_url: str,
) -> tuple[RoundRobinProxy, list[BotProcess]]:
    """``args.workers`` bots in webhook mode on one database, behind a round-robin proxy."""
    ports = [free_port() for _ in range(args.workers)]
    proxy = RoundRobinProxy([f"http://127.0.0.1:{port}" for port in ports])
    await proxy.start()
    bots = []
    for number, port in enumerate(ports, 1):
        worker_env = {
            **env,
            "KOZEL_WEBHOOK_URL": proxy.url + "/telegram/hook",
            "KOZEL_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "KOZEL_LISTEN": f"127.0.0.1:{port}",
        }
        bot = BotProcess(
            fake,
            workdir / f"worker{number}",
            env=worker_env,
            cwd=bot_dir,
            startup_timeout=60,
            database_url=database_url,
        )
        await bot.start(until_polling=False)
        bots.append(bot)
    deadline = time.monotonic() + 60
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as http:
        for bot, target in zip(bots, proxy.targets, strict=True):
            while not await healthy(http, target):
                if not bot.running or time.monotonic() > deadline:
                    await proxy.stop()
                    tail = "\n".join(bot.log_text().splitlines()[-10:])
                    raise RuntimeError(f"worker {target} did not come up:\n{tail}")
                await asyncio.sleep(0.2)
    return proxy, bots


async def healthy(http: aiohttp.ClientSession, base: str) -> bool:
    try:
        async with http.get(base + "/healthz") as answer:
            return answer.status == 200
    except (aiohttp.ClientError, TimeoutError):
        return False


def shares(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    return ", ".join(
        f"worker {n} {c} ({100 * c / total if total else 0:.0f} %)"
        for n, c in enumerate(counts.values(), 1)
    )


async def measure_run(args: argparse.Namespace, workdir: Path, database_url: str | None) -> int:
    limits = TelegramLimits.buckets() if args.limits == "bucket" else TelegramLimits()
    bot_dir = (args.bot_dir or REPO_ROOT).resolve()
    load_before = load_average()
    env = {
        "KOZEL_RATE_LIMIT": "30",
        "KOZEL_GROUP_RATE_LIMIT": "20",
        "KOZEL_TIMEOUT_SCALE": "1000",
        "KOZEL_LOG_LEVEL": args.log_level,
        "KOZEL_LEASE_SECONDS": f"{args.lease[0]:g}",
        "KOZEL_LEASE_RENEW": f"{args.lease[1]:g}",
        "PYTHONPATH": str(bot_dir),
    }
    pace = Pace(
        think=tuple(args.think),  # type: ignore[arg-type]
        tap=tuple(args.tap),  # type: ignore[arg-type]
        fidget=args.fidget,
    )
    stop = asyncio.Event()
    proxy: RoundRobinProxy | None = None
    lags: list[tuple[float, float]] = []
    probe = asyncio.create_task(loop_lag(lags))
    pauses = GcPauses()
    gc.callbacks.append(pauses)
    # The fake shares this process's loop: a full collection of the people's and the fake's
    # records (300 ms at 30 tables, a second after a long warm-up at 60) would stall Telegram
    # itself, bunch the calls it timestamps and delay the answers it logs. Telegram does not
    # pause for our people: no collection until the window ends.
    if not args.harness_gc:
        gc.freeze()
        gc.disable()
    # The Mini App's server, in every run (so that runs with and without people in the page
    # compare like with like).
    web_port = free_port()
    web_base = f"http://127.0.0.1:{web_port}"
    if database_url is None:
        env["KOZEL_PUBLIC_URL"] = web_base
        env["KOZEL_LISTEN"] = f"127.0.0.1:{web_port}"
        env["KOZEL_WEBAPP_NAME"] = "table"
    async with FakeTelegram(limits=limits) as fake:
        if database_url is None:
            bots = [BotProcess(fake, workdir, env=env, cwd=bot_dir, startup_timeout=60)]
            await bots[0].start()
            mode = "polling, SQLite"
        else:
            proxy, bots = await start_workers(fake, args, workdir, env, bot_dir, database_url)
            mode = "webhook behind a round-robin proxy, PostgreSQL"
        db = bots[0].db
        print(
            f"{len(bots)} bot process(es) ({mode}) started from {bot_dir}; "
            f"opening {args.tables} tables ...",
            flush=True,
        )
        tables: list[TableRun] = []
        for index in range(args.tables):
            users = [fake.add_user(name) for name in NAMES]
            group = fake.add_group(f"Kozel club {index + 1}", users, admins=users[:1])
            in_page = round(4 * args.webapp)
            people = [
                (WebPerson if seat < in_page else Person)(
                    fake, user, random.Random(f"{args.seed}:{index}:{seat}"), pace, stop
                )
                for seat, user in enumerate(users)
            ]
            for person in people:
                if isinstance(person, WebPerson):
                    person.base = web_base
            tables.append(TableRun(fake, index + 1, group, people, stop))
        slots = asyncio.Semaphore(args.setup_concurrency)
        runs = [asyncio.create_task(t.run(slots)) for t in tables]
        people = [asyncio.create_task(p.run()) for t in tables for p in t.people]
        fidgets = [asyncio.create_task(p.fidget()) for t in tables for p in t.people]

        warmup = args.warmup_timeout or 60 + 10 * args.tables
        started = time.time()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                asyncio.gather(*(t.started.wait() for t in tables)), timeout=warmup
            )
        playing = sum(t.matches_started > 0 for t in tables)
        print(
            f"warm-up {time.time() - started:.0f} s: {playing} of {args.tables} tables playing; "
            f"measuring {args.seconds:.0f} s ...",
            flush=True,
        )
        taken_before = {t: proxy.ok_posts(t) for t in proxy.targets} if proxy else {}
        cpu_before = resource.getrusage(resource.RUSAGE_SELF)
        bots_cpu_before = [process_cpu(bot.pid) for bot in bots]
        t0 = time.time()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=args.seconds)
        t1 = time.time()
        gc.enable()
        gc.unfreeze()
        cpu_after = resource.getrusage(resource.RUSAGE_SELF)
        bots_cpu = [
            process_cpu(bot.pid) - before for bot, before in zip(bots, bots_cpu_before, strict=True)
        ]
        taken_after = {t: proxy.ok_posts(t) for t in proxy.targets} if proxy else {}
        stop.set()
        load_after = load_average()
        _, pending = await asyncio.wait(runs + people + fidgets, timeout=5)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        # Results owed in the last seconds are still on their way: let them go before the stop.
        settle_until = time.time() + 30
        while (owed := posts_owed(db)) and time.time() < settle_until:
            await asyncio.sleep(0.5)
        codes = [await bot.stop(timeout=20) for bot in bots]
        if proxy is not None:
            await proxy.stop()
        bot_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)

        logs = "\n".join(bot.log_text() for bot in bots)
        probe.cancel()
        gc.callbacks.remove(pauses)
        figures = measure(fake, tables, db, limits, t0, t1, logs, lags)
        figures.bot_cpu = sum(bots_cpu)
        errors = [f"table {t.index}: {t.error}" for t in tables if t.error]
        header = [
            ("bot", describe_checkout(bot_dir)),
            ("workers", f"{len(bots)} ({mode})"),
            ("tables", f"{args.tables} x 4 people, street; seed {args.seed}"),
            (
                "pace",
                f"think {args.think[0]}-{args.think[1]} s, taps {args.tap[0]}-{args.tap[1]} s"
                + (f"; fidget {args.fidget:g} presses/s each" if args.fidget else ""),
            ),
            ("in the Mini App", in_page_text(args.webapp, tables)),
            ("limits", f"overall {limits.overall}; group {limits.group}; private {limits.private}"),
            ("lease", f"KOZEL_LEASE_SECONDS {args.lease[0]:g}, RENEW {args.lease[1]:g}"),
            ("window", f"{t1 - t0:.0f} s after a {t0 - started:.0f} s warm-up"),
            ("load average", f"before {load_before}; after {load_after}"),
            (
                "harness GC",
                f"{'on' if args.harness_gc else 'off'} until the window's end: "
                + pauses.describe(t0, t1),
            ),
            (
                "CPU used",
                f"harness {cpu(cpu_after) - cpu(cpu_before):.0f} s in the window; bots "
                f"{' + '.join(f'{c:.1f}' for c in bots_cpu)} s in the window "
                f"({100 * sum(bots_cpu) / (t1 - t0):.0f} % of a core), {cpu(bot_cpu):.0f} s in all",
            ),
            ("bot exit", f"{codes} (SIGTERM); result posts still owed then: {owed}"),
        ]
        if proxy is not None:
            window = {t: taken_after[t] - taken_before[t] for t in proxy.targets}
            whole = {t: proxy.ok_posts(t) for t in proxy.targets}
            header.append(("updates taken", f"window: {shares(window)}; all: {shares(whole)}"))
        print(render(figures, header))
        if args.json is not None:
            args.json.write_text(json.dumps(summary(figures, header), indent=2) + "\n")
        matches = sum(t.matches_over for t in tables)
        print(f"\n  matches completed by the people: {matches}")
        if errors:
            print("  tables that failed:\n    " + "\n    ".join(errors))
        if fake.internal_errors:
            print(f"  fake server errors: {fake.internal_errors[:5]}")
        for bot in bots:
            tracebacks = bot.log_text().count("Traceback")
            if tracebacks:
                print(f"  the bot logged {tracebacks} tracebacks (see {bot.log_path})")
        return 0 if all(c == 0 for c in codes) and not fake.internal_errors else 1


class GcPauses:
    """The harness's own garbage collections (a long one stalls the fake's loop)."""

    def __init__(self) -> None:
        self.started = 0.0
        self.pauses: list[tuple[float, int, float]] = []  # at, generation, seconds

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        else:
            took = time.perf_counter() - self.started
            self.pauses.append((time.time(), info["generation"], took))

    def describe(self, t0: float, t1: float) -> str:
        inside = [(g, s) for at, g, s in self.pauses if t0 <= at < t1]
        worst = max((s for _, s in inside), default=0.0)
        full = [s for g, s in inside if g == 2]
        return (
            f"{len(inside)} collections in the window, longest {worst * 1000:.0f} ms; "
            f"{len(full)} full ones, {sum(full) * 1000:.0f} ms in all"
        )


async def loop_lag(out: list[tuple[float, float]], every: float = 0.02) -> None:
    """How late this loop wakes a sleeper (epoch time, lateness), until cancelled."""
    while True:
        before = time.perf_counter()
        await asyncio.sleep(every)
        out.append((time.time(), max(0.0, time.perf_counter() - before - every)))


def posts_owed(db: Path | str) -> int:
    """Result posts in the bot's outbox (0 for a bot without one)."""
    sql = "SELECT count(*) FROM outbox WHERE kind = 'post'"
    if isinstance(db, str):  # PostgreSQL
        try:
            return int(str(store_rows(db, sql)[0][0]))
        except (OSError, asyncpg.PostgresError):
            return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            return int(conn.execute(sql).fetchone()[0])
    except sqlite3.Error:
        return 0


def interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM like Ctrl-C: the bots and the cluster are stopped


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, interrupted)
    if args.keep:
        workdir = Path(tempfile.mkdtemp(prefix="kozel-bench-"))
        print(f"work dir (kept): {workdir}")
        return asyncio.run(run(args, workdir))
    with tempfile.TemporaryDirectory(prefix="kozel-bench-") as tmp:
        return asyncio.run(run(args, Path(tmp)))


if __name__ == "__main__":
    sys.exit(main())
