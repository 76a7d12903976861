"""A sample of the in-process fuzz (tests/bot/test_fuzz_presses.py) through the real process:
random, forged, stale, foreign and replayed presses on a running match are all answered and
change no table, no seat and no ladder line."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import string
from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram
from fakebot.users import SimUser

from .driver import ENV_FAST, open_table

pytestmark = pytest.mark.e2e

PRESSES = 300
# The table's own ops and an unknown one (a forged menu press, such as rules pressed on the
# table message, is another test's matter).
OPS = ("join", "leave", "bot", "unbot", "var", "start", "cancel", "tog", "act", "clr", "back")
OPS += ("zzz",)
STATE = (
    "SELECT id, status, version, match_state, note FROM game_tables ORDER BY id",
    "SELECT table_id, seat, user_id, timeouts, away, selection FROM seats ORDER BY 1, 2",
    "SELECT count(*) FROM matches",
    "SELECT count(*) FROM ladder_standings",
)


def state(db: Path) -> list[list[tuple[object, ...]]]:
    with sqlite3.connect(db) as conn:
        return [conn.execute(sql).fetchall() for sql in STATE]


def ply_of(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(
            conn.execute("SELECT count(*) FROM table_log WHERE kind = 'action'").fetchone()[0]
        )


def forged(rng: random.Random, seen: list[str], ply: int, *, seated: bool) -> str:
    if rng.random() < 0.3 and seen:
        data = rng.choice(seen)
        parts = data.split(":")
        if seated and len(parts) >= 4 and parts[2] == str(ply):
            parts[2] = str(max(ply - rng.randint(1, 5), 0))  # replayed: an older screen's
        return ":".join(parts)
    if rng.random() < 0.2:
        return "".join(rng.choice(string.printable) for _ in range(rng.randint(1, 70)))
    table = rng.choice([1, 2, 0, 77_777])
    version = rng.choice([ply + 1, max(ply - 1, 0), 0, 10**8]) if seated else ply
    arg = "".join(
        rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(0, 6))
    )
    data = f"v1:{table}:{version}:{rng.choice(OPS)}"
    return f"{data}:{arg}" if arg else data


async def test_untrusted_presses_through_the_real_bot_change_nothing_and_are_answered(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    env = {**ENV_FAST, "KOZEL_TIMEOUT_SCALE": "1000"}  # nothing moves unless a player plays
    names = ("Anna", "Boris", "Vera", "Gleb")
    table, users, bot = await open_table(
        fake_telegram, bot_process, names, "street", seated=4, env=env
    )
    await table.start(users[0])
    strangers = [fake_telegram.add_user(n) for n in ("Eve", "Mallory")]
    for stranger in strangers:
        table.group.members.append(stranger)
    await table.play(users, until=lambda: ply_of(bot.db_path) >= 3)
    await asyncio.sleep(0.5)
    seen = sorted(
        b.callback_data
        for chat in (table.group, *users)
        for m in fake_telegram.messages(chat)
        for b in m.buttons
        if b.callback_data and b.callback_data.split(":")[3:4] != ["rules"]
    )
    ply = ply_of(bot.db_path)
    before = state(bot.db_path)
    rng = random.Random(11)

    async def one(user: SimUser, seated: bool) -> None:
        data = forged(rng, seen, ply, seated=seated)
        if seated:
            hand = table.hand(user)
            assert hand is not None
            chat: object = user
            message_id = hand.message_id
        else:
            chat, message_id = table.group, fake_telegram.messages(table.group)[-1].message_id
        answer = await user.press(chat, message_id, data, forged=True)  # type: ignore[arg-type]
        assert answer.text or answer.url, f"{data!r} by {user.first_name}: no answer text"

    for _ in range(PRESSES // 10):
        batch = [(u, True) for u in rng.sample(users, 2)] + [(s, False) for s in strangers] * 4
        await asyncio.gather(*(one(u, seated) for u, seated in batch))
    assert state(bot.db_path) == before
    assert ply_of(bot.db_path) == ply
    # The match still goes on for the real players.
    await table.play(users, until=lambda: ply_of(bot.db_path) > ply + 1)
    fake_telegram.assert_no_unknown_calls()
