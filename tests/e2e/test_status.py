"""The owner's ``/status``: the bot's figures in the owner's private chat, and nothing for
anybody else or anywhere else."""

from __future__ import annotations

import asyncio

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram

from .driver import ENV_FAST, Table

pytestmark = pytest.mark.e2e


async def test_only_the_owner_sees_the_status_in_private(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    owner = fake_telegram.add_user("Olga")
    anna = fake_telegram.add_user("Anna")
    group = fake_telegram.add_group("Kozel club", [owner, anna], admins=[anna])
    bot = bot_process(env={**ENV_FAST, "KOZEL_OWNER_ID": str(owner.id)})
    await bot.start()
    table = Table(fake_telegram, group)
    for user in (owner, anna):
        await table.start_private(user)
    await table.open(anna, "street")  # one table waiting, one person at it

    mark = fake_telegram.mark()
    await anna.send(anna, "/status")  # not the owner
    await owner.send(group, "/status")  # the owner, but not in private
    fake_telegram.inject_error("sendMessage", 429, retry_after=1)  # the next reply waits once
    await owner.send(owner, "/status")
    first = await fake_telegram.wait_for_message(owner, since=mark, timeout=10)
    mark_again = fake_telegram.mark()
    await owner.send(owner, "/status")
    status = await fake_telegram.wait_for_message(owner, since=mark_again, timeout=10)

    text = status.text or ""
    assert "The bot now" in (first.text or "") and "The bot now" in text
    assert "Tables waiting to start: 1" in text
    assert "Matches being played: 0" in text
    assert "People at the tables: 1" in text
    assert "Flood answers (429) from Telegram in the last hour: 1" in text
    assert "Bot processes running: 1" in text
    assert "Every background task runs." in text
    await asyncio.sleep(0.5)  # the others' updates came before the owner's two: long handled
    assert not [m for m in fake_telegram.messages(anna) if m.from_bot and m.changed_seq > mark]
    group_texts = [m.text or "" for m in fake_telegram.messages(group) if m.changed_seq > mark]
    assert not [text for text in group_texts if "The bot now" in text]
