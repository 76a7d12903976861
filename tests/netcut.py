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
from collections.abc import Awaitable, Callable

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class NetCut:
    """In front of a server (``unix``: its socket file; ``tcp``: host and port), on a local
    TCP port. Besides ``cut``: ``refuse`` (every connection closed, new ones refused, as a
    firewall's reject or a stopped service) and ``accept``."""

    def __init__(self, connect: Callable[[], Awaitable[Streams]]) -> None:
        self._connect = connect
        self.listen_port = 0
        self._open = asyncio.Event()
        self._open.set()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._orphans: list[asyncio.StreamWriter] = []  # never closed: their FIN was lost

    @classmethod
    def unix(cls, path: str) -> NetCut:
        return cls(lambda: asyncio.open_unix_connection(path))

    @classmethod
    def tcp(cls, host: str, port: int) -> NetCut:
        return cls(lambda: asyncio.open_connection(host, port))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listen_port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(
            self._connection, "127.0.0.1", self.listen_port, reuse_address=True
        )
        self.listen_port = int(self._server.sockets[0].getsockname()[1])

    async def refuse(self) -> None:
        """Close every connection and refuse new ones (until ``accept``)."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        await asyncio.sleep(0)

    async def accept(self) -> None:
        await self.start()

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
                up_reader, up_writer = await self._connect()
            except OSError:
                writer.close()
                return
            try:
                await asyncio.gather(
                    self._pipe(reader, up_writer),
                    self._pipe(up_reader, writer),
                    return_exceptions=True,
                )
            finally:
                up_writer.close()
        finally:
            writer.close()
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
