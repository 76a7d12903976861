"""The bot as a whole, as its operator sees it: ``GET /metrics`` and the owner's ``/status``
read the same figures (the database's facts, asked at that moment, and this process's own)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .. import metrics
from ..render.status import status_screen
from ..storage import StorageUnavailable
from ..storage.facts import Snapshot
from .core import Core
from .ports import ChatInfo, Person
from .reply import Reply
from .translators import translator_for

ASK_FOR = 3.0  # seconds the database has to answer (a scrape must not hang)
HOUR = 3600.0


@dataclass(frozen=True)
class Process:
    """What the adapter knows of the running process: live workers on the database (polling:
    this one), and the background loops that are down."""

    workers: Callable[[], Awaitable[int]]
    down: Callable[[], list[str]]


@dataclass(frozen=True)
class Status:
    facts: Snapshot | None  # None: the database did not answer
    workers: int | None
    down: list[str]
    streams: int
    flood_answers: int  # Telegram's 429s in the last hour (this process)


async def status(core: Core, process: Process, *, matches_since: float | None = None) -> Status:
    facts: Snapshot | None = None
    workers: int | None = None
    try:
        async with asyncio.timeout(ASK_FOR):
            facts = await core.storage.facts.snapshot(matches_since=matches_since)
            workers = await process.workers()
    except (TimeoutError, StorageUnavailable):
        pass
    return Status(
        facts=facts,
        workers=workers,
        down=process.down(),
        streams=core.live.tracked(),
        flood_answers=metrics.FLOOD_ANSWERS.since(time.time() - HOUR),
    )


async def owner_status(core: Core, process: Process, chat: ChatInfo, person: Person) -> Reply:
    """``/status``, for the bot's owner in their private chat; to anybody else, or anywhere
    else, nothing at all (as for a command the bot does not know)."""
    owner = core.settings.owner_id
    if not owner or person.user_id != owner or not chat.is_private:
        return Reply()
    t = await translator_for(core, chat, person)
    now = time.time()
    midnight = now - now % 86400  # UTC
    figures = await status(core, process, matches_since=midnight)
    oldest = figures.facts.oldest_owed if figures.facts else None
    screen = status_screen(
        t,
        figures.facts,
        workers=figures.workers,
        down=figures.down,
        flood_answers=figures.flood_answers,
        streams=figures.streams,
        oldest_wait=0.0 if oldest is None else max(0.0, now - oldest),
    )
    return Reply(screen=screen)


def set_gauges(now: Status) -> None:
    """The scrape-time families of ``/metrics`` (the counters count themselves)."""
    metrics.MINI_APP_STREAMS.set(now.streams)
    metrics.TASKS_DOWN.set(len(now.down))
    metrics.DATABASE_UP.set(0 if now.facts is None else 1)
    if now.workers is not None:
        metrics.WORKERS.set(now.workers)
    if now.facts is None:
        return
    for status_name, count in now.facts.tables.items():
        metrics.TABLES.labels(status_name).set(count)
    metrics.PLAYERS.set(now.facts.players)
    metrics.OUTBOX_DEPTH.set(now.facts.outbox)
    oldest = now.facts.oldest_owed
    metrics.OUTBOX_AGE.set(0.0 if oldest is None else max(0.0, time.time() - oldest))
