"""Safe in public groups: one seat per person even when two groups are joined at the same
moment, no escaping a loss by /cancel or /kick, chosen cards cost no write of the table, and
computers do not play alone."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram
from fakebot.users import SimGroup, SimUser

from .driver import ENV_FAST, TOGGLED, TURN_MARK, Table, op_of

pytestmark = pytest.mark.e2e


async def said(fake: FakeTelegram, user: SimUser, group: SimGroup, text: str) -> str:
    """The bot's reply to ``text`` (a message that answers it, not a table edit)."""
    mark = fake.mark()
    sent = await user.send(group, text)
    reply = await fake.wait_for_message(
        group,
        lambda m: m.reply_to is not None and m.reply_to.message_id == sent.message_id,
        since=mark,
    )
    return reply.text or ""


def table_version(db: Path) -> tuple[int, float]:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT version, updated_at FROM game_tables").fetchone()
    return int(row[0]), float(row[1])


async def test_joining_two_groups_at_the_same_moment_gives_one_seat(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna, boris, eve = fake.add_user("Anna"), fake.add_user("Boris"), fake.add_user("Eve")
    tables = []
    for title, opener in (("First club", anna), ("Second club", boris)):
        group = fake.add_group(title, [opener, eve], admins=[opener])
        table = Table(fake, group)
        await table.start_private(opener)
        await table.open(opener, "street")
        tables.append(table)
    await tables[0].start_private(eve)
    answers = await asyncio.gather(
        *(eve.press_button(t.group, t.lobby_id, contains="Join") for t in tables)
    )
    texts = [a.text or "" for a in answers]
    assert texts.count("You joined the table.") == 1, texts
    assert any(text.startswith("You already play at a table in ") for text in texts), texts
    await asyncio.sleep(0.5)  # both lobbies are shown as they stand
    assert sum("Eve" in t.lobby_text() for t in tables) == 1


async def test_a_player_cannot_escape_a_match_by_cancel_or_kick(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna, boris = fake.add_user("Anna"), fake.add_user("Boris")
    group = fake.add_group("Kozel club", [anna, boris], admins=[anna])
    table = Table(fake, group)
    await table.start_private(anna)
    await table.open(anna, "moscow goat=6")
    await table.add_computer(anna)
    await table.start(anna)
    # Anna opened the table and is an admin, but she plays: she cannot cancel the match.
    reply = await said(fake, anna, group, "/cancel")
    assert reply.startswith("You play in this match, so you cannot cancel it"), reply
    reply = await said(fake, boris, group, "/cancel")
    assert reply == "Only a chat admin who does not play in it can cancel a running match."
    # She leaves her seat to a computer: the match plays on, and counts for her.
    own = fake.messages(group, from_bot=False)[0]
    mark = fake.mark()
    await anna.send(group, "/kick", reply_to=own.message_id)
    await fake.wait_for_message(
        group, lambda m: m.text == "Anna was removed from the table.", since=mark
    )
    reply = await said(fake, anna, group, "/cancel")
    assert reply.startswith("You play in this match"), reply
    await fake.wait_for(table.match_over, timeout=120, what="the computers to finish")
    top = await said(fake, boris, group, "/top")
    assert "Anna" in top, top


async def test_choosing_cards_writes_no_table_and_computers_do_not_play_alone(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    host, anna = fake.add_user("Host"), fake.add_user("Anna")
    group = fake.add_group("Kozel club", [host, anna], admins=[host])
    # The host never talked to the bot privately: the table opens without his seat.
    lonely = Table(fake, group)
    await lonely.open(host, "street")
    for _ in range(4):
        await lonely.add_computer(host)
    answer = await host.press_button(group, lonely.lobby_id, contains="Start")
    assert answer.show_alert and answer.text == "At least one person has to sit at the table."
    await said(fake, host, group, "/cancel")

    table = Table(fake, group)
    await table.start_private(anna)
    await table.open(anna, "moscow")
    await table.add_computer(anna)
    await table.start(anna)
    for _ in range(30):
        hand = await fake.wait_for(
            lambda: (h := table.hand(anna)) is not None and TURN_MARK in (h.text or "") and h,
            what="Anna's turn",
        )
        card = next(b for b in hand.buttons if op_of(b) == "tog" and not b.text.startswith("("))
        before = table_version(bot.db_path)
        mark = fake.mark()
        answer = await anna.press(anna, hand.message_id, card.callback_data or "")
        if (answer.text or "").startswith(TOGGLED):  # chosen: the hand shows it, the table
            # is as it was; the answer says what is chosen
            assert (answer.text or "").startswith("Selected: ")
            shown = await fake.wait_for_message(anna, since=mark)
            assert f"✅{card.text}" in [b.text for b in shown.buttons], shown.buttons
            assert table_version(bot.db_path) == before
            return
        assert (answer.text or "").startswith("Played"), answer.text
        await fake.wait_for_message(anna, since=mark)
    pytest.fail("every card Anna tapped was played at once")
