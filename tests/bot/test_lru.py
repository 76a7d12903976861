"""The small shared pieces: the bounded map every in-memory cache uses, and the token bucket."""

from __future__ import annotations

import pytest

from bot.bucket import TokenBucket
from bot.lru import LRU, Expiring


def test_the_least_recently_used_entry_goes_first() -> None:
    lru: LRU[str, int] = LRU(2)
    lru.put("a", 1)
    lru.put("b", 2)
    assert lru.get("a") == 1  # used: "b" is the oldest now
    assert lru.peek("b") == 2  # looked at, not used
    lru.put("c", 3)
    assert "b" not in lru and lru.oldest_first() == ["a", "c"] and len(lru) == 2
    assert lru.pop("a") == 1 and lru.pop("a") is None and lru.get("a") is None


def test_a_pinned_entry_stays_and_the_map_waits_over_its_size() -> None:
    busy = {"a"}
    lru: LRU[str, str] = LRU(2, pinned=lambda value: value in busy)
    lru.put("a", "a")
    lru.put("b", "b")
    lru.put("c", "c")
    assert len(lru) == 3 and "a" in lru  # the oldest is busy: nothing is forgotten yet
    busy.clear()
    lru.put("d", "d")
    assert lru.oldest_first() == ["a", "d"]  # back to its size, the oldest gone first


def test_a_bucket_gives_a_burst_then_its_rate() -> None:
    bucket = TokenBucket(rate=2.0, burst=3.0, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.5) and not bucket.take(0.5)  # one token back after half a second
    assert [bucket.take(100.0) for _ in range(4)] == [True, True, True, False]  # never over


def test_an_expiring_cache_hands_out_copies_and_forgets_old_and_changed_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr("bot.lru.time.monotonic", lambda: now[0])
    cache: Expiring[int, list[str]] = Expiring(8, 5.0, list)
    record = ["Anna"]
    cache.put(1, record)
    record.append("changed by its reader")
    got = cache.get(1)
    assert got == ["Anna"]  # the record as read, not as its reader changed it later
    got.append("changed again")
    assert cache.get(1) == ["Anna"]
    cache.forget(1)  # written: read it anew
    assert cache.get(1) is None
    cache.put(2, ["Boris"])
    now[0] += 5.0
    assert cache.get(2) is None  # too old: another process may have changed it
    off: Expiring[int, list[str]] = Expiring(8, 0.0, list)
    off.put(3, ["Vera"])
    assert off.get(3) is None
