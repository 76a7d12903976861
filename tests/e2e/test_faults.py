"""Telegram having a bad minute: 5xx answers, slow answers and dropped connections on every
method the bot uses, at several tables at once. The bot keeps every accepted move, answers
every press once the API is back, and every table plays to its end with all its results."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram

from .driver import ENV_FAST, MATCH_OVER, Table

pytestmark = [pytest.mark.e2e, pytest.mark.waits(18)]

DEAL_OVER = re.compile(r"Deal (\d+) is over")
METHODS = ("sendMessage", "editMessageText", "deleteMessage", "answerCallbackQuery")
# No turn timer in the way (60 s * 1000): a player who cannot see their cards is not timed out.
ENV = {**ENV_FAST, "KOZEL_TIMEOUT_SCALE": "1000"}


def query(db: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


async def storm(fake: FakeTelegram) -> None:
    """Some 15 seconds of trouble, in waves (each short enough for a press to be answered
    within Telegram's 15 s once it reaches the bot)."""
    # Polling fails a few times in a row (PTB waits longer after each: 1, 1.5, 2.25 s), and
    # messages fail meanwhile.
    fake.inject_error("getUpdates", 502, "Bad Gateway", times=2)
    fake.inject_fault("getUpdates", "drop", times=1)
    for method in ("sendMessage", "editMessageText", "deleteMessage"):
        fake.inject_fault(method, "drop", times=2)
        fake.inject_error(method, 500, times=2)
    await asyncio.sleep(5.0)
    # Answers to presses fail: refused, cut, late.
    fake.inject_error("answerCallbackQuery", 500, times=2)
    fake.inject_fault("answerCallbackQuery", "drop", times=1)
    fake.inject_fault("answerCallbackQuery", "slow", seconds=6, times=1)  # beyond PTB's 5 s
    await asyncio.sleep(5.0)
    # Telegram is slow to take messages, and cuts some.
    for method in ("sendMessage", "editMessageText"):
        fake.inject_fault(method, "slow", seconds=6, times=1)
        fake.inject_fault(method, "drop", times=1)
    fake.inject_error("answerCallbackQuery", 502, "Bad Gateway", times=1)
    await asyncio.sleep(5.0)


async def test_faults_on_every_method_lose_no_move_and_every_table_finishes(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV)
    await bot.start()
    tables = []
    for number in range(3):
        player = fake_telegram.add_user(f"Player {number}")
        group = fake_telegram.add_group(f"Club {number}", [player], admins=[player])
        # Edits may wait for the API; a press is answerable for 15 s (as in Telegram).
        table = Table(fake_telegram, group, hand_wait=30.0, press_wait=15.0)
        await table.start_private(player)
        await table.open(player, "street")
        for level in ("basic", "random", "basic"):
            await table.add_computer(player, level)
        await table.start(player)
        tables.append((table, player))

    trouble = asyncio.create_task(storm(fake_telegram))
    await asyncio.gather(*(table.play([player], timeout=120) for table, player in tables))
    await trouble

    statuses = [str(s) for (s,) in query(bot.db_path, "SELECT status FROM game_tables")]
    assert statuses == ["finished"] * 3
    # Every kind of trouble happened. Not to deletions: they are rare now (a deal's table is
    # edited into its result rather than replaced), so the storm may find none to fail.
    for method in METHODS:
        if method == "deleteMessage":
            continue
        calls = fake_telegram.calls_to(method)
        assert any(c.status >= 500 for c in calls), method
        assert any(c.status == 0 for c in calls), method
    assert any(c.status == 502 for c in fake_telegram.calls_to("getUpdates"))
    # Every press was answered, and every move a player was told of is in the database.
    assert all(p.answered_at is not None for p in fake_telegram.press_log)
    played = sum(1 for a in fake_telegram.callback_answers if (a.text or "").startswith("Played"))
    (humans,) = query(
        bot.db_path, "SELECT count(*) FROM table_log WHERE kind = 'action' AND by = 'human'"
    )
    assert played == humans[0]
    # Every group got every deal's result (a timed-out send may have come twice) and the end.
    for table, _ in tables:
        (deals,) = query(
            bot.db_path,
            f"""SELECT count(*) FROM table_log JOIN game_tables ON game_tables.id = table_id
                WHERE kind = 'deal' AND chat_id = {table.group.id}""",
        )

        def posted(table: Table = table) -> list[int]:
            texts = [m.text or "" for m in fake_telegram.messages(table.group)]
            return sorted({int(m.group(1)) for t in texts for m in DEAL_OVER.finditer(t)})

        await fake_telegram.wait_for(
            lambda table=table: table.match_over(), timeout=60, what="the match result"
        )
        assert posted() == list(range(1, int(deals[0]) + 1))
        assert MATCH_OVER in "".join(m.text or "" for m in fake_telegram.messages(table.group))
