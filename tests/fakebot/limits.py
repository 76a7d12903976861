"""Telegram's flood limits for the fake Bot API server (opt-in, off by default).

Telegram documents (core.telegram.org/bots/faq, "My bot is hitting limits") about 30 calls a
second for the whole bot, 20 a minute in one group, and about one a second in one private
chat with short bursts allowed; edits and deletes count like sends. The exact algorithm is not
published, so two shapes are offered:

- :class:`Window` — at most ``calls`` accepted in any ``seconds`` long sliding window;
- :class:`Bucket` — a token bucket of ``burst`` tokens, refilled at ``calls / seconds``.

:class:`TelegramLimits` combines an overall limit (every limited call of the bot), a limit per
group/supergroup (negative ``chat_id`` or ``@username``) and one per private chat (positive
``chat_id``). A call is limited when it carries a ``chat_id`` and its method is not exempt
(``answerCallbackQuery``, ``getUpdates``, ``getMe`` and the ``getChat*`` look-ups are not).
A call over a limit gets Telegram's answer — HTTP 429, ``"Too Many Requests: retry after N"``,
``parameters.retry_after = N`` (whole seconds, rounded up) — has no effect and does not count.

Every 429 is recorded as a :class:`RateLimitHit`; the next limited call to the same chat (for
the overall limit: the next limited call at all) tells whether the bot waited ``retry_after``
out.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from .models import JSONDict

__all__ = [
    "DEFAULT_EXEMPT",
    "Bucket",
    "Limit",
    "RateLimitHit",
    "RateLimiter",
    "Scope",
    "TelegramLimits",
    "Window",
]

Scope = Literal["overall", "group", "private"]

# Methods never limited even when they name a chat (lower-case): answering presses, polling
# and look-ups. Everything else that carries a chat_id is.
DEFAULT_EXEMPT = frozenset(
    {
        "answercallbackquery",
        "getupdates",
        "getme",
        "getchat",
        "getchatmember",
        "getchatadministrators",
        "getchatmembercount",
    }
)


@dataclass(frozen=True)
class Window:
    """At most ``calls`` accepted calls in any sliding window of ``seconds``."""

    calls: int
    seconds: float

    def __str__(self) -> str:
        return f"{self.calls} per {self.seconds:g} s (sliding window)"


@dataclass(frozen=True)
class Bucket:
    """A token bucket: ``burst`` calls at once, refilled at ``calls`` per ``seconds``."""

    calls: int
    seconds: float
    burst: int

    def __str__(self) -> str:
        return f"{self.calls} per {self.seconds:g} s, burst {self.burst} (token bucket)"


Limit = Window | Bucket


@dataclass(frozen=True)
class TelegramLimits:
    """Which limits the fake enforces; ``None`` turns one off.

    The defaults are Telegram's published numbers: 30 a second overall and 20 a minute per
    group as sliding windows, and one a second per private chat with a burst of 3.
    :meth:`buckets` gives the same numbers as token buckets (the shape PTB's own
    ``AIORateLimiter`` assumes for the first two).
    """

    overall: Limit | None = Window(30, 1.0)
    group: Limit | None = Window(20, 60.0)
    private: Limit | None = Bucket(1, 1.0, burst=3)
    exempt: frozenset[str] = DEFAULT_EXEMPT

    @classmethod
    def buckets(cls) -> TelegramLimits:
        return cls(
            overall=Bucket(30, 1.0, burst=30),
            group=Bucket(20, 60.0, burst=20),
            private=Bucket(1, 1.0, burst=3),
        )

    def applies(self, method: str, params: JSONDict) -> bool:
        """Whether a call of ``method`` with ``params`` counts against the limits."""
        return params.get("chat_id") not in (None, "") and method.lower() not in self.exempt


@dataclass
class RateLimitHit:
    """One 429 answer the fake gave because of a limit."""

    seq: int  # the Call's seq (0 until the answer is recorded)
    method: str
    chat_id: int | str
    scope: Scope
    retry_after: int
    at: float  # the limiter's clock
    next_at: float | None = None  # the next limited call to that chat (any chat: overall)
    next_method: str | None = None

    @property
    def allowed_at(self) -> float:
        return self.at + self.retry_after

    @property
    def waited_out(self) -> bool | None:
        """True if the bot's next call came after ``retry_after``; None: no next call yet."""
        if self.next_at is None:
            return None
        return self.next_at >= self.allowed_at


