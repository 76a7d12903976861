"""Startup benchmark: the CPU of starting the real bot until it polls, and of stopping it.

Run by hand (it is not a test)::

    .venv/bin/python -m benchmarks.startup [--runs 10] [--bot-dir DIR]

Starts the fake Bot API (``tests/fakebot``), then the bot (``python -m bot`` on a fresh SQLite
file) ``--runs`` times, and once more first, left out: spawned, waited for until its first
getUpdates, stopped with SIGTERM. Prints the median and the highest CPU seconds (user +
system: from ``/proc/<pid>/stat`` once it polls, and the reaped process's usage after the stop)
of the start and of the stop, and the wall time of the stop. The end-to-end tests start a bot
about 160 times, so a start is part of every one of them. ``--bot-dir DIR`` measures another
checkout (e.g. ``git worktree add /tmp/before <commit>``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

# tests' helpers (the fake Bot API, the bot process) import alike.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fakebot.process import REPO_ROOT, BotProcess
from fakebot.server import FakeTelegram

TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """User + system seconds of a running process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def measure(runs: int, bot_dir: Path) -> list[tuple[float, float, float]]:
    """(start CPU, stop CPU, stop wall) of each run after a first one that is left out (it
    may write the checkout's bytecode caches)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as in production: caches are written
    fake = FakeTelegram()
    await fake.start()
    found = []
    try:
        with tempfile.TemporaryDirectory(prefix="kozel-startup-") as folder:
            for run in range(runs + 1):
                bot = BotProcess(fake, Path(folder) / str(run), cwd=bot_dir)
                before = children_cpu()
                await bot.start()
                assert bot.pid is not None
                started = process_cpu(bot.pid)
                began = time.monotonic()
                await bot.stop()
                stop_wall = time.monotonic() - began
                found.append((started, children_cpu() - before - started, stop_wall))
    finally:
        await fake.stop()
    return found[1:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--bot-dir", type=Path, default=REPO_ROOT, help="the checkout to run")
    args = parser.parse_args()
    found = asyncio.run(measure(args.runs, args.bot_dir.resolve()))
    for name, values in zip(
        ("start CPU s", "stop CPU s", "stop wall s"), zip(*found, strict=True), strict=True
    ):
        print(f"{name:12} median {statistics.median(values):.3f}  max {max(values):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
