"""Run a use case again when another worker changed its table first.

Every save of a table checks the version it read (``StaleVersionError`` otherwise, and nothing
is written). In one process the table's lock keeps that from happening; with several workers
on one database it does happen, and the loser simply starts over from the newer state: its
press is judged again (it may now be out of date), its timer finds the table moved on.
Nothing was told before the failed save, so nothing is told twice.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from ..storage import StaleVersionError, StorageUnavailable

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

ATTEMPTS = 5


def retry_stale(case: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    @functools.wraps(case)
    async def run(*args: P.args, **kwargs: P.kwargs) -> T:
        for attempt in range(1, ATTEMPTS):
            try:
                return await case(*args, **kwargs)
            except StaleVersionError as err:
                log.info("%s: %s; starting over (%d)", case.__qualname__, err, attempt)
                # A short random pause: two workers racing again at once would collide again.
                await asyncio.sleep(random.uniform(0.0, 0.01 * attempt))
        return await case(*args, **kwargs)

    return run


OUTAGE_PAUSE = 0.25  # seconds between tries while the database is away
OUTAGE_LONGEST = 300.0  # seconds to keep trying before giving up


async def until_stored(step: Callable[[], Awaitable[T]], *, within: float = OUTAGE_LONGEST) -> T:
    """Run ``step`` (a database write that books something already done, such as a message
    Telegram took) until the database takes it: a post that was sent must be marked sent, or
    it would be sent again. Tried again every moment while the database is away, for at most
    ``within`` seconds (then ``StorageUnavailable`` is raised)."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + within
    while True:
        try:
            return await step()
        except StorageUnavailable:
            if loop.time() >= give_up:
                raise
        await asyncio.sleep(OUTAGE_PAUSE)
