"""A token bucket: a burst, then a steady rate (how often one person may ask the bot)."""

from __future__ import annotations


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` a second; each request takes one."""

    __slots__ = ("at", "burst", "rate", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = burst, now

    def take(self, now: float) -> bool:
        """Take a token if there is one (refilled up to ``now`` first)."""
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True
