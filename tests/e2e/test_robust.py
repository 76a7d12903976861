"""Untrusted presses change nothing; a killed bot continues from its last accepted move."""

from __future__ import annotations

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.process import BotProcess
from fakebot.server import FakeTelegram
from fakebot.users import SimUser

from .driver import (
    BOTH_BACKENDS,
    TOGGLED,
    TURN_MARK,
    Table,
    current_ply,
    is_hand,
    op_of,
    open_table,
    table_log,
)

pytestmark = pytest.mark.e2e


async def street_table(
    fake: FakeTelegram, bot_process: BotProcessFactory
) -> tuple[Table, list[SimUser], BotProcess]:
    names = ("Anna", "Boris", "Vera", "Gleb")
    table, users, bot = await open_table(fake, bot_process, names, "street goat=6", seated=4)
    await table.start(users[0])
    return table, users, bot


async def whose_turn(table: Table, users: list[SimUser]) -> SimUser:
    def find() -> SimUser | None:
        for user in users:
            hand = table.hand(user)
            if hand is not None and TURN_MARK in (hand.text or ""):
                return user
        return None

    return await table.server.wait_for(find, what="someone's turn")


async def test_stale_repeated_foreign_and_forged_presses_change_nothing(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, bot = await street_table(fake_telegram, bot_process)
    db = bot.db
    for _ in range(30):
        mover = await whose_turn(table, users)
        hand = table.hand(mover)
        assert hand is not None
        card = next(b for b in hand.buttons if op_of(b) == "tog" and not b.text.startswith("("))
        mark = fake_telegram.mark()
        text = (await mover.press(mover, hand.message_id, card.callback_data or "")).text
        if not text or text.startswith(TOGGLED):
            break  # a card chosen: the hand shows the ways to play it
        # A card that can be played one way only is played by the tap itself.
        assert (text or "").startswith("Played"), text
        await fake_telegram.wait_for_message(mover, is_hand, since=mark)
    other = next(u for u in users if u is not mover)
    hand = await fake_telegram.wait_for_message(mover, is_hand, since=mark)
    confirm = next(b for b in hand.buttons if op_of(b) == "act")
    data = confirm.callback_data or ""
    ply = current_ply(db)

    # Foreign: another player sends the mover's button data from their own chat.
    other_hand = table.hand(other)
    assert other_hand is not None
    answer = await other.press(other, other_hand.message_id, data, forged=True)
    assert answer.text and answer.show_alert
    # Forged: data for a table that does not exist, and data that is not ours at all.
    table_id = data.split(":")[1]
    forged = data.replace(f"v1:{table_id}:", "v1:999999:", 1)
    answer = await mover.press(mover, hand.message_id, forged, forged=True)
    assert "over or was cancelled" in (answer.text or "")
    answer = await mover.press(mover, hand.message_id, "v1:1:0:act:Lzzzz", forged=True)
    assert answer.text
    answer = await mover.press(mover, hand.message_id, "not-our-data", forged=True)
    assert answer.text == "This button is not valid."
    assert current_ply(db) == ply

    # The real press, then the same press again (a double tap, or a stale client).
    answer = await mover.press(mover, hand.message_id, data)
    assert (answer.text or "").startswith("Played")
    answer = await mover.press(mover, hand.message_id, data, forged=True)
    assert "out of date" in (answer.text or "")
    assert current_ply(db) == ply + 1
    fake_telegram.assert_no_unknown_calls()


@BOTH_BACKENDS
async def test_a_killed_bot_continues_mid_trick(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, bot = await street_table(fake_telegram, bot_process)
    db = bot.db
    await table.play(users, until=lambda: current_ply(db) >= 2)
    before = table_log(db)
    ply = current_ply(db)
    bot.kill()
    mark = fake_telegram.mark()
    await bot.start()
    # Every table and hand message is re-rendered (edited in place) after the restart.
    await fake_telegram.wait_for_call(
        "editMessageText", lambda c: c.params.get("chat_id") == table.group.id, since=mark
    )
    assert current_ply(db) == ply
    assert table_log(db)[: len(before)] == before
    await table.play(users)
    assert table.match_over()
    fake_telegram.assert_no_unknown_calls()
