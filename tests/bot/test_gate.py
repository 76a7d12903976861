"""A person's fair share of the bot, and the cache of who is a chat's admin."""

from __future__ import annotations

import asyncio

from bot.service.gate import AdminCache, Gate, Verdict


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_passes_then_presses_are_refused_until_the_bucket_refills() -> None:
    clock = Clock()
    gate = Gate(rate=2.0, burst=3, in_progress=10, clock=clock)
    verdicts = [gate.admit(1) for _ in range(6)]
    for _ in range(3):
        gate.done(1)
    assert verdicts == [Verdict.PASS] * 3 + [Verdict.REFUSE] * 3
    assert gate.admit(2) is Verdict.PASS  # someone else is not affected
    clock.now += 0.5  # one token back
    assert gate.admit(1) is Verdict.PASS
    assert gate.admit(1) is Verdict.REFUSE


def test_a_person_holds_only_so_many_updates_at_once() -> None:
    gate = Gate(rate=100.0, burst=100, in_progress=2, clock=Clock())
    assert [gate.admit(1) for _ in range(3)] == [Verdict.PASS, Verdict.PASS, Verdict.REFUSE]
    gate.done(1)
    assert gate.admit(1) is Verdict.PASS


def test_slow_commands_in_progress_do_not_refuse_the_persons_presses() -> None:
    """Three commands of a person wait for a busy group's budget: their card presses still
    pass (a fourth command waits its turn, as ever)."""
    gate = Gate(rate=100.0, burst=100, in_progress=3, clock=Clock())
    assert [gate.admit(1, command=True) for _ in range(3)] == [Verdict.PASS] * 3
    assert gate.admit(1, command=True) is Verdict.REFUSE
    assert [gate.admit(1) for _ in range(3)] == [Verdict.PASS] * 3  # presses: their own count
    assert gate.admit(1) is Verdict.REFUSE
    gate.done(1, command=True)
    assert gate.admit(1) is Verdict.REFUSE  # a command's end frees no press slot
    assert gate.admit(1, command=True) is Verdict.PASS


def test_memory_is_bounded() -> None:
    gate = Gate(clock=Clock())
    for user in range(5000):
        gate.admit(user)
        gate.done(user)
    assert gate.tracked() <= 4097


async def test_admin_cache_asks_once_for_many_and_expires() -> None:
    clock = Clock()
    cache = AdminCache(ttl=60.0, failed_ttl=5.0, clock=clock)
    calls = 0

    async def fetch() -> bool | None:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        return True

    answers = await asyncio.gather(*(cache.ask(-5, 7, fetch) for _ in range(50)))
    assert answers == [True] * 50 and calls == 1
    clock.now += 61
    assert await cache.ask(-5, 7, fetch) and calls == 2
    cache.put(-5, 7, False)  # a chat_member update: demoted
    assert not await cache.ask(-5, 7, fetch) and calls == 2


async def test_admin_cache_counts_a_failed_question_as_no_for_a_short_while() -> None:
    clock = Clock()
    cache = AdminCache(ttl=60.0, failed_ttl=5.0, clock=clock)

    async def unknown() -> bool | None:
        return None

    async def yes() -> bool | None:
        return True

    assert not await cache.ask(-5, 7, unknown)
    assert not await cache.ask(-5, 7, yes)
    clock.now += 6
    assert await cache.ask(-5, 7, yes)
