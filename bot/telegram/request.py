"""The bot's HTTP client for the Bot API, under PTB's ``BaseRequest``: aiohttp's client (a
call costs a seventh of the CPU of PTB's default, httpx, and on a busy evening every press
costs a call: its answer), a read timeout long enough for Telegram's slow answers, and every
answer (or its absence) told to whoever watches whether Telegram can be reached
(``service.reach``)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from ..metrics import FLOOD_ANSWERS, TELEGRAM_CALLS

# Telegram carries out a call it answers late (a busy moment, a slow link): a bot that gives up
# first and tries again posts the same message twice. Its slowest answers take well under this.
READ_TIMEOUT = 30.0
CONNECT_TIMEOUT = 10.0
WRITE_TIMEOUT = 10.0  # aiohttp has no write timeout of its own: a part of the total

log = logging.getLogger(__name__)
_TOKEN_IN_URL = re.compile(r"/(?:file/)?bot[^/\s'\"]+/")


class WatchedRequest(BaseRequest):
    """``on_answer()`` after every answer Telegram gave (an error too: it answered),
    ``on_failure()`` after a call it did not answer (no connection, a timeout, a 5xx)."""

    def __init__(self, *, connection_pool_size: int, read_timeout: float = READ_TIMEOUT) -> None:
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._session: aiohttp.ClientSession | None = None
        self.on_answer: Callable[[], None] = _nothing
        self.on_failure: Callable[[], None] = _nothing

    @property
    def read_timeout(self) -> float:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self._pool_size)
            self._session = aiohttp.ClientSession(
                connector=connector, headers={"User-Agent": self.USER_AGENT}
            )

    async def shutdown(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

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
            code, payload = await self._call(
                url, method, request_data, read_timeout, write_timeout, connect_timeout
            )
        except NetworkError as err:  # TimedOut too
            self.on_failure()
            TELEGRAM_CALLS.labels(
                _method(url), "timeout" if isinstance(err, TimedOut) else "network"
            ).inc()
            raise
        # Every call, at DEBUG (``bot.logs`` masks the token in the URL).
        log.debug("HTTP Request: %s %s %s", method, url, code)
        if 300 <= code < 400:  # not Telegram (a proxy, a wrong URL): no answer to the call
            self.on_failure()
            TELEGRAM_CALLS.labels(_method(url), "network").inc()
            raise NetworkError(f"redirected ({code}): not Telegram's Bot API")
        outcome = _outcome(code)
        TELEGRAM_CALLS.labels(_method(url), outcome).inc()
        if outcome == "429":
            FLOOD_ANSWERS.add()
        if code >= 500:
            self.on_failure()
        else:
            self.on_answer()
        return code, payload

    async def _call(
        self,
        url: str,
        method: str,
        request_data: RequestData | None,
        read_timeout: Any,
        write_timeout: Any,
        connect_timeout: Any,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("the request is not initialized")
        read = _given(read_timeout, self._read_timeout)
        connect = _given(connect_timeout, CONNECT_TIMEOUT)
        write = _given(write_timeout, WRITE_TIMEOUT)
        total = None if read is None or write is None else read + write + (connect or 0.0)
        timeout = aiohttp.ClientTimeout(total=total, connect=connect, sock_read=read)
        try:
            # No redirect is followed: the URL carries the token, and Telegram never redirects
            # (one that does is not Telegram: an answer with that status, not a second host).
            async with self._session.request(
                method, url, data=_body(request_data), timeout=timeout, allow_redirects=False
            ) as response:
                return response.status, await response.read()
        except (TimeoutError, aiohttp.ServerTimeoutError) as err:
            raise TimedOut from err
        except aiohttp.ClientError as err:
            # An error's text names the URL, token and all: PTB and ``lifespan`` say it.
            said = _TOKEN_IN_URL.sub("/bot***/", f"aiohttp.{type(err).__name__}: {err}")
            raise NetworkError(said) from err


def _given(value: Any, default: float | None) -> float | None:
    """A timeout a call names, else the client's own (PTB's ``DEFAULT_NONE``)."""
    return default if value is BaseRequest.DEFAULT_NONE else value


def _body(request_data: RequestData | None) -> aiohttp.FormData | dict[str, str] | None:
    """The call's parameters as a form (JSON-encoded values, as Telegram reads them); with
    files, a multipart form."""
    if request_data is None:
        return None
    if not request_data.contains_files:
        return request_data.json_parameters
    form = aiohttp.FormData()
    for name, value in request_data.json_parameters.items():
        form.add_field(name, value)
    for name, part in request_data.multipart_data.items():
        filename, content, *rest = part
        form.add_field(name, content, filename=filename, content_type=rest[0] if rest else None)
    return form


def _method(url: str) -> str:
    """The Bot API method a call's URL names (``…/bot<token>/sendMessage``): never the token."""
    return url.rsplit("/", 1)[-1]


def _outcome(code: int) -> str:
    if code < 300:
        return "ok"
    if code == 429:
        return "429"
    return "4xx" if code < 500 else "5xx"


def _nothing() -> None:
    """Nobody watches yet."""
