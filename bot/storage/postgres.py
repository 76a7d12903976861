"""``Storage`` on PostgreSQL: an asyncpg pool (see ``pg_db``) shared by the repositories, a
connection of its own that listens for table changes, and the one-bot lock (``locks``)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable

import asyncpg

from bot.storage.conn import Clock
from bot.storage.locks import PgProcessLock
from bot.storage.parts import Repositories
from bot.storage.pg_db import PgDatabase, is_unavailable
from bot.wake import woken

CHANNEL = "kozel_tables"  # see ``pg_conn.POSTGRES.notify_table``
LISTENER_NAME = "kozel-listen"  # the listening session in pg_stat_activity
LISTEN_CHECK = 5.0  # seconds between looks at the listening connection (a vanished server is
# not always told: a half-open connection says nothing)
FIRST_PAUSE, LONGEST_PAUSE = 0.25, 5.0  # seconds between tries to listen again

log = logging.getLogger("bot.storage")


class PostgresStorage(Repositories):
    """``Storage`` in a PostgreSQL database. Create it with ``await PostgresStorage.open(url)``."""

    def __init__(self, db: PgDatabase) -> None:
        # Other workers change users too (a language, a blocked bot): seen within seconds.
        super().__init__(db, user_cache=5.0)
        self._pg = db
        self._url = db.url
        self._listening = False

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        clock: Clock | None = None,
        local_clock: Clock = time.time,
        max_connections: int = 8,
        migrate: bool = True,
    ) -> PostgresStorage:
        """Connect to ``url`` (``postgresql://user@host/db``) and bring the schema up to date.
        Times are the server's (``local_clock`` corrected by it), unless ``clock`` is given."""
        db = await PgDatabase.open(
            url, clock=clock, local_clock=local_clock, max_size=max_connections, migrate=migrate
        )
        return cls(db)

    async def migrate(self) -> list[int]:
        """Bring the schema up to date, if ``open`` was told not to; the versions applied."""
        return await self._pg.migrate()

    @property
    def url(self) -> str:
        return self._url

    def process_lock(self) -> PgProcessLock:
        return PgProcessLock(self._url, self._pg.availability)

    @property
    def listening(self) -> bool:
        return self._listening

    async def listen(self, on_change: Callable[[int | None], None]) -> None:
        """Listen on a connection of its own (a pooled one would be handed to others), and
        again whenever it is lost (a restart, ``pg_terminate_backend``): then ``on_change(None)``
        says that changes may have been missed meanwhile."""

        def heard(_conn: object, _pid: int, _channel: str, payload: object) -> None:
            if isinstance(payload, str) and payload.isdigit():
                on_change(int(payload))

        availability = self._pg.availability
        pause, gap, cut = FIRST_PAUSE, False, None
        while True:
            began = availability.begin()
            try:
                conn = await asyncpg.connect(
                    self._url, server_settings={"application_name": LISTENER_NAME}
                )
            except Exception as exc:
                if not is_unavailable(exc):
                    raise
                availability.failed(began, exc)
                await asyncio.sleep(pause)
                pause, gap = min(pause * 2, LONGEST_PAUSE), True
                continue
            availability.answered(began)
            lost = asyncio.Event()
            try:
                conn.add_termination_listener(functools.partial(_set, lost))
                await conn.add_listener(CHANNEL, heard)
                self._listening, pause = True, FIRST_PAUSE
                if cut is not None and cut == availability.outages:
                    # Only this connection was cut (the database stayed): said here; an
                    # outage of the database is said once, by the store.
                    log.warning("the connection that hears table changes was cut; listening again")
                cut = None
                if gap:
                    on_change(None)
                await _until_lost(conn, lost)
            except Exception as exc:
                if not is_unavailable(exc):
                    raise
            finally:
                self._listening = False
                with contextlib.suppress(Exception):
                    conn.terminate()
            gap, cut = True, availability.outages


def _set(event: asyncio.Event, _conn: object) -> None:
    event.set()


async def _until_lost(conn: asyncpg.Connection, lost: asyncio.Event) -> None:
    while not lost.is_set():
        await woken(lost, LISTEN_CHECK)
        if not lost.is_set():
            async with asyncio.timeout(LISTEN_CHECK):
                await conn.fetchval("SELECT 1")
