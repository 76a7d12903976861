"""A small per-user token bucket: no single player may keep the server busy for the others."""

from __future__ import annotations

from collections import OrderedDict

RATE = 10.0  # requests per second a player may keep up
BURST = 30.0  # ... and in one go (a page opening asks a few things at once)
KEPT = 10_000  # players remembered; the oldest are forgotten (they start with a full bucket)


class RateLimit:
    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        self._rate = rate
        self._burst = burst
        self._buckets: OrderedDict[int, tuple[float, float]] = OrderedDict()

    def allow(self, key: int, now: float) -> bool:
        tokens, at = self._buckets.pop(key, (self._burst, now))
        tokens = min(self._burst, tokens + (now - at) * self._rate)
        allowed = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._buckets) > KEPT:
            self._buckets.popitem(last=False)
        return allowed
