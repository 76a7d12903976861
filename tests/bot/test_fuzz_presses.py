"""10,000 random, forged, stale, foreign and replayed presses against a running match change no
table, no seat and no ladder line, and every one is answered (no use case raises).

In process, with the fake ports (the real process answers the same use cases; the e2e suite
sends a sample of these through it). Seeded: a failure names the press that caused it."""

from __future__ import annotations

import random
import sqlite3
import string
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from service_fakes import (
    GROUP,
    PEOPLE,
    FakeMessenger,
    fire,
    make_core,
    no,
    seat_four,
    settle,
)

from bot import callback
from bot.callback import Callback, Op
from bot.service import closing, lobby
from bot.service.core import Core
from bot.service.ports import ChatInfo, Person
from bot.service.reply import Press
from bot.storage import SqliteStorage, TableStatus
from bot.telegram.routes import ROUTES

PRESSES = 10_000
OTHER = ChatInfo(-200, "Other club", is_private=False)
GONE = ChatInfo(-300, "Old club", is_private=False)
STRANGERS = [Person(900 + i, f"Stranger {i}", None, "de") for i in range(3)]
HOSTS = [Person(800 + i, f"Host {i}", None, "ja") for i in range(3)]
HAND_OPS = (Op.TOGGLE, Op.ACT, Op.CLEAR, Op.BACK)
LOBBY_OPS = (
    Op.JOIN,
    Op.LEAVE,
    Op.ADD_COMPUTER,
    Op.REMOVE_COMPUTER,
    Op.VARIANT,
    Op.OPTION,
    Op.START,
)
ARG_CHARS = string.ascii_letters + string.digits + "_-"
SNAPSHOT = {
    "tables": "SELECT id, status, version, match_state, note, table_message_id, lobby_message_id"
    " FROM game_tables ORDER BY id",
    "seats": "SELECT table_id, seat, user_id, name, ai_level, timeouts, away, deadline, selection"
    " FROM seats ORDER BY table_id, seat",
    "matches": "SELECT count(*) FROM matches",
    "ladder": "SELECT * FROM ladder_standings ORDER BY chat_id, player, season, variant",
    "seasons": "SELECT * FROM ladder_seasons",
    "ratings": "SELECT count(*) FROM rating_changes",
}


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[SqliteStorage]:
    # NORMAL: a press that changes nothing still remembers its user; fsyncs would dominate.
    store = await SqliteStorage.open(str(tmp_path / "kozel.sqlite3"), synchronous="NORMAL")
    yield store
    await store.close()


def snapshot(path: str) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(path) as conn:
        return {name: conn.execute(sql).fetchall() for name, sql in SNAPSHOT.items()}


def private(person: Person) -> ChatInfo:
    return ChatInfo(person.user_id, person.first_name, is_private=True)


async def world(core: Core, messenger: FakeMessenger) -> tuple[int, list[str]]:
    """A running match in GROUP (a few plies in), a lobby in OTHER, a cancelled table in GONE;
    returns the match's id and every button the bot ever showed (to replay)."""
    table = await seat_four(core, timer=60)
    shown: set[str] = set()
    for _ in range(6):  # the timer plays a few turns: older buttons go stale
        await fire(core, table.id, "timeout")
        await settle(core)
        shown |= buttons(messenger)
    await lobby.new_game(core, OTHER, HOSTS[0], "moscow")
    other = await core.storage.tables.active_for_chat(OTHER.chat_id)
    assert other is not None
    await lobby.new_game(core, GONE, HOSTS[1], "ziege")
    gone = await core.storage.tables.active_for_chat(GONE.chat_id)
    assert gone is not None
    await settle(core)
    shown |= buttons(messenger)
    await closing.close_table(core, gone.id, reason="test")
    await settle(core)
    return table.id, sorted(shown)


def buttons(messenger: FakeMessenger) -> set[str]:
    return {
        b.data
        for m in messenger.messages.values()
        for row in m.screen.buttons
        for b in row
        if b.data is not None
    }


