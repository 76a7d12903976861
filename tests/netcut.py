"""A TCP proxy for tests that can be cut like a network partition (packets dropped, not
refused): nothing passes either way while it is cut, and nobody is told.

While cut, bytes sent either way are held (TCP retransmits them once the path is back), a new
connection waits (its SYN is retransmitted until the path is back), and a side that closes its
connection is never heard of by the other (its FIN and RST are lost): the other side's socket
stays open, as a PostgreSQL session does whose client gave up during a partition. ``heal``
lets everything held through but what a side that closed meanwhile had sent.
"""

from __future__ import annotations

import asyncio
import contextlib


class NetCut:
    """In front of ``unix_path`` (a server's socket file), on a local TCP port."""

    def __init__(self, unix_path: str) -> None:
        self.unix_path = unix_path
        self.listen_port = 0
        self._open = asyncio.Event()
        self._open.set()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._orphans: list[asyncio.StreamWriter] = []  # never closed: their FIN was lost

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.listen_port = int(self._server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for writer in self._orphans:
            writer.close()

    def cut(self) -> None:
        self._open.clear()

    def heal(self) -> None:
        self._open.set()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._open.wait()
            try:
                up_reader, up_writer = await asyncio.open_unix_connection(self.unix_path)
            except OSError:
                writer.close()
                return
            await asyncio.gather(
                self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
            )
        finally:
            self._tasks.discard(task)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        """Forward ``source`` to ``sink``. Read at once (so that a close is seen when it comes),
        passed on only while the path is open; a side that closed during a cut loses what it
        sent meanwhile, and its close, as its RST would be."""
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        closed_in_cut = False

        async def read() -> None:
            nonlocal closed_in_cut
            while True:
                try:
                    data = await source.read(65536)
                except (ConnectionError, OSError):
                    data = b""
                if not data:
                    closed_in_cut = not self._open.is_set()
                queue.put_nowait(data)
                if not data:
                    return

        reading = asyncio.create_task(read())
        try:
            while True:
                data = await queue.get()
                await self._open.wait()
                if closed_in_cut:
                    self._orphans.append(sink)  # the other side never hears of it
                    return
                if not data:
                    with contextlib.suppress(Exception):
                        sink.close()
                    return
                try:
                    sink.write(data)
                    await sink.drain()
                except (ConnectionError, OSError):
                    return
        finally:
            reading.cancel()
