"""The per-table and per-chat locks: one holder per key at a time, other keys never wait,
and a lock nobody holds or waits for is forgotten."""

from __future__ import annotations

import asyncio

from bot.service.keyed_locks import KeyedLocks


async def test_one_key_is_held_by_one_at_a_time() -> None:
    locks = KeyedLocks()
    order: list[str] = []
    first_in = asyncio.Event()

    async def first() -> None:
        async with locks.hold(1):
            first_in.set()
            await asyncio.sleep(0.01)
            order.append("first out")

    async def second() -> None:
        await first_in.wait()
        async with locks.hold(1):
            order.append("second in")

    await asyncio.gather(first(), second())
    assert order == ["first out", "second in"]


async def test_another_key_does_not_wait() -> None:
    locks = KeyedLocks()
    async with locks.hold(1):
        assert locks.is_held(1) and not locks.is_held(2)
        async with asyncio.timeout(1):
            async with locks.hold(2):
                assert locks.is_held(2)


async def test_a_lock_nobody_holds_or_waits_for_is_forgotten() -> None:
    locks = KeyedLocks()
    for key in range(100):
        async with locks.hold(key):
            assert len(locks) == 1
    assert len(locks) == 0 and not locks.is_held(5)