def forged_data(rng: random.Random, tables: list[int], ply: int, replay: list[str]) -> str:
    roll = rng.random()
    if roll < 0.3:
        return rng.choice(replay)
    if roll < 0.4:  # not our format at all
        alphabet = string.printable + "ёжз🐐:"
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
    op = rng.choice(list(Op)).value if rng.random() < 0.9 else rng.choice(["x", "kick", "tog2"])
    table = rng.choice([*tables, 0, 999_999, 2**40])
    version = rng.choice([ply, ply - 1, ply + 1, 0, 1, rng.randrange(10**9)])
    arg = rng.choice(
        [
            "",
            "".join(rng.choice(ARG_CHARS) for _ in range(rng.randint(1, 30))),
            rng.choice("LBDMWPGR") + "".join(rng.choice(ARG_CHARS) for _ in range(4)),
            rng.choice(ARG_CHARS),
        ]
    )
    data = f"v1:{table}:{max(version, 0)}:{op}"
    return f"{data}:{arg}" if arg else data


async def would_change(core: Core, cb: Callback, person: Person) -> bool:
    """Whether the press is a real one (a seated player's current move, a lobby press in its
    group): those may change a table, and are not what this test sends."""
    table = await core.storage.tables.get(cb.table)
    if table is None or not table.is_active:
        return False
    if table.status == TableStatus.LOBBY:
        return cb.op in (*LOBBY_OPS, Op.CANCEL)
    seat = next((s.seat for s in table.seats if s.user_id == person.user_id), None)
    if seat is None or cb.op not in HAND_OPS:
        return False
    if cb.op is Op.BACK:
        return table.seats[seat].away  # at any ply: the table moves on while they reach for it
    match = core.matches.of(table)
    if cb.version != match.ply or table.seats[seat].away:
        return False
    if cb.op is Op.ACT:
        try:
            action = callback.decode_action(seat, cb.arg)
        except callback.CallbackDataError:
            return False
        return action in match.legal_actions(seat)
    if cb.op is Op.TOGGLE:
        try:
            return callback.decode_card(cb.arg) in match.view(seat).hand
        except callback.CallbackDataError:
            return False
    return True  # clearing a selection saves the seat


async def test_ten_thousand_untrusted_presses_change_nothing_and_all_are_answered(
    storage: SqliteStorage,
) -> None:
    rng = random.Random(20261202)
    messenger = FakeMessenger()
    core = make_core(storage, messenger)
    table_id, replay = await world(core, messenger)
    tables = [t.id for t in await storage.tables.active()] + [table_id + 2]
    match_table = await storage.tables.get(table_id)
    assert match_table is not None
    ply = core.matches.of(match_table).ply
    before = snapshot(storage.path)
    people = [*PEOPLE, *STRANGERS, *HOSTS]
    chats = [GROUP, OTHER, GONE, *(private(p) for p in people)]

    sent = skipped = unparsable = 0
    started = time.monotonic()
    while sent < PRESSES:
        data = forged_data(rng, tables, ply, replay)
        person = rng.choice(people)
        chat = rng.choice([private(person), *chats] if rng.random() < 0.5 else chats)
        try:
            cb = callback.parse(data)
        except callback.CallbackDataError:
            unparsable += 1  # the adapter answers these itself: "This button is not valid."
            sent += 1
            continue
        if await would_change(core, cb, person):
            skipped += 1
            continue
        answer = await ROUTES[cb.op](core, Press(cb, person, chat, no))
        if cb.op in (*HAND_OPS, *LOBBY_OPS, Op.CANCEL):
            assert answer.text or answer.url, f"press {sent}: {data!r} by {person} got no answer"
        sent += 1
    elapsed = time.monotonic() - started
    assert snapshot(storage.path) == before
    assert unparsable < PRESSES / 2 and skipped < PRESSES / 4  # most reach a use case
    print(
        f"{sent} presses ({unparsable} unparsable, {skipped} real ones skipped) in {elapsed:.1f} s"
    )
