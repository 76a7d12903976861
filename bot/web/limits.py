"""A small per-user token bucket: no single player may keep the server busy for the others."""

from __future__ import annotations

from ..bucket import TokenBucket
from ..lru import LRU

RATE = 10.0  # requests per second a player may keep up
BURST = 30.0  # ... and in one go (a page opening asks a few things at once)
KEPT = 10_000  # players remembered; the oldest are forgotten (they start with a full bucket)


class RateLimit:
    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        self._rate = rate
        self._burst = burst
        self._buckets: LRU[int, TokenBucket] = LRU(KEPT)

    def allow(self, key: int, now: float) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = TokenBucket(self._rate, self._burst, now)
            self._buckets.put(key, bucket)
        return bucket.take(now)
