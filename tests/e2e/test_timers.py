"""No table ever stalls: turn timers, computer stand-ins, "I'm back", restarts."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import StoredMessage
from fakebot.process import BotProcess
from fakebot.server import FakeTelegram
from fakebot.users import SimUser

from .driver import ENV_FAST, TURN_MARK, Table, actions, current_ply, op_of, open_table, rows

pytestmark = pytest.mark.e2e


async def two_people_two_computers(
    fake: FakeTelegram, bot_process: BotProcessFactory, *, scale: str
) -> tuple[Table, list[SimUser], BotProcess]:
    # The default turn timer is 60 s; the scale makes it 60 * scale seconds in tests.
    env = {**ENV_FAST, "KOZEL_TIMEOUT_SCALE": scale}
    table, users, bot = await open_table(
        fake, bot_process, ("Anna", "Boris"), "street", seated=2, env=env
    )
    await table.add_computer(users[0], "basic")
    await table.add_computer(users[0], "random")
    await table.start(users[0])
    return table, users, bot


def back_button_hand(table: Table, user: SimUser) -> StoredMessage | None:
    hand = table.hand(user)
    if hand is not None and any(op_of(b) == "back" for b in hand.buttons):
        return hand
    return None


def waits_for(db: Path | str) -> set[str]:
    """The timers the bot has stored for its one table (see ``bot/storage/timers.py``)."""
    return {str(slot) for (slot,) in rows(db, "SELECT slot FROM timers")}


def turn_due_at(db: Path | str) -> float:
    """When the stored turn timer fires (wall-clock seconds; 0 while there is none)."""
    found = rows(db, "SELECT due_at FROM timers WHERE slot = 'timeout'")
    return max((float(str(due)) for (due,) in found), default=0.0)


def turn_overdue_by_an_hour(db: Path | str) -> None:
    """What an hour of downtime leaves in the database of a stopped bot: the turn's timer and
    its seat's deadline long past (no test waits an hour, nor a turn: only for the bot)."""
    assert isinstance(db, Path), "the bot's SQLite file (the test's default backend)"
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE timers SET due_at = due_at - 3600 WHERE slot = 'timeout'")
        conn.execute("UPDATE seats SET deadline = deadline - 3600 WHERE deadline IS NOT NULL")


def is_turn(table: Table, user: SimUser) -> bool:
    hand = table.hand(user)
    return hand is not None and TURN_MARK in (hand.text or "")


async def test_a_match_with_two_absent_people_completes_on_timers_alone(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, bot = await two_people_two_computers(fake_telegram, bot_process, scale="0.002")
    await fake_telegram.wait_for(table.match_over, timeout=180, what="the match to end")
    played = actions(bot.db_path)
    people = {0, 1}  # Anna and Boris sit at seats 0 and 1; they never press anything
    assert {by for seat, _, by in played if seat in people} <= {"timeout", "computer"}
    # The first two turns of a person time out; then a computer keeps the seat.
    first = [by for seat, _, by in played if seat == 0][:3]
    assert first == ["timeout", "timeout", "computer"]
    texts = table.group_text()
    assert "ran out of time — a computer played for them" in texts
    assert "a computer plays for them until they are back" in texts
    assert back_button_hand(table, users[0]) is not None


@pytest.mark.waits(5)
async def test_im_back_returns_the_seat(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, _ = await two_people_two_computers(fake_telegram, bot_process, scale="0.02")
    anna = users[0]
    hand = await fake_telegram.wait_for(
        lambda: back_button_hand(table, anna), timeout=60, what="Anna's seat taken over"
    )
    for _ in range(30):  # the table moves on while we press: a stale press is answered politely
        button = next(b for b in hand.buttons if op_of(b) == "back")
        answer = await anna.press(anna, hand.message_id, button.callback_data or "", forged=True)
        if "Welcome back" in (answer.text or ""):
            break
        assert "out of date" in (answer.text or "")
        hand = await fake_telegram.wait_for(lambda: back_button_hand(table, anna), timeout=10)
    else:
        pytest.fail("could not press I'm back")
    await fake_telegram.wait_for(lambda: "Anna is back." in table.group_text(), timeout=10)
    await fake_telegram.wait_for(lambda: is_turn(table, anna), timeout=60, what="Anna's turn")
    assert back_button_hand(table, anna) is None


@pytest.mark.waits(15)
async def test_a_restart_during_a_pending_timeout_still_fires_it(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    # 60 s * 0.25 = 15 s: the kill lands inside the turn even when the machine is slow to see
    # that the turn began.
    table, users, bot = await two_people_two_computers(fake_telegram, bot_process, scale="0.25")
    db = bot.db_path
    await fake_telegram.wait_for(
        lambda: any(is_turn(table, u) for u in users), timeout=60, what="a person's turn"
    )
    # ... and nothing else pending (a computer's molodka out of turn would move first).
    await fake_telegram.wait_for(
        lambda: waits_for(db) == {"timeout", "expire"}, timeout=30, what="only the turn timer"
    )
    ply = current_ply(db)
    bot.kill()
    assert current_ply(db) == ply, "the turn ran out before the kill"
    await bot.start()
    # The restarted bot gives the turn afresh (15 s from its start) and then times it out.
    await fake_telegram.wait_for(lambda: current_ply(db) > ply, timeout=120, what="the timeout")
    seat, _, by = actions(db)[ply]
    assert seat in (0, 1)
    assert by == "timeout"


@pytest.mark.waits(11)
@pytest.mark.parametrize("how", ["kill", "stop"])
async def test_after_downtime_longer_than_the_turn_the_player_gets_a_full_turn(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory, how: str
) -> None:
    # 60 s * 0.5 = 30 s a turn: time enough to press after a restart on a loaded machine. The
    # downtime is an hour, written into the stopped bot's database rather than waited.
    table, users, bot = await two_people_two_computers(fake_telegram, bot_process, scale="0.5")
    turn = 60 * 0.5
    db = bot.db_path
    await fake_telegram.wait_for(
        lambda: any(is_turn(table, u) for u in users), timeout=60, what="a person's turn"
    )
    # ... and nothing else pending: a computer holding a molodka may still take the lead out
    # of turn (an "ai" timer, due at once), and would rightly do so after the restart.
    await fake_telegram.wait_for(
        lambda: waits_for(db) == {"timeout", "expire"}, timeout=30, what="only the turn timer"
    )
    ply = current_ply(db)
    if how == "kill":
        bot.kill()
    else:
        await bot.stop()
    turn_overdue_by_an_hour(db)
    assert turn_due_at(db) < time.time()
    restarted = time.time()
    await bot.start()
    # The turn starts afresh when the bot resumes the table: a whole turn from then, not the
    # hour-old deadline (which would fire at once).
    await fake_telegram.wait_for(
        lambda: turn_due_at(db) >= restarted + turn, timeout=60, what="the turn given afresh"
    )
    assert current_ply(db) == ply, "the player to move was auto-played at once"
    await table.play(users, until=lambda: current_ply(db) > ply, timeout=60)
    seat, _, by = actions(db)[ply]
    assert seat in (0, 1) and by == "human", "the player to move was auto-played"
    assert "ran out of time" not in table.group_text()
