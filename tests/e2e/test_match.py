"""Whole matches through the real bot process and the fake Bot API: people tapping buttons."""

from __future__ import annotations

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram

from .driver import ENV_FAST, Table

pytestmark = pytest.mark.e2e


async def test_street_match_with_four_people(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    users = [fake_telegram.add_user(name) for name in ("Anna", "Boris", "Vera", "Gleb")]
    group = fake_telegram.add_group("Kozel club", users, admins=users[:1])
    table = Table(fake_telegram, group)
    for user in users:
        await table.start_private(user)
    await table.open(users[0], "street")
    for user in users[1:]:
        await table.join(user)
    await table.start(users[0])
    await table.play(users)
    assert table.match_over()
    fake_telegram.assert_no_unknown_calls()
