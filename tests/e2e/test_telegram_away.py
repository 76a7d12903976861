"""Telegram out of reach, or slow to answer, as the bot meets it: every call cut for a while, a
message that Telegram posts but answers only after a long pause. Players cannot move while the
API is away, so their turn clocks stop; a slow answer is waited for, not sent again."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import JSONDict
from fakebot.server import FakeTelegram

from .driver import ENV_FAST, TURN_MARK, Table, actions, rows

pytestmark = pytest.mark.e2e

DEAL_OVER = re.compile(r"Deal 1 is over")


@pytest.mark.waits(22)
async def test_turn_timers_stop_while_telegram_cannot_be_reached(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    # A person's turn lasts 6 s (60 s x 0.1); the computers move at once.
    bot = bot_process(env={**ENV_FAST, "KOZEL_TIMEOUT_SCALE": "0.1"})
    await bot.start()
    anna = fake.add_user("Anna")
    group = fake.add_group("Kozel club", [anna], admins=[anna])
    table = Table(fake, group, hand_wait=20.0, press_wait=15.0)
    await table.start_private(anna)
    await table.open(anna, "street")
    for level in ("basic", "random", "basic"):
        await table.add_computer(anna, level)
    await table.start(anna)

    def her_turn() -> bool:
        hand = table.hand(anna)
        return hand is not None and TURN_MARK in (hand.text or "")

    await fake.wait_for(her_turn, timeout=20, what="Anna's turn")
    before = len(actions(bot.db))
    fake.inject_fault("*", "drop", during=20.0)  # Telegram is out of reach for 20 s
    await asyncio.sleep(21.0)

    during = actions(bot.db)[before:]
    charged = [(seat, text, by) for seat, text, by in during if by == "timeout"]
    assert charged == [], f"{len(during)} moves while Telegram was away, timeouts: {charged}"
    away = rows(bot.db, "SELECT name FROM seats WHERE away = 1")
    assert away == [], f"a computer plays for {away}"
    # Her clock runs again with the time she had left (at most the 6 s of a turn).
    left = [
        float(str(due)) - time.time()
        for (due,) in rows(bot.db, "SELECT due_at FROM timers WHERE kind = 'timeout'")
    ]
    assert len(left) == 1 and 0.0 < left[0] <= 6.0, left
    log = bot.log_text()
    assert log.count("Telegram cannot be reached") == 1, log[-3000:]
    assert log.count("Telegram answers again") == 1, log[-3000:]
    assert log.count("Traceback") == 0, log[log.index("Traceback") - 300 :][:3000]
    # Once Telegram answers again, she plays her card as if nothing had happened.
    humans = sum(1 for _, _, by in during if by == "human")
    await table.play(
        [anna],
        until=lambda: sum(1 for _, _, by in actions(bot.db) if by == "human") > humans,
        timeout=30,
    )
    assert all(p.answered_at is not None for p in fake.press_log)


@pytest.mark.waits(15)
async def test_a_post_telegram_answers_late_is_posted_once(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env={**ENV_FAST, "KOZEL_TIMEOUT_SCALE": "1000"})
    await bot.start()
    anna = fake.add_user("Anna")
    group = fake.add_group("Kozel club", [anna], admins=[anna])
    table = Table(fake, group)
    await table.start_private(anna)
    await table.open(anna, "ziege")
    for level in ("basic", "random", "basic"):
        await table.add_computer(anna, level)
    await table.start(anna)

    slowed: list[float] = []

    def deal_result(params: JSONDict) -> bool:
        if DEAL_OVER.search(str(params.get("text", ""))):
            slowed.append(time.monotonic())
            return True
        return False

    # Telegram posts the result at once but answers only 12 s later. The result takes the
    # place of its deal's table (an edit); sent anew only if that message is gone.
    for method in ("editMessageText", "sendMessage"):
        fake.inject_fault(method, "slow", seconds=12.0, when=deal_result)
    await table.play([anna], until=lambda: bool(slowed), timeout=120)
    await asyncio.sleep(max(0.0, slowed[0] + 14.0 - time.monotonic()))

    posts = [
        m
        for m in fake.messages(group, from_bot=True)
        if any(DEAL_OVER.search(v.text or "") for v in m.versions)
    ]
    assert len(posts) == 1, [m.message_id for m in posts]
