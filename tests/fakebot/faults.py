"""Test controls for trouble: injected errors, network faults, delays and Telegram's flood
limits (see :mod:`fakebot.limits`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from .limits import RateLimiter, RateLimitHit, TelegramLimits
from .models import ApiError, Call, JSONDict

TELEGRAM_LIMITS = TelegramLimits()  # Telegram's published numbers (see fakebot.limits)


@dataclass
class Injection:
    method: str  # lower-case
    error: ApiError
    remaining: int
    when: Callable[[JSONDict], bool] | None


@dataclass
class Fault:
    method: str  # lower-case
    kind: str  # "drop": the connection is cut before an answer; "slow": the answer is late
    seconds: float
    remaining: int
    when: Callable[[JSONDict], bool] | None
    until: float | None = None  # time.monotonic(): every matching call until then (an outage)


class FaultsMixin:
    """Errors, faults, delays and limits for :class:`~fakebot.server.FakeTelegram`."""

    def inject_error(
        self,
        method: str,
        code: int,
        description: str | None = None,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
        times: int = 1,
        when: Callable[[JSONDict], bool] | None = None,
    ) -> None:
        """Answer the next ``times`` calls of ``method`` (whose params satisfy ``when``) with
        this error instead of executing them.  429 defaults to "Too Many Requests: retry
        after N" with ``parameters.retry_after``."""
        if description is None:
            if code == 429:
                description = f"Too Many Requests: retry after {retry_after or 1}"
            else:
                description = {400: "Bad Request", 403: "Forbidden", 409: "Conflict"}.get(
                    code, "Internal Server Error"
                )
        parameters: JSONDict = {}
        if retry_after is not None or code == 429:
            parameters["retry_after"] = retry_after or 1
        if migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = migrate_to_chat_id
        error = ApiError(code, description, parameters or None)
        self._injections.append(Injection(method.lower(), error, times, when))

    def enforce_limits(
        self,
        limits: TelegramLimits | None = TELEGRAM_LIMITS,
        *,
        clock: Callable[[], float] | None = None,
    ) -> None:
        """Answer calls over Telegram's flood limits with 429 from now on (``None``: stop).

        Starts from empty windows; earlier :attr:`rate_limit_hits` are forgotten."""
        if limits is None:
            self._limiter = None
        else:
            self._limiter = RateLimiter(limits, clock or time.monotonic)

    @property
    def limits(self) -> TelegramLimits | None:
        """The enforced limits, or None when they are off (the default)."""
        return self._limiter.limits if self._limiter else None

    @property
    def rate_limit_hits(self) -> list[RateLimitHit]:
        """Every 429 the limits caused, oldest first (empty when limits are off)."""
        return self._limiter.hits if self._limiter else []

    def inject_fault(
        self,
        method: str,
        kind: str,
        *,
        seconds: float = 0.0,
        times: int = 1,
        when: Callable[[JSONDict], bool] | None = None,
        during: float | None = None,
    ) -> None:
        """Network trouble on the next ``times`` calls of ``method`` (``"*"``: any method)
        whose params satisfy ``when``: ``"drop"`` cuts the connection before anything is done
        (the client sees a reset, like a proxy or Telegram's front end going away);
        ``"slow"`` answers ``seconds`` late (a client with a shorter timeout gives up, though
        the call is still carried out, as Telegram would). ``during``: on every such call
        for that many seconds from now instead (an outage, or a slow spell; ``times`` is
        then ignored)."""
        if kind not in ("drop", "slow"):
            raise ValueError(f"unknown fault {kind!r}: 'drop' or 'slow'")
        until = None if during is None else time.monotonic() + during
        remaining = 1 if during is not None else times
        self._faults.append(Fault(method.lower(), kind, seconds, remaining, when, until))

    @property
    def dropped_calls(self) -> list[Call]:
        """Calls whose connection a ``drop`` fault cut (status 0)."""
        return [c for c in self.calls if c.status == 0]

    def set_delay(self, method: str, seconds: float) -> None:
        """Delay every answer to ``method`` by ``seconds`` (0 removes the delay)."""
        if seconds > 0:
            self._delays[method.lower()] = seconds
        else:
            self._delays.pop(method.lower(), None)

    def hold(self, method: str) -> None:
        """Keep every answer to ``method`` back until ``release(method)``: Telegram stuck on it
        for exactly as long as a test needs (a delay is a guess at how long a test's other
        steps take, which a loaded machine can make wrong). Calls are still counted as
        received (``received_count``) when they arrive."""
        self._holds.setdefault(method.lower(), asyncio.Event())

    def release(self, method: str) -> None:
        """Answer the calls ``hold`` kept back, and the next ones at once."""
        held = self._holds.pop(method.lower(), None)
        if held is not None:
            held.set()

    def _take_injection(self, method: str, params: JSONDict) -> ApiError | None:
        for injection in self._injections:
            if (
                injection.method == method.lower()
                and injection.remaining > 0
                and (injection.when is None or injection.when(params))
            ):
                injection.remaining -= 1
                return injection.error
        return None

    def _take_fault(self, method: str, params: JSONDict) -> Fault | None:
        now = time.monotonic()
        for fault in self._faults:
            if (
                fault.method in (method.lower(), "*")
                and fault.remaining > 0
                and (fault.until is None or now < fault.until)
                and (fault.when is None or fault.when(params))
            ):
                if fault.until is None:
                    fault.remaining -= 1
                return fault
        return None
