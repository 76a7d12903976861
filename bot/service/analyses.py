"""Where the coach thinks: CPU-bound reviews off the event loop, a few at a time.

A review of one deal takes a second or a few of one core (``kozel_rules.ai.coach``). It runs
in a separate process (one worker, started on first use), so the bot's event loop and the
computer players' threads never wait for it; the process's GIL is its own. Reviews queue
behind each other; past ``MAX_WAITING`` queued or running in this bot the coach says it is
busy instead of queueing more. A review that takes longer than ``TIMEOUT`` is given up.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

MAX_WAITING = 6  # reviews queued or running at once in one bot process
TIMEOUT = 120.0  # seconds a review may take, queue included


def process_pool() -> Executor:
    # "spawn": a fork of a process running an event loop and threads is not safe.
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))


class Analyses:
    """The coach's work in the background: which reviews are under way (``key``: who asked
    about which deal), the executor they run in, and the tasks that deliver them."""

    def __init__(self, executor: Callable[[], Executor | None] = process_pool) -> None:
        """``executor``: makes the executor on first use (``None``: the event loop's default
        thread pool, for tests)."""
        self._make = executor
        self._executor: Executor | None = None
        self._made = False
        self.pending: set[Hashable] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def busy(self) -> bool:
        return len(self.pending) >= MAX_WAITING

    def start(self, key: Hashable, job: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``job`` in the background under ``key`` (in ``pending`` until it ends)."""
        self.pending.add(key)

        async def run() -> None:
            try:
                await job()
            finally:
                self.pending.discard(key)

        task = asyncio.create_task(run(), name=f"coach {key}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def compute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` in the executor, given up after ``TIMEOUT`` seconds
        (``TimeoutError``). A worker process that died (killed, out of memory) is replaced,
        and the review tried once more in the new one; one given up is ended with its
        process, which would otherwise go on with it and hold up every later review."""
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            if not self._made:
                self._executor = self._make()
                self._made = True
            executor = self._executor
            call: Awaitable[Any] = loop.run_in_executor(executor, _call, fn, args, kwargs)
            try:
                async with asyncio.timeout(TIMEOUT):
                    return await call
            except BrokenProcessPool:
                self._drop(executor)
                if attempt == 2:
                    raise
            except TimeoutError:
                self._drop(executor)
                raise
        raise AssertionError("unreachable")

    def _drop(self, executor: Executor | None) -> None:
        """End ``executor`` and its processes (if it is still the current one): the next
        review starts a new one."""
        if executor is None or executor is not self._executor:
            return
        processes: dict[int, Any] = getattr(executor, "_processes", None) or {}
        for process in list(processes.values()):
            process.kill()
        executor.shutdown(wait=False, cancel_futures=True)
        self._executor = None
        self._made = False

    async def idle(self) -> None:
        """Wait until every review under way has been delivered (tests)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop: cancel the deliveries under way and end the worker process."""
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
            self._made = False


def _call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return fn(*args, **kwargs)
