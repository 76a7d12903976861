"""PTB's HTTP client for the Bot API, as the bot uses it: a read timeout long enough for
Telegram's slow answers, and every answer (or its absence) told to whoever watches whether
Telegram can be reached (``service.reach``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from telegram.error import NetworkError
from telegram.request import BaseRequest, HTTPXRequest, RequestData

# Telegram carries out a call it answers late (a busy moment, a slow link): a bot that gives up
# first and tries again posts the same message twice. Its slowest answers take well under this.
READ_TIMEOUT = 30.0
CONNECT_TIMEOUT = 10.0
WRITE_TIMEOUT = 10.0
POOL_TIMEOUT = 5.0


class WatchedRequest(HTTPXRequest):
    """``on_answer()`` after every answer Telegram gave (an error too: it answered),
    ``on_failure()`` after a call it did not answer (no connection, a timeout, a 5xx)."""

    def __init__(self, *, connection_pool_size: int, read_timeout: float = READ_TIMEOUT) -> None:
        super().__init__(
            connection_pool_size=connection_pool_size,
            read_timeout=read_timeout,
            write_timeout=WRITE_TIMEOUT,
            connect_timeout=CONNECT_TIMEOUT,
            pool_timeout=POOL_TIMEOUT,
        )
        self.on_answer: Callable[[], None] = _nothing
        self.on_failure: Callable[[], None] = _nothing

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        try:
            code, payload = await super().do_request(
                url,
                method,
                request_data,
                read_timeout=read_timeout,
                write_timeout=write_timeout,
                connect_timeout=connect_timeout,
                pool_timeout=pool_timeout,
            )
        except NetworkError as err:  # TimedOut too
            if not isinstance(err.__cause__, httpx.PoolTimeout):  # our own pool, not Telegram
                self.on_failure()
            raise
        if code >= 500:
            self.on_failure()
        else:
            self.on_answer()
        return code, payload


def _nothing() -> None:
    """Nobody watches yet."""
