"""The tests' reads of a bot's PostgreSQL database, over one kept connection per database.

A test polls the bot's store many times a second (has the match moved on?). A connection a
read made PostgreSQL start a backend each time: the cup's three matches cost 25-37 CPU
seconds that way, 14-18 with the connection kept. One background event loop keeps a
connection per database; one that broke (the server restarted, the database was dropped) is
replaced once, so a read fails only when a fresh connection would."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import asyncpg

from bot.storage.pg_conn import numbered

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_connections: dict[str, asyncpg.Connection] = {}


def _background_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="pgread", daemon=True).start()
        return _loop


def fetch(
    url: str, sql: str, params: Sequence[object] = (), timeout: float = 60.0
) -> list[tuple[object, ...]]:
    """Rows of ``sql`` (with ``?`` marks) from the database at ``url``."""
    future = asyncio.run_coroutine_threadsafe(_fetch(url, sql, tuple(params)), _background_loop())
    return future.result(timeout)


async def _fetch(url: str, sql: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
    kept = _connections.pop(url, None)
    if kept is not None and not kept.is_closed():
        try:
            found = await kept.fetch(numbered(sql), *params)
        except (
            OSError,
            asyncpg.PostgresConnectionError,
            asyncpg.InterfaceError,
            asyncpg.exceptions.OperatorInterventionError,
        ):
            kept.terminate()  # broken: read again over a fresh connection
        except BaseException:
            _keep(url, kept)  # a wrong statement, say: the connection is still good
            raise
        else:
            _keep(url, kept)
            return [tuple(row) for row in found]
    _forget_closed()
    conn = await asyncpg.connect(url)
    try:
        found = await conn.fetch(numbered(sql), *params)
    except BaseException:
        conn.terminate()
        raise
    _keep(url, conn)
    return [tuple(row) for row in found]


def _keep(url: str, conn: asyncpg.Connection) -> None:
    """Keep ``conn`` for ``url``: one connection a database (a spare one is closed)."""
    spare = _connections.pop(url, None)
    if spare is not None:
        spare.terminate()
    _connections[url] = conn


def _forget_closed() -> None:
    for url in [url for url, conn in _connections.items() if conn.is_closed()]:
        del _connections[url]
