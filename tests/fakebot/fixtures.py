"""Pytest fixtures for the fake Telegram server and the bot process.

``tests/conftest.py`` imports these names (the fixtures and the report hook) so that any
test can ask for ``fake_telegram`` and ``bot_process``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import pytest

from .process import BotProcess
from .server import TEST_TOKEN, FakeTelegram

__all__ = [
    "BotProcessFactory",
    "bot_database",
    "bot_process",
    "fake_telegram",
    "pytest_runtest_makereport",
]

_SERVER_KEY = pytest.StashKey[FakeTelegram]()
_PROCESSES_KEY = pytest.StashKey[list[BotProcess]]()


class BotProcessFactory(Protocol):
    def __call__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        token: str = TEST_TOKEN,
        name: str = "bot",
        command: Sequence[str] | None = None,
    ) -> BotProcess: ...


@pytest.fixture
async def fake_telegram(request: pytest.FixtureRequest) -> AsyncIterator[FakeTelegram]:
    """A started FakeTelegram on 127.0.0.1; stopped at teardown."""
    server = FakeTelegram()
    await server.start()
    request.node.stash[_SERVER_KEY] = server
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
def bot_database(request: pytest.FixtureRequest) -> str:
    """The bot's backend: "sqlite" unless a test parametrizes it (indirectly) with
    "postgres", as the storage-heavy end-to-end tests do."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
async def bot_process(
    fake_telegram: FakeTelegram, tmp_path: Path, request: pytest.FixtureRequest, bot_database: str
) -> AsyncIterator[BotProcessFactory]:
    """Factory of (not yet started) bot processes talking to ``fake_telegram``; every
    process is stopped at teardown and its log is attached to a failing test's report.
    On PostgreSQL, the processes of one test share one fresh database."""
    created: list[BotProcess] = []
    request.node.stash[_PROCESSES_KEY] = created
    cluster = None
    database_url = None
    if bot_database == "postgres":
        cluster = request.getfixturevalue("pg_cluster")
        database_url = await cluster.create_database()

    def factory(
        *,
        env: Mapping[str, str] | None = None,
        token: str = TEST_TOKEN,
        name: str = "bot",
        command: Sequence[str] | None = None,
    ) -> BotProcess:
        process = BotProcess(
            fake_telegram,
            tmp_path / name,
            token=token,
            env=env,
            command=command,
            database_url=database_url,
        )
        created.append(process)
        return process

    try:
        yield factory
    finally:
        for process in created:
            await process.aclose()
        if cluster is not None and database_url is not None:
            await cluster.drop_database(database_url)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """On a failure, append the bot logs and the fake server's recent calls to the report."""
    report = yield
    if report.failed and report.when in ("setup", "call"):
        server = item.stash.get(_SERVER_KEY, None)
        if server is not None:
            report.sections.append(("fake Telegram", server.describe_recent_calls(40)))
        for process in item.stash.get(_PROCESSES_KEY, []):
            report.sections.append((f"bot log {process.log_path}", process.log_text()))
    return report
