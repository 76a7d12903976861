"""Telegram's flood limits as a budget the whole bot shares.

Sliding windows: calls to the whole bot per second, per group per minute (edits and deletions
count as much as messages), per private chat per few seconds. ``ready_at`` says when the next
call to a chat may go; ``spend`` books one. A 429 answer blocks a chat (or everything) until
its ``retry_after`` has passed. Slightly under Telegram's numbers, so the bot never asks twice.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..metrics import BUDGET_WAIT
from ..screen import Screen
from ..storage import Priority
from . import urgency
from .ports import Messenger
from .urgency import GROUP_RESERVE, TRICK_RESERVE, TURN_RESERVE

Clock = Callable[[], float]
BUSY_SECONDS = 5.0  # how far back ``Budget.busy`` looks


@dataclass(frozen=True)
class Limits:
    overall: tuple[int, float] = (25, 1.0)  # calls, seconds: Telegram allows about 30/s
    # ... and no more than a quarter of that in any quarter second: calls booked in a burst
    # reach Telegram bunched with the next second's (answers take varying time).
    pace: tuple[int, float] = (7, 0.25)
    group: tuple[int, float] = (19, 60.0)  # about 20 per minute per group
    private: tuple[int, float] = (3, 3.0)  # about one per second, with a short burst
    # The reserves (see ``urgency``): when a group's share runs short, the intermediate
    # edits wait (and merge), not the trick ends; the player's turn always finds a call.
    group_reserve: int = GROUP_RESERVE
    trick_reserve: int = TRICK_RESERVE
    turn_reserve: int = TURN_RESERVE

    @staticmethod
    def of(overall: float, group_per_minute: float, private: float) -> Limits:
        """From Telegram's numbers (per second, per minute per group, per second per private
        chat), kept a little under them."""
        calls = int(overall)
        group = max(1, int(group_per_minute) - 1)
        overall = max(1, calls - 5 if calls > 10 else calls)
        return Limits(
            # Calls booked in one second may reach Telegram a little bunched (a sixth of a
            # second's spread in when they arrive, at full speed): keep a margin for it.
            overall=(overall, 1.0),
            pace=(max(1, -(-overall // 4)), 0.25),
            group=(group, 60.0),
            private=(max(1, int(3 * private)), 3.0),
            group_reserve=min(GROUP_RESERVE, group // 4),
            trick_reserve=min(TRICK_RESERVE, group // 4),
            turn_reserve=TURN_RESERVE if 3 * private >= 2 else 0,
        )


class Window:
    """At most ``count`` calls in any ``seconds``."""

    def __init__(self, count: int, seconds: float) -> None:
        self.count, self.seconds = count, seconds
        self.times: deque[float] = deque()

    def ready_at(self, now: float, reserve: int = 0) -> float:
        """When one more call fits, keeping ``reserve`` calls of the window unused."""
        self._forget(now)
        allowed = self.count - reserve
        if len(self.times) < allowed:
            return now
        return self.times[len(self.times) - allowed] + self.seconds

    def spend(self, now: float) -> None:
        self._forget(now)
        self.times.append(now)

    def room(self, now: float) -> int:
        self._forget(now)
        return max(0, self.count - len(self.times))

    def has_room(self, now: float, spare: int) -> bool:
        self._forget(now)
        return len(self.times) + spare <= self.count

    def is_idle(self, now: float) -> bool:
        self._forget(now)
        return not self.times

    def _forget(self, now: float) -> None:
        while self.times and self.times[0] <= now - self.seconds:
            self.times.popleft()


class Budget:
    def __init__(self, limits: Limits | None = None, clock: Clock = time.monotonic) -> None:
        self.limits = limits or Limits()
        self.clock = clock
        self._overall = Window(*self.limits.overall)
        self._pace = Window(*self.limits.pace)
        self._chats: dict[int, Window] = {}
        self._recent = Window(1 << 30, BUSY_SECONDS)  # every call of the last few seconds
        self._blocked: dict[int | None, float] = {}  # chat (None: every chat) -> until
        # The tasks that made a call (it went to Telegram, which may have carried it out):
        # a stopping sender lets these finish and book it, and cancels the others.
        self.called: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()  # ended: gone

    def share(self, workers: int) -> None:
        """Several workers send for one bot: each keeps to its part of the bot's limit (a
        chat's own limit stays whole: one worker at a time sends to a chat)."""
        workers = max(1, workers)
        # Rounded down, with two calls a second less for each other worker: calls of
        # several processes reach Telegram less evenly than one's (each is paced alone).
        overall = self.limits.overall[0] - 2 * (workers - 1)
        self._overall.count = max(1, overall // workers)
        self._pace.count = max(1, self.limits.pace[0] // workers)

    def overall_ready_at(self) -> float:
        """When the whole bot may make one more call."""
        now = self.clock()
        return max(
            self._overall.ready_at(now), self._pace.ready_at(now), self._blocked.get(None, now)
        )

    def ready_at(self, chat_id: int, *, edit: bool = False, reserve: int = 0) -> float:
        """When a call to ``chat_id`` may go (``edit``: a group edit that may wait for posts;
        ``reserve``: calls of the chat's window it leaves to more urgent ones besides)."""
        at = max(self.overall_ready_at(), self._blocked.get(chat_id, self.clock()))
        now = self.clock()
        reserve += self.limits.group_reserve if edit and chat_id < 0 else 0
        return max(at, self._window(chat_id).ready_at(now, reserve))

    def reserve_for(self, chat_id: int, *, table_edit: bool, priority: Priority) -> int:
        """What a call of ``priority`` leaves in the chat's window for more urgent calls (the
        sender's shedding: lower priorities wait first; ``urgency.RULES`` says which)."""
        return urgency.reserve(
            priority,
            group=chat_id < 0,
            table_edit=table_edit,
            trick=self.limits.trick_reserve,
            turn=self.limits.turn_reserve,
        )

    def spend(self, chat_id: int) -> None:
        now = self.clock()
        self._recent.spend(now)
        self._overall.spend(now)
        self._pace.spend(now)
        self._window(chat_id).spend(now)

    def busy(self) -> bool:
        """More than half of this worker's calls of the last few seconds are spent: edits
        that may wait (a hand its player has just played from) wait and merge."""
        now = self.clock()
        used = self._recent.count - self._recent.room(now)
        allowed = self._overall.count * BUSY_SECONDS / self._overall.seconds
        return 2 * used > allowed

    def room(self) -> int:
        """Calls the whole bot may start now (the sender starts no more in one go)."""
        now = self.clock()
        if self._blocked.get(None, now) > now:
            return 0
        return min(self._overall.room(now), self._pace.room(now))

    def block(self, chat_id: int | None, seconds: float) -> int | None:
        """Telegram said "retry after": nothing more to that chat until then. The answer does
        not say which limit it was: when the chat had calls to spare, it was the bot's own
        limit, and nothing goes to any chat until then. Returns the chat blocked (None:
        every chat)."""
        now = self.clock()
        until = now + seconds
        if chat_id is not None and self._window(chat_id).has_room(now, spare=2):
            chat_id = None
        self._blocked[chat_id] = max(until, self._blocked.get(chat_id, 0.0))
        return chat_id

    def forget_idle(self) -> None:
        """Drop the windows of chats with no recent call (memory stays bounded)."""
        now = self.clock()
        for chat_id in [c for c, w in self._chats.items() if w.is_idle(now)]:
            del self._chats[chat_id]
        for key in [c for c, until in self._blocked.items() if until <= now]:
            del self._blocked[key]

    def counts(self, chat_id: int) -> bool:
        """Whether calls to ``chat_id`` still count in its window (or a 429 blocks it)."""
        now = self.clock()
        window = self._chats.get(chat_id)
        busy = window is not None and not window.is_idle(now)
        return busy or self._blocked.get(chat_id, now) > now

    def tracked(self) -> int:
        return len(self._chats) + len(self._blocked)

    def _window(self, chat_id: int) -> Window:
        window = self._chats.get(chat_id)
        if window is None:
            limit = self.limits.group if chat_id < 0 else self.limits.private
            window = self._chats[chat_id] = Window(*limit)
        return window


class Budgeted:
    """A messenger whose every call waits for the budget and books itself just before it goes
    (booked any earlier, calls could reach Telegram bunched up)."""

    def __init__(self, messenger: Messenger, budget: Budget) -> None:
        self._messenger = messenger
        self._budget = budget

    async def _turn(self, chat_id: int) -> None:
        start = self._budget.clock()
        while (wait := self._budget.ready_at(chat_id) - self._budget.clock()) > 0:
            await asyncio.sleep(wait)
        self._budget.spend(chat_id)
        BUDGET_WAIT.observe(self._budget.clock() - start)
        task = asyncio.current_task()
        if task is not None:
            self._budget.called.add(task)  # its owner forgets it (``Sender``)

    async def send(
        self, chat_id: int, screen: Screen, *, notify: bool = True, thread_id: int | None = None
    ) -> int:
        await self._turn(chat_id)
        return await self._messenger.send(chat_id, screen, notify=notify, thread_id=thread_id)

    async def edit(self, chat_id: int, message_id: int, screen: Screen) -> None:
        await self._turn(chat_id)
        await self._messenger.edit(chat_id, message_id, screen)

    async def delete(self, chat_id: int, message_id: int) -> None:
        await self._turn(chat_id)
        await self._messenger.delete(chat_id, message_id)
