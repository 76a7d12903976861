"""Shared pytest configuration: the fake Telegram fixtures for end-to-end tests, and the stores
(SQLite and PostgreSQL) the storage tests run against."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest

# The service tests' doubles (tests/bot/service_fakes.py) serve tests/web too.
sys.path.insert(0, str(Path(__file__).resolve().parent / "bot"))

from fakebot.fixtures import (
    bot_database,
    bot_process,
    fake_telegram,
    pytest_runtest_makereport,
)
from pgcluster import PgCluster, find_bindir, required
from service_fakes import core, messenger, storage
from storage_targets import BACKENDS, Target

# Bytecode caches (gitignored), whatever the machine says: with PYTHONDONTWRITEBYTECODE set (as
# on this project's machines) each of the suite's ~160 bot processes compiled the bot again,
# and each xdist worker rewrote every test module's asserts again. Set before the workers and
# the bots start, it holds for them too.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

__all__ = [
    "bot_database",
    "bot_process",
    "core",
    "fake_telegram",
    "messenger",
    "pytest_runtest_makereport",
    "storage",
]

MakeTarget = Callable[[], Awaitable[Target]]


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``-n``, as the README runs the suite), hand out tests one at a time
    as workers free up, instead of in large batches: the end-to-end tests take from a second to
    a minute each, and a batch of long ones queued behind one worker would leave the others
    idle at the end."""
    if getattr(config.option, "numprocesses", None) and config.option.maxschedchunk is None:
        config.option.maxschedchunk = 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist, the long tests go first and the quick ones fill in after them, so that no
    long test starts last. The order is the same in every worker, as xdist requires."""
    if getattr(config.option, "numprocesses", None) or os.environ.get("PYTEST_XDIST_WORKER"):
        items[:] = long_first(items)


# What a test takes, for the order only: an end-to-end test a few seconds, another a moment;
# a ``waits`` test says how long it mostly waits.
E2E_SECONDS = 5.0
QUICK_SECONDS = 0.2


def long_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The end-to-end tests, then the quick ones, with the ``waits`` tests (longest first)
    spread among them in proportion to time: one worker of four waits at a time, while three
    keep the two cores busy. In file order the waiting tests came in runs (outages, timers,
    back-off), four workers waited at once and the cores idled for a fifth of the run."""
    waiting = sorted((item for item in items if _waits(item)), key=lambda item: -_waits(item))
    e2e = [item for item in items if item.get_closest_marker("e2e") and not _waits(item)]
    quick = [item for item in items if not item.get_closest_marker("e2e") and not _waits(item)]
    others = [(item, E2E_SECONDS) for item in e2e] + [(item, QUICK_SECONDS) for item in quick]
    waited_in_all = sum(_waits(item) for item in waiting)
    other_in_all = sum(seconds for _, seconds in others)
    ordered: list[pytest.Item] = []
    waited = other = 0.0
    for item, seconds in others:
        while waiting and waited * other_in_all <= other * waited_in_all:
            waited += _waits(waiting[0])
            ordered.append(waiting.pop(0))
        ordered.append(item)
        other += seconds
    return ordered + waiting


def _waits(item: pytest.Item) -> float:
    """The seconds a test mostly waits (``@pytest.mark.waits(seconds)``), else 0."""
    marker = item.get_closest_marker("waits")
    return float(marker.args[0]) if marker is not None else 0.0


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """One throwaway PostgreSQL cluster for the whole run (see ``pgcluster``)."""
    bindir = find_bindir()
    if bindir is None:
        reason = (
            "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found: install Debian's "
            "postgresql package, or set KOZEL_PG_BINDIR, to run the PostgreSQL tests"
        )
        if required():
            pytest.fail(f"{reason} (CI requires them: KOZEL_REQUIRE_POSTGRES=1)")
        pytest.skip(reason)
    cluster = PgCluster(bindir)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
async def pg_url(pg_cluster: PgCluster) -> AsyncIterator[str]:
    """A fresh PostgreSQL database holding the schema, dropped afterwards."""
    url = await pg_cluster.create_database()
    yield url
    await pg_cluster.drop_database(url)


@pytest.fixture(params=BACKENDS)
async def make_target(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MakeTarget]:
    """Makes fresh stores of one backend (each test runs once per backend)."""
    backend: str = request.param
    numbers = itertools.count(1)
    made: list[str] = []
    cluster: PgCluster | None = None
    if backend == "postgres":
        cluster = request.getfixturevalue("pg_cluster")

    async def make() -> Target:
        if cluster is None:
            return Target(backend, str(tmp_path / f"kozel{next(numbers)}.sqlite3"))
        made.append(await cluster.create_database())
        return Target(backend, made[-1])

    yield make
    if cluster is not None:
        for url in made:
            await cluster.drop_database(url)


@pytest.fixture
async def target(make_target: MakeTarget) -> Target:
    """A fresh, empty store (opening it applies the migrations), once per backend."""
    return await make_target()
