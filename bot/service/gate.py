"""Fair shares of the bot: how often one person may press or command, and who is an admin.

Every press and command of a person spends a token of their own bucket (a burst, then a
steady rate) and counts as in progress until it is handled. A person over their share is
refused before the bot does any work for them (the adapter answers every refused press with
"slow down": an answer is cheap and free of Telegram's flood limits). So one person tapping
hundreds of times holds at most a few of the bot's update slots, and everybody else is served
at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum

from ..bucket import TokenBucket
from ..lru import LRU

Clock = Callable[[], float]
USERS_KEPT = 4096  # people tracked at once; the longest idle are forgotten (a full bucket)
ADMINS_KEPT = 4096


class Verdict(Enum):
    PASS = "pass"  # handle it
    REFUSE = "refuse"  # over the share: do no work for it (a press is answered, that is all)


@dataclass
class _Share:
    bucket: TokenBucket
    busy: int = 0  # presses in progress
    busy_commands: int = 0  # ... and commands, counted apart: a command waits for its chat's
    # budget (a busy group), and a few slow ones must not refuse the person's card presses

    def is_busy(self) -> bool:
        return self.busy > 0 or self.busy_commands > 0


class Gate:
    """Per person: a token bucket (``burst``, refilled at ``rate`` a second) and at most
    ``in_progress`` presses handled at once, and as many commands."""

    def __init__(
        self,
        rate: float = 4.0,
        burst: int = 20,
        in_progress: int = 3,
        clock: Clock = time.monotonic,
    ) -> None:
        self.rate, self.burst, self.in_progress = rate, burst, in_progress
        self.clock = clock
        # The longest idle are forgotten (a full bucket again); one still in progress stays.
        self._shares: LRU[int, _Share] = LRU(USERS_KEPT, pinned=_Share.is_busy)

    def admit(self, user_id: int, *, command: bool = False) -> Verdict:
        now = self.clock()
        share = self._shares.get(user_id)
        if share is None:
            share = _Share(TokenBucket(self.rate, float(self.burst), now))
            self._shares.put(user_id, share)
        busy = share.busy_commands if command else share.busy
        if busy >= self.in_progress or not share.bucket.take(now):
            return Verdict.REFUSE
        if command:
            share.busy_commands += 1
        else:
            share.busy += 1
        return Verdict.PASS

    def done(self, user_id: int, *, command: bool = False) -> None:
        share = self._shares.peek(user_id)
        if share is None:
            return
        if command and share.busy_commands > 0:
            share.busy_commands -= 1
        elif not command and share.busy > 0:
            share.busy -= 1

    def tracked(self) -> int:
        return len(self._shares)


class AdminCache:
    """Who is a chat's admin, as Telegram said lately: asked at most once per ``ttl`` for a
    person in a chat (at once, however many wait for the answer), told directly by
    ``chat_member`` updates."""

    def __init__(self, ttl: float = 60.0, failed_ttl: float = 10.0, clock: Clock = time.monotonic):
        self.ttl, self.failed_ttl, self.clock = ttl, failed_ttl, clock
        self._known: LRU[tuple[int, int], tuple[bool, float]] = LRU(ADMINS_KEPT)
        self._asking: dict[tuple[int, int], asyncio.Future[bool | None]] = {}
        self.asked = 0  # calls to Telegram made (for tests and logs)

    def put(self, chat_id: int, user_id: int, is_admin: bool, *, ttl: float | None = None) -> None:
        expires = self.clock() + (self.ttl if ttl is None else ttl)
        self._known.put((chat_id, user_id), (is_admin, expires))

    def tracked(self) -> int:
        return len(self._known)

    def get(self, chat_id: int, user_id: int) -> bool | None:
        known = self._known.peek((chat_id, user_id))
        if known is None or known[1] <= self.clock():
            return None
        return known[0]

    async def ask(
        self, chat_id: int, user_id: int, fetch: Callable[[], Awaitable[bool | None]]
    ) -> bool:
        """The cached answer, or ``fetch``'s (None: Telegram could not say; counted as no
        for a short while)."""
        known = self.get(chat_id, user_id)
        if known is not None:
            return known
        key = (chat_id, user_id)
        pending = self._asking.get(key)
        if pending is None:
            pending = self._asking[key] = asyncio.get_running_loop().create_future()
            self.asked += 1
            answer: bool | None = None
            try:
                answer = await fetch()
            finally:
                del self._asking[key]
                pending.set_result(answer)  # whoever waits gets it (None: no, for now)
            ttl = None if answer is not None else self.failed_ttl
            self.put(chat_id, user_id, bool(answer), ttl=ttl)
            return bool(answer)
        return bool(await asyncio.shield(pending))
