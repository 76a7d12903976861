"""What an operator reads: the table's life by ids at INFO, JSON lines for log shippers, and no
secret (the token, the database password) in any line, even at DEBUG."""

from __future__ import annotations

import json
import re

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.process import BotProcess
from fakebot.server import TEST_TOKEN, FakeTelegram

from .driver import BOTH_BACKENDS, ENV_FAST, Table

pytestmark = pytest.mark.e2e

PASSWORD = "s3cret-Pa55word"
NAMES = ("Anna", "Boris")
GROUP = "Kozel club"


async def play_a_match(fake: FakeTelegram, bot: BotProcess) -> Table:
    """Two people play a whole Moscow match; returns the table."""
    await bot.start()
    users = [fake.add_user(name) for name in NAMES]
    group = fake.add_group(GROUP, users, admins=users[:1])
    table = Table(fake, group)
    for user in users:
        await table.start_private(user)
    await table.open(users[0], "moscow goat=6")
    await table.join(users[1])
    await table.start(users[0])
    await table.play(users)
    await bot.stop()
    return table


def with_password(url: str) -> str:
    """The test cluster trusts local connections: a password in the URL is accepted unread."""
    return url.replace("postgresql://postgres@", f"postgresql://postgres:{PASSWORD}@", 1)


@BOTH_BACKENDS
async def test_a_debug_run_never_writes_the_token_nor_the_password(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env={**ENV_FAST, "KOZEL_LOG_LEVEL": "DEBUG"})
    if bot.database_url is not None:
        bot.extra_env["KOZEL_DATABASE_URL"] = with_password(bot.database_url)
    await play_a_match(fake_telegram, bot)

    output = bot.log_text()
    assert output.count("\n") > 1000, "a DEBUG run logs every request"
    assert "/bot***/getUpdates" in output, "the request URLs are logged, masked"
    assert TEST_TOKEN not in output
    assert PASSWORD not in output


async def test_info_shows_the_table_life_by_ids_and_no_names(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env={**ENV_FAST, "KOZEL_LOG_LEVEL": "INFO"})
    table = await play_a_match(fake_telegram, bot)

    output = bot.log_text()
    chat = table.group.id
    events = re.findall(rf"INFO bot\.tables: table (\d+) chat {chat}: (.*)", output)
    assert events, output
    assert {table_id for table_id, _ in events} == {events[0][0]}
    # "started variant=moscow seats=2": the event, then its ids
    said = [" ".join(w for w in rest.split() if "=" not in w) for _, rest in events]
    assert said[:2] == ["opened", "started"]
    assert "deal ended" in said
    assert said[-1] == "match ended"
    for name in (*NAMES, GROUP):
        assert name not in output


async def test_json_lines_carry_the_ids_as_fields(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env={**ENV_FAST, "KOZEL_LOG_LEVEL": "INFO", "KOZEL_LOG_FORMAT": "json"})
    table = await play_a_match(fake_telegram, bot)

    lines = [line for line in bot.log_text().splitlines() if not line.startswith("====")]
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert {"time", "level", "logger", "message"} <= set(records[0])
    table_events = [r for r in records if r["logger"] == "bot.tables"]
    assert [r["event"] for r in table_events][:2] == ["opened", "started"]
    assert table_events[-1]["event"] == "match ended"
    assert {r["chat"] for r in table_events} == {table.group.id}
    assert all(isinstance(r["table"], int) for r in table_events)
