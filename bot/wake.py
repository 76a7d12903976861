"""Waiting for an event with a timeout, in a task that may be cancelled at any moment.

Python 3.11's ``asyncio.wait_for`` loses a cancellation that arrives as the awaited thing
finishes: the task goes on running, and whoever waits for it to stop (a worker's shutdown)
waits for ever. ``asyncio.timeout`` does not, so the bot uses it (and never ``wait_for``).
"""

from __future__ import annotations

import asyncio


async def woken(event: asyncio.Event, seconds: float) -> bool:
    """Whether ``event`` was set within ``seconds`` (at least a millisecond)."""
    try:
        async with asyncio.timeout(max(seconds, 0.001)):
            await event.wait()
    except TimeoutError:
        return False
    return True
