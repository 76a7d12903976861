"""The sender: drains the outbox within Telegram's budget, the most felt messages first.

One delivery at a time per chat (posts of a chat go out in order, before its marks), several
chats at once. A row leaves the outbox only after Telegram took it; after a crash the sender
simply starts again from what is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping

from ..metrics import OUTBOX_SENT, TURN_LAG
from ..storage import OutboxKind, Owed, Priority, StorageUnavailable
from ..wake import woken
from . import closing, urgency
from .core import Core
from .deliver import deliver
from .ports import RetryLater, Transient
from .retry import until_stored

log = logging.getLogger(__name__)

MAX_IN_FLIGHT = 16  # deliveries at once (each to another chat)
MAX_ATTEMPTS = 8  # failed tries before an unexpected error gives the row up
IDLE_WAIT = 30.0  # seconds to sleep when nothing is owed (a commit wakes it anyway)
GATHER = 0.025  # seconds the sender lets wake-ups gather before it reads the outbox
SHARED_POLL = 0.2  # seconds between looks at the outbox when other workers may fill it
STOP_CALLED = 6.0  # seconds more a stopping sender gives a delivery whose call went out (with
# the drain before it, within the 10 s Docker allows a stop)


def backoff(attempts: int) -> float:
    return float(min(60.0, 0.5 * 2**attempts))


CLAIM_PREFIX = "chat:"
# A 429 of the bot's own limit, told to the other workers: they wait it out too (the limit is
# the token's, whichever process met it). A lease that every worker takes as the same holder.
RETRY_AFTER = "telegram:retry-after"


class Sender:
    """``holder``: this worker's name, when several may share the database. A chat's rows are
    then sent by one worker at a time, the one holding the chat's claim (a lease renewed
    while it sends there): that keeps a chat's posts in order and within its limits."""

    def __init__(self, core: Core, *, holder: str | None = None, claim_seconds: float = 30.0):
        self.core = core
        self.holder = holder
        self.claim_seconds = claim_seconds
        self._claims: dict[int, float] = {}  # chat -> until when this worker holds it
        self._in_flight: dict[int, asyncio.Task[None]] = {}  # by chat
        # Chats whose delivery ended while the outbox was being read: that read is stale for
        # the whole chat (a post that failed holds back the chat's later posts; the read of
        # the held posts may have come before its retry was written).
        self._finished: set[int] = set()
        self._idle = True
        # Whether to send nothing now: a worker that cannot reach Telegram (``Reach.away``),
        # beside other workers, steps aside (no chat claimed, those held given back) until it
        # can; a polling bot whose lock another process took sends nothing more as it stops.
        self.cut_off: Callable[[], bool] = lambda: False

    async def run(self) -> None:
        """Deliver forever (cancel to stop). A step that cannot read the outbox (the database
        is away) ends it: its supervisor starts it again, and what is under way goes on."""
        while True:
            wait = await self.step()
            await self._sleep(wait)
            # Commits and deliveries that end close together are read in one step: under
            # load a step per wake-up would cost a read of the outbox per press.
            await asyncio.sleep(GATHER)

    async def drain(self, timeout: float = 30.0) -> None:
        """Deliver everything owed now and whatever that owes in turn (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            wait = await self.step()
            if not self._in_flight and await self._nothing_due():
                return
            await self._sleep(min(wait, 0.05) if self._in_flight else min(wait, 0.2))
        raise TimeoutError("the outbox did not drain")

    async def step(self) -> float:
        """Start the deliveries the budget allows now; returns how long to wait for more."""
        now_wall = time.time()
        self._finished.clear()
        due, held, later = await self.core.storage.outbox.look(now_wall)
        if self.holder is not None:
            await self._heed_retry_after(now_wall)
        await self._claim(heads(due, held, now=now_wall), now_wall)
        # No await from here to the end of the loop: the filter stays true while we start.
        due = [item for item in due if item.chat_id not in self._finished and self._holds(item)]
        wait = self._start(heads(due, held, now=now_wall))
        if later is not None:
            wait = min(wait, later - now_wall)
        self.core.budget.forget_idle()
        idle = not due and later is None and not self._in_flight
        if idle and not self._idle:
            counts = " ".join(f"{k}={v}" for k, v in self.core.in_memory().items())
            log.debug("outbox empty; in memory: %s", counts)
        self._idle = idle
        if self.holder is not None:
            wait = min(wait, SHARED_POLL)  # other workers' commits do not wake this one
        return max(wait, 0.0)

    def _start(self, first: list[Owed]) -> float:
        """Start the deliveries of ``first`` (by urgency) the budget allows now; returns how
        long to wait for more. Started calls book the budget only when they go: start no
        more than it holds now, so the most felt rows get it rather than whichever call
        wakes first."""
        budget = self.core.budget
        wait = IDLE_WAIT
        room = budget.room()
        for item in first:
            if len(self._in_flight) >= MAX_IN_FLIGHT:
                break
            if room <= 0:
                return min(wait, budget.overall_ready_at() - budget.clock())
            if item.chat_id in self._in_flight:
                continue
            edit = item.kind is OutboxKind.TABLE and not item.renew
            reserve = budget.reserve_for(item.chat_id, table_edit=edit, priority=item.priority)
            delay = budget.ready_at(item.chat_id, edit=edit, reserve=reserve) - budget.clock()
            if delay > 0:
                wait = min(wait, delay)
                continue
            # The call books the budget itself, when it goes (see budget.Budgeted).
            task = asyncio.create_task(self._deliver(item), name=f"deliver {item.kind}")
            self._in_flight[item.chat_id] = task
            room -= 1
        return wait

    async def _heed_retry_after(self, now: float) -> None:
        """Wait out a 429 of the bot's own limit that another worker met."""
        told = await self.core.storage.leases.holder(RETRY_AFTER)
        if told is not None and told[1] > now:
            self.core.budget.block(None, told[1] - now)

    async def _tell_retry_after(self, seconds: float) -> None:
        with contextlib.suppress(StorageUnavailable):
            await self.core.storage.leases.take(RETRY_AFTER, RETRY_AFTER, seconds)

    def _holds(self, item: Owed) -> bool:
        if self.cut_off():
            return False
        return self.holder is None or self._claims.get(item.chat_id, 0.0) > time.time()

    async def _claim(self, first: list[Owed], now: float) -> None:
        """Hold (or keep holding) the chats of the rows to send next."""
        if self.holder is None:
            return
        if self.cut_off():
            await self._let_go()
            return
        for chat_id in [c for c, until in self._claims.items() if until <= now]:
            del self._claims[chat_id]
        wanted = self._wanted(first, now)
        if not wanted:
            return
        names = [f"{CLAIM_PREFIX}{chat_id}" for chat_id in sorted(wanted)]
        held = await self.core.storage.leases.take_many(names, self.holder, self.claim_seconds)
        for chat_id in wanted:
            if f"{CLAIM_PREFIX}{chat_id}" not in held:
                self._claims.pop(chat_id, None)
                continue
            if chat_id not in self._claims:
                # Another worker may have sent there meanwhile: what this one remembers of
                # the chat's messages may be out of date.
                self.core.shown.forget_chat(chat_id)
            self._claims[chat_id] = now + self.claim_seconds

    def _wanted(self, first: list[Owed], now: float) -> set[int]:
        """The chats whose claims to take or renew: those of the rows to send next, and those
        whose calls still count in the chat's window (a group's is a minute, longer than a
        claim): another worker taking one over would not know them, and could spend the
        group's share twice (Telegram's 429)."""
        renew_by = now + self.claim_seconds / 2
        wanted = {
            item.chat_id
            for item in first[: 4 * MAX_IN_FLIGHT]
            if self._claims.get(item.chat_id, 0.0) < renew_by
        }
        wanted |= {
            chat_id
            for chat_id, until in self._claims.items()
            if until < renew_by and self.core.budget.counts(chat_id)
        }
        return wanted

    async def _let_go(self) -> None:
        """Give back the chats this worker holds and sends nothing to (cut off from Telegram,
        it would hold them with its own failed calls): another worker sends there at once. A
        chat with a delivery under way waits for its end (it may yet have reached Telegram)."""
        assert self.holder is not None
        gone = [c for c in self._claims if c not in self._in_flight]
        for chat_id in gone:
            await self.core.storage.leases.release(f"{CLAIM_PREFIX}{chat_id}", self.holder)
            del self._claims[chat_id]
        if gone:
            # What failed here failed for this worker's path: the others may send it now,
            # not after its backoff.
            await self.core.storage.outbox.retry_now(time.time())

    async def _deliver(self, item: Owed) -> None:
        try:
            book = await self._attempt(item)
            # What happened is booked even if the database is away just now: a post Telegram
            # took and the outbox still owed would go out twice. The chat stays this
            # worker's meanwhile (in flight), so nothing else goes there before it.
            await until_stored(book)
        except StorageUnavailable:
            pass  # nothing done, or not booked for long: the row is owed still (said once)
        except Exception:
            log.exception("booking the delivery of %s to %s failed", item.kind, item.chat_id)
        finally:
            task = asyncio.current_task()
            if task is not None:
                self.core.budget.called.discard(task)
            self._finished.add(item.chat_id)
            self._in_flight.pop(item.chat_id, None)
            self.core.outbox_ready.set()

    async def _attempt(self, item: Owed) -> Callable[[], Awaitable[object]]:
        """Deliver the row; returns the write that books the outcome."""
        outbox = self.core.storage.outbox
        try:
            extra = await deliver(self.core, item)
        except RetryLater as err:
            OUTBOX_SENT.labels("retried").inc()
            if self.core.budget.block(item.chat_id, err.seconds) is None and self.holder:
                await self._tell_retry_after(err.seconds)
            later = time.time() + err.seconds
            return lambda: outbox.retry(item, later, attempt=False)
        except Transient as err:
            OUTBOX_SENT.labels("retried").inc()
            log.info("delivery of %s to %s failed (%s); retrying", item.kind, item.chat_id, err)
            again = time.time() + backoff(item.attempts)
            return lambda: outbox.retry(item, again)
        except (asyncio.CancelledError, StorageUnavailable):
            raise
        except Exception:
            if item.attempts + 1 >= MAX_ATTEMPTS:
                OUTBOX_SENT.labels("dropped").inc()
                log.exception("giving up on %s to %s", item.kind, item.chat_id)
                return lambda: self._give_up(item)
            OUTBOX_SENT.labels("retried").inc()
            log.exception("delivery of %s to %s failed", item.kind, item.chat_id)
            retry_at = time.time() + backoff(item.attempts)
            return lambda: outbox.retry(item, retry_at)
        OUTBOX_SENT.labels("sent").inc()
        if item.kind is OutboxKind.HAND and item.priority is Priority.TURN:
            # The hand of the player to move, shown: its mark was owed by the accepted move.
            TURN_LAG.observe(max(0.0, time.time() - item.created_at))
        return lambda: outbox.done(item, extra=extra)

    async def _give_up(self, item: Owed) -> None:
        await self.core.storage.outbox.drop(item)
        if item.kind is OutboxKind.LOBBY and item.table_id is not None:
            await closing.lobby_unshowable(self.core, item.table_id)

    async def _sleep(self, seconds: float) -> None:
        event = self.core.outbox_ready
        await woken(event, seconds)
        event.clear()  # the next step reads everything committed before this

    async def _nothing_due(self) -> bool:
        return not await self.core.storage.outbox.due(time.time(), limit=1)

    async def stop(self, grace: float = 2.0, called_grace: float = STOP_CALLED) -> None:
        """Let deliveries under way finish (briefly); the rest stays owed for the next start.
        One whose call went to Telegram gets longer (``called_grace``) to hear the answer and
        book it: cut there, Telegram may have posted it, and another worker would again."""
        tasks = list(self._in_flight.values())
        if tasks:
            await asyncio.wait(tasks, timeout=grace)
        called = [t for t in tasks if not t.done() and t in self.core.budget.called]
        if called:
            await asyncio.wait(called, timeout=called_grace)
        for task in tasks:
            task.cancel()
        self._claims.clear()  # the chats' leases go with the worker's (see the adapter)


def heads(
    due: Iterable[Owed],
    held: Mapping[tuple[int, int | None], int] | None = None,
    *,
    now: float = 0.0,
) -> list[Owed]:
    """The next row of each chat: its oldest post, else its most felt mark; by priority.

    Where a table's post waits for a retry (``held``: (chat, table) -> that post's id) only
    older posts, edits and deletions of that table go: nothing new may appear above a result
    that is still owed. Other tables of the chat (its other forum topics) go on."""
    held = held or {}
    best: dict[int, Owed] = {}
    for item in due:  # already by priority, then age
        first_waiting = held.get((item.chat_id, item.table_id))
        if first_waiting is not None and (
            (item.kind is OutboxKind.POST and item.id > first_waiting) or item.renew
        ):
            continue
        current = best.get(item.chat_id)
        if current is None or (
            item.kind is OutboxKind.POST
            and (current.kind is not OutboxKind.POST or item.id < current.id)
        ):
            best[item.chat_id] = item

    return sorted(best.values(), key=lambda item: urgency.rank(item, now))
