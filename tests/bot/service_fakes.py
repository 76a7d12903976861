"""In-process doubles for the service's ports: a messenger that remembers every message; the
timers are the real ones (stored rows, run by the real ``TimerRunner``), the test only says
when one is due. With them a whole table plays without Telegram."""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from bot.callback import Callback, Op, encode_action
from bot.screen import Screen
from bot.service import due_jobs, lobby, moves
from bot.service.budget import Budget, Limits
from bot.service.core import Core
from bot.service.feed import seating_key
from bot.service.ports import ChatInfo, MessageGone, Person, TopicGone, Unreachable
from bot.service.reply import Press, Reply
from bot.service.running_settings import Settings
from bot.service.sender import Sender
from bot.service.timer_loop import TimerRunner
from bot.storage import SqliteStorage, TableRecord, Timer
from kozel_rules.view import SeatView


@dataclass
class Message:
    chat_id: int
    message_id: int
    screen: Screen
    notify: bool
    edits: int = 0
    thread_id: int | None = None


@dataclass
class FakeMessenger:
    """Telegram as the service sees it: messages by id, chats that refuse the bot."""

    messages: dict[int, Message] = field(default_factory=dict)
    deleted: list[int] = field(default_factory=list)
    unreachable: set[int] = field(default_factory=set)
    refused: list[int] = field(default_factory=list)  # the chats of calls refused so (403)
    gone_topics: set[tuple[int, int]] = field(default_factory=set)  # (chat, thread)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def send(
        self, chat_id: int, screen: Screen, *, notify: bool = True, thread_id: int | None = None
    ) -> int:
        if chat_id in self.unreachable:
            self.refused.append(chat_id)
            raise Unreachable(f"chat {chat_id} blocked the bot")
        if thread_id is not None and (chat_id, thread_id) in self.gone_topics:
            raise TopicGone("Bad Request: message thread not found")
        message_id = next(self._ids)
        self.messages[message_id] = Message(chat_id, message_id, screen, notify, 0, thread_id)
        return message_id

    async def edit(self, chat_id: int, message_id: int, screen: Screen) -> None:
        if chat_id in self.unreachable:
            self.refused.append(chat_id)
            raise Unreachable(f"chat {chat_id} blocked the bot")
        message = self.messages.get(message_id)
        if message is None or message.chat_id != chat_id:
            raise MessageGone(str(message_id))
        message.screen = screen
        message.edits += 1

    async def delete(self, chat_id: int, message_id: int) -> None:
        if self.messages.pop(message_id, None) is not None:
            self.deleted.append(message_id)

    def in_chat(self, chat_id: int) -> list[Message]:
        return [m for m in self.messages.values() if m.chat_id == chat_id]

    def texts(self, chat_id: int) -> list[str]:
        return [m.screen.text for m in self.in_chat(chat_id)]


GROUP = ChatInfo(-100, "Kozel club", is_private=False)
PEOPLE = [Person(100 + i, name, None, "en") for i, name in enumerate(("Ann", "Bob", "Cid", "Dan"))]


def make_core(
    storage: SqliteStorage,
    messenger: FakeMessenger,
    *,
    ai_level: str = "strong",
    lobby_expiry: float = 1800.0,
    idle_match: float = 86400.0,
) -> Core:
    """The service as production wires it, with the fake messenger; its timers are stored and
    run by the real ``TimerRunner``, whose loop does not run: ``fire`` says when one is due."""
    settings = Settings(
        ai_delay=0.0,
        table_interval=0.0,
        hand_interval=0.0,
        default_ai_level=ai_level,
        lobby_expiry=lobby_expiry,
        idle_match=idle_match,
        ai_budget="2000",  # a tenth of a strong move's search: the same code, far quicker
    )
    runner = TimerRunner(storage.timers, holder="test", claim_seconds=60.0)
    core = Core(storage, messenger, runner, settings, Budget(Limits.of(1e4, 1e4, 1e4)))
    runner.bind(lambda due: due_jobs.fire(core, due))
    return core


# ------------------------------------------------------------------ the stored timers


async def stored(core: Core, table_id: int) -> dict[str, Timer]:
    """The table's stored timers by slot ("ai", "timeout", "expire")."""
    return {timer.slot: timer for timer in await core.storage.timers.of_table(table_id)}


async def due_in(core: Core, table_id: int, slot: str) -> float:
    """Seconds until the table's stored timer ``slot`` is due."""
    return (await stored(core, table_id))[slot].due_at - time.time()


