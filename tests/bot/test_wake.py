"""A task waiting for an event with a timeout stops when it is cancelled, even when the event
is set at that very moment: a worker's shutdown waits for its tasks, and one that swallowed
the cancellation (Python 3.11's ``asyncio.wait_for`` does) kept a stopping worker alive for
ever, busy delivering."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bot.wake import woken

BOT = Path(__file__).resolve().parents[2] / "bot"


async def waits_forever(event: asyncio.Event) -> None:
    while True:
        await woken(event, 10)
        event.clear()


@pytest.mark.parametrize("steps", range(6))
async def test_a_cancel_as_the_event_is_set_stops_the_task(steps: int) -> None:
    event = asyncio.Event()
    task = asyncio.create_task(waits_forever(event))
    for _ in range(3):
        await asyncio.sleep(0)
    event.set()
    for _ in range(steps):
        await asyncio.sleep(0)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=1)
    assert done == {task} and task.cancelled()


async def test_woken_says_whether_the_event_came() -> None:
    event = asyncio.Event()
    assert not await woken(event, 0.01)
    asyncio.get_running_loop().call_later(0.01, event.set)
    assert await woken(event, 5)


def test_the_bot_never_uses_wait_for() -> None:
    used = [
        f"{path.relative_to(BOT.parent)}:{n}"
        for path in BOT.rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\basyncio\.wait_for\(", line)
    ]
    assert used == [], "use asyncio.timeout (bot/wake.py says why)"
