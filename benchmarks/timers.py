"""Benchmark: what a turn timer costs with many timers stored (run by hand).

    .venv/bin/python benchmarks/timers.py [--postgres]

Every move stores its table's next timers in the move's own transaction (``tables.save(...,
timers=...)``), and a worker claims each due timer and finishes it. Prints, with 10, 1,000 and
10,000 tables' timers stored, the microseconds per re-arm (a save of one table with its
timers) and per run timer (claim + done), on SQLite (a temporary file) or, with
``--postgres``, on a throwaway PostgreSQL cluster (``tests/pgcluster.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

# Run as ``python -m benchmarks.NAME`` or ``python benchmarks/NAME.py``: the repository and the
# tests' helpers (the fake Bot API, the e2e driver, throwaway PostgreSQL clusters) import alike.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.storage import SeatRecord, Storage, TableRecord, TableStatus, Timer, open_storage

REARMS = 300


def table(chat_id: int) -> TableRecord:
    seat = SeatRecord(seat=0, user_id=None, name="cpu", ai_level="random")
    return TableRecord(
        id=0,
        chat_id=chat_id,
        status=TableStatus.PLAYING,
        variant="street",
        creator_id=1,
        seed=1,
        seats=[seat],
    )


def waits(ply: int, due_at: float) -> list[Timer]:
    return [Timer("ai", "ai", ply, due_at), Timer("expire", "expire", 0, due_at + 86400)]


async def costs(store: Storage, pending: int) -> tuple[float, float]:
    later = time.time() + 3600
    ids = []
    for n in range(pending):
        created = await store.tables.create(table(-1_000_000 - n), timers=waits(0, later))
        ids.append(created.id)
    records = [await store.tables.get(i) for i in ids[:REARMS]]
    started = time.perf_counter()
    for move, record in enumerate(records):
        assert record is not None
        await store.tables.save(
            record, expected_version=record.version, timers=waits(move, time.time() - 1)
        )
    rearm = (time.perf_counter() - started) / len(records)
    started = time.perf_counter()
    ran = 0
    while ran < len(records):
        for timer in await store.timers.claim("bench", 30, limit=1):
            await store.timers.done(timer, "bench")
            ran += 1
    run = (time.perf_counter() - started) / len(records)
    return rearm, run


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    cluster = None
    if args.postgres:
        from pgcluster import PgCluster, find_bindir

        bindir = find_bindir()
        if bindir is None:
            raise SystemExit("PostgreSQL server binaries not found (Debian's postgresql)")
        cluster = PgCluster(bindir)
        cluster.start()
    try:
        for pending in (10, 1000, 10000):
            with tempfile.TemporaryDirectory() as tmp:
                if cluster is not None:
                    target = await cluster.create_database()
                else:
                    target = str(Path(tmp) / "bench.sqlite3")
                store = await open_storage(target)
                try:
                    rearm, run = await costs(store, pending)
                finally:
                    await store.close()
            print(
                f"{pending:>6} tables' timers stored: {rearm * 1e6:8.0f} µs per re-arm (save), "
                f"{run * 1e6:8.0f} µs per timer run (claim + done)"
            )
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    asyncio.run(main())