class _WindowState:
    def __init__(self, limit: Window) -> None:
        self.limit = limit
        self.accepted: deque[float] = deque()

    def wait(self, now: float) -> float:
        """Seconds until one more call may pass (0: now)."""
        while self.accepted and self.accepted[0] <= now - self.limit.seconds:
            self.accepted.popleft()
        if len(self.accepted) < self.limit.calls:
            return 0.0
        return self.accepted[-self.limit.calls] + self.limit.seconds - now

    def take(self, now: float) -> None:
        self.accepted.append(now)


class _BucketState:
    def __init__(self, limit: Bucket, now: float) -> None:
        self.limit = limit
        self.rate = limit.calls / limit.seconds
        self.tokens = float(limit.burst)
        self.updated = now

    def _refill(self, now: float) -> None:
        if now > self.updated:
            self.tokens = min(self.limit.burst, self.tokens + (now - self.updated) * self.rate)
            self.updated = now

    def wait(self, now: float) -> float:
        self._refill(now)
        if self.tokens >= 1.0 - 1e-9:
            return 0.0
        return (1.0 - self.tokens) / self.rate

    def take(self, now: float) -> None:
        self._refill(now)
        self.tokens -= 1.0


_State = _WindowState | _BucketState


@dataclass
class RateLimiter:
    """The bookkeeping behind :class:`TelegramLimits` on one clock."""

    limits: TelegramLimits
    clock: Callable[[], float]
    hits: list[RateLimitHit] = field(default_factory=list)
    limited_calls: int = 0  # calls that counted (accepted or refused)
    _states: dict[tuple[Scope, int | str], _State] = field(default_factory=dict)
    _open: list[RateLimitHit] = field(default_factory=list)

    def check(self, method: str, params: JSONDict) -> RateLimitHit | None:
        """Count a call; a :class:`RateLimitHit` (already recorded) if it must get a 429."""
        if not self.limits.applies(method, params):
            return None
        now = self.clock()
        chat_id = _chat_key(params["chat_id"])
        self.limited_calls += 1
        self._close_open_hits(method, chat_id, now)

        checks: list[tuple[Scope, _State]] = []
        if self.limits.overall is not None:
            checks.append(("overall", self._state("overall", 0, self.limits.overall, now)))
        per_chat: Scope = "private" if isinstance(chat_id, int) and chat_id > 0 else "group"
        chat_limit = self.limits.private if per_chat == "private" else self.limits.group
        if chat_limit is not None:
            checks.append((per_chat, self._state(per_chat, chat_id, chat_limit, now)))

        waits = [(state.wait(now), scope) for scope, state in checks]
        longest, scope = max(waits, default=(0.0, "overall"))
        if longest <= 0:
            for _, state in checks:
                state.take(now)
            return None
        retry_after = max(1, math.ceil(longest - 1e-9))
        hit = RateLimitHit(0, method, chat_id, scope, retry_after, now)
        self.hits.append(hit)
        self._open.append(hit)
        return hit

    def _state(self, scope: Scope, key: int | str, limit: Limit, now: float) -> _State:
        state = self._states.get((scope, key))
        if state is None:
            state = _WindowState(limit) if isinstance(limit, Window) else _BucketState(limit, now)
            self._states[(scope, key)] = state
        return state

    def _close_open_hits(self, method: str, chat_id: int | str, now: float) -> None:
        still_open = []
        for hit in self._open:
            if hit.scope == "overall" or hit.chat_id == chat_id:
                hit.next_at = now
                hit.next_method = method
            else:
                still_open.append(hit)
        self._open = still_open


def _chat_key(chat_id: object) -> int | str:
    try:
        return int(str(chat_id))
    except ValueError:
        return str(chat_id)  # "@username": a public supergroup or channel
