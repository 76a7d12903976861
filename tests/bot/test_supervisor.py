"""The background loops' keeper: a loop that fails is said once and started again (down
meanwhile, which /healthz reports); one that waits for the database says nothing itself."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.service import supervisor as supervisor_module
from bot.service.supervisor import Supervisor
from bot.storage import StorageUnavailable


async def test_a_failed_loop_is_started_again_and_down_until_then(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(supervisor_module, "FIRST_PAUSE", 0.2)
    runs: list[int] = []
    running = asyncio.Event()

    async def sender() -> None:
        runs.append(len(runs))
        if len(runs) == 1:
            raise RuntimeError("a bug in the first step")
        running.set()
        await asyncio.Event().wait()

    keeper = Supervisor()
    with caplog.at_level(logging.INFO, logger="bot.service.supervisor"):
        keeper.start("outbox sender", sender)
        await asyncio.sleep(0.05)
        assert keeper.down() == ["outbox sender"]  # failed, waiting to start again
        await asyncio.wait_for(running.wait(), 2)
        assert keeper.down() == [] and runs == [0, 1]
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(failures) == 1 and failures[0].exc_info is not None
    await keeper.stop("outbox sender")
    assert keeper.tasks == []


async def test_a_loop_waiting_for_the_database_says_nothing_and_retries_soon(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(supervisor_module, "FIRST_PAUSE", 0.05)
    tries = 0

    async def timers() -> None:
        nonlocal tries
        tries += 1
        raise StorageUnavailable("the database is restarting")

    keeper = Supervisor()
    with caplog.at_level(logging.DEBUG, logger="bot.service.supervisor"):
        keeper.start("timers", timers)
        await asyncio.sleep(1.5)
        await keeper.stop("timers")
    assert tries >= 3  # pauses stay short (at most DATABASE_PAUSE): it may be back any moment
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