async def fire(core: Core, table_id: int, slot: str) -> None:
    """The table's stored timer ``slot`` is due now, as if its time had come: the timer runner
    claims what is due and runs it, as it does in production. KeyError: no such timer."""
    timer = (await stored(core, table_id))[slot]
    await core.storage.timers.put(table_id, [replace(timer, due_at=time.time())])
    assert await run_due(core) >= 1


async def fire_next(core: Core) -> bool:
    """The soonest stored timer of any table is due now (see ``fire``); False: none is stored."""
    waiting = [
        t
        for table_id in await core.storage.timers.tables()
        for t in await core.storage.timers.of_table(table_id)
    ]
    if not waiting:
        return False
    soonest = min(waiting, key=lambda timer: timer.due_at)
    await fire(core, soonest.table_id, soonest.slot)
    return True


async def run_due(core: Core) -> int:
    """One look of the timer runner: it claims every due timer and runs it to the end.
    Returns how many ran."""
    runner = core.scheduler
    assert isinstance(runner, TimerRunner)
    fired, failed = runner.fired, runner.failed
    await runner.step()
    await runner.idle()
    assert runner.failed == failed, "a timer failed (see the log)"
    return runner.fired - fired


async def open_storage(tmp_path: Path) -> SqliteStorage:
    return await SqliteStorage.open(str(tmp_path / "kozel.sqlite3"))


async def no(*_: object) -> bool:
    return False


def press(table: TableRecord, op: Op, person: Person, *, version: int, arg: str = "") -> Press:
    chat = GROUP if op in LOBBY_OPS else ChatInfo(person.user_id, person.first_name, True)
    return Press(Callback(table.id, version, op, arg), person, chat, no)


LOBBY_OPS = {Op.JOIN, Op.LEAVE, Op.ADD_COMPUTER, Op.REMOVE_COMPUTER, Op.VARIANT, Op.START}


async def settle(core: Core) -> None:
    """Deliver everything the outbox holds (tables and hands render after a commit)."""
    await Sender(core).drain()


async def seat_four(
    core: Core, *, variant: str = "street", timer: int = 60, deliver: bool = True
) -> TableRecord:
    """Four people open a table in GROUP, sit down and start: returns the running table."""
    for person in PEOPLE:
        await lobby.start_private(core, person, "")  # their private chats are open
    await lobby.new_game(core, GROUP, PEOPLE[0], variant)
    table = await core.storage.tables.active_for_chat(GROUP.chat_id)
    assert table is not None
    chat = await core.storage.chats.get(GROUP.chat_id)
    assert chat is not None
    chat.turn_timeout = timer
    await core.storage.chats.upsert(chat)
    for person in PEOPLE[1:]:
        answer = await lobby.join(core, press(table, Op.JOIN, person, version=table.version))
        assert answer.text == "You joined the table."
    table = await reload(core, table)
    start = press(table, Op.START, PEOPLE[0], version=table.version, arg=seating_key(table))
    answer: Reply = await lobby.start(core, start)
    assert answer.text == "The match begins!"
    if deliver:
        await settle(core)
    return await reload(core, table)


async def reload(core: Core, table: TableRecord) -> TableRecord:
    fresh = await core.storage.tables.get(table.id)
    assert fresh is not None
    return fresh


# Fixtures for the service tests (a test module or conftest imports them by name).
@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[SqliteStorage]:
    store = await open_storage(tmp_path)
    yield store
    await store.close()


@pytest.fixture
def messenger() -> FakeMessenger:
    return FakeMessenger()


@pytest.fixture
def core(storage: SqliteStorage, messenger: FakeMessenger) -> Core:
    """The service as production wires it (a module may define its own, with other settings)."""
    return make_core(storage, messenger)


async def play_until(
    core: Core, table: TableRecord, wanted: Callable[[SeatView], bool]
) -> tuple[TableRecord, int]:
    """Play the first legal move of every turn until the seat to move sees ``wanted``."""
    for _ in range(60):
        table = await reload(core, table)
        match = core.matches.of(table)
        seat = match.to_move
        assert seat is not None
        if wanted(match.view(seat)):
            return table, seat
        action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
        arg = encode_action(action)
        cb = press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=arg)
        assert (await moves.act(core, cb)).text.startswith("Played: ")
        await settle(core)
    raise AssertionError("no such turn in 60 plays")
