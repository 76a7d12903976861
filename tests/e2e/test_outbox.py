"""Every message the bot owes comes from the database: crashes, 429 storms and network trouble
delay the group's results but lose none, and a finished table leaves nothing in memory."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.process import BotProcess
from fakebot.server import FakeTelegram

from .driver import BOTH_BACKENDS, ENV_FAST, Table, rows

pytestmark = [pytest.mark.e2e, BOTH_BACKENDS]

DEAL_OVER = re.compile(r"Deal (\d+) is over")
MATCH_OVER = "The match is over!"
# Computers that play at once: a whole match takes a few seconds.
ENV = {**ENV_FAST, "KOZEL_AI_DELAY": "0.01"}


def db_count(db: Path | str, sql: str) -> int:
    return int(str(rows(db, sql)[0][0]))


def deals_finished(db: Path | str) -> int:
    return db_count(db, "SELECT count(*) FROM table_log WHERE kind = 'deal'")


def is_over(db: Path | str) -> bool:
    return db_count(db, "SELECT count(*) FROM table_log WHERE kind = 'match'") == 1


def results_posted(fake: FakeTelegram, table: Table) -> list[int]:
    """Numbers of the deal results the group received, in order."""
    found = []
    for message in fake.messages(table.group):
        match = DEAL_OVER.search(message.text or "")
        if match:
            found.append(int(match.group(1)))
    return found


async def computer_match(
    fake: FakeTelegram, bot: BotProcess, variant: str = "street goat=6"
) -> Table:
    """A street table of four quick computers, to 6 defeat points unless ``variant`` says
    otherwise (several deals, half a match's time). Computers do not play alone: the opener
    sits down to start it, then leaves his seat to a computer (the result still counts)."""
    host = fake.add_user("Host")
    group = fake.add_group("Kozel club", [host], admins=[host])
    table = Table(fake, group)
    await table.start_private(host)
    await table.open(host, variant)
    for _ in range(3):
        await table.add_computer(host, "basic")
    await table.start(host)
    own = fake.messages(group, from_bot=False)[-1]
    mark = fake.mark()
    await host.send(group, "/kick", reply_to=own.message_id)
    await fake.wait_for_message(group, lambda m: "was removed" in (m.text or ""), since=mark)
    return table


async def wait_until(what: str, check: Callable[[], bool], timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def test_a_deal_result_owed_when_the_bot_is_killed_arrives_after_the_restart(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV)
    await bot.start()
    table = await computer_match(fake_telegram, bot)
    # From now on no message reaches the group: Telegram is having a bad minute.
    broken = [True]
    for method in ("sendMessage", "editMessageText"):  # a deal's result edits its table
        fake_telegram.inject_error(
            method,
            502,
            "Bad Gateway",
            times=10_000,
            when=lambda p: broken[0] and int(p["chat_id"]) < 0,
        )
    await wait_until("the end of deal 1", lambda: deals_finished(bot.db) >= 1)
    bot.kill()
    assert db_count(bot.db, "SELECT count(*) FROM outbox WHERE kind = 'post'") >= 1
    assert results_posted(fake_telegram, table) == []

    # A retry the killed process had already sent may still be on its way to the fake: let it
    # meet the broken API too (Telegram would take it, a repeat the outbox allows for).
    await asyncio.sleep(0.5)
    broken[0] = False
    mark = fake_telegram.mark()
    await bot.start()
    await fake_telegram.wait_for_message(
        table.group, lambda m: "Deal 1 is over" in (m.text or ""), since=mark, timeout=30
    )
    await wait_until("the match to end", lambda: is_over(bot.db), timeout=120)
    await wait_until(
        "every result",
        lambda: MATCH_OVER in "".join(m.text or "" for m in fake_telegram.messages(table.group)),
    )
    assert results_posted(fake_telegram, table) == list(range(1, deals_finished(bot.db) + 1))


async def test_killed_at_random_moments_every_result_still_reaches_the_group(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    rng = random.Random(7)
    # Computers that pause 100 ms a move until the fourth kill: a match of 100 moves or more
    # outlasts the kills (3.2 s of waits and four restarts; at 30 ms one run saw it end first).
    bot = bot_process(env={**ENV, "KOZEL_AI_DELAY": "0.1"})
    await bot.start()
    table = await computer_match(fake_telegram, bot, "street")
    kills = 0
    for _ in range(4):
        await asyncio.sleep(rng.uniform(0.3, 2.0))
        if is_over(bot.db):
            break
        bot.kill()
        kills += 1
        if kills == 4:  # the rest of the match at full speed
            bot.extra_env["KOZEL_AI_DELAY"] = ENV["KOZEL_AI_DELAY"]
        await bot.start()
    assert kills == 4, "the match ended before the fourth kill"
    await wait_until("the match to end", lambda: is_over(bot.db), timeout=180)
    await wait_until(
        "the match result",
        lambda: MATCH_OVER in "".join(m.text or "" for m in fake_telegram.messages(table.group)),
    )
    deals = deals_finished(bot.db)
    posted = results_posted(fake_telegram, table)
    assert sorted(set(posted)) == list(range(1, deals + 1)), posted  # a repeat may be, no loss
    await wait_until(
        "the outbox to empty", lambda: db_count(bot.db, "SELECT count(*) FROM outbox") == 0
    )


@pytest.mark.waits(16)
async def test_a_429_storm_and_network_errors_delay_messages_but_lose_none(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV)
    await bot.start()
    table = await computer_match(fake_telegram, bot)
    group = table.group.id
    for method in ("sendMessage", "editMessageText", "deleteMessage"):
        fake_telegram.inject_error(method, 429, retry_after=1, times=6)
        fake_telegram.inject_error(method, 500, times=2, when=lambda p: int(p["chat_id"]) == group)
    await wait_until("the match to end", lambda: is_over(bot.db), timeout=180)
    await wait_until(
        "the match result",
        lambda: MATCH_OVER in "".join(m.text or "" for m in fake_telegram.messages(table.group)),
        timeout=60,
    )
    deals = deals_finished(bot.db)
    assert results_posted(fake_telegram, table) == list(range(1, deals + 1))
    # After every deal its table became its result and the next deal's table came below:
    # what is left is one result a deal and the match's result, last; no table, no repeat.

    def tables_shown() -> list[int]:
        return [m.message_id for m in fake_telegram.messages(table.group) if is_table(m.text)]

    await wait_until(
        "everything owed to be sent",
        lambda: db_count(bot.db, "SELECT count(*) FROM outbox") == 0,
    )
    assert tables_shown() == []
    assert rows(bot.db, "SELECT table_message_id FROM game_tables") == [(None,)]
    assert MATCH_OVER in (fake_telegram.messages(table.group)[-1].text or "")
    assert not_waited_out(fake_telegram) == []


def not_waited_out(fake: FakeTelegram) -> list[str]:
    """Calls to a chat made before the retry_after of a 429 to that chat had passed."""
    blocked: dict[int, float] = {}
    early = []
    for call in fake.calls:
        chat = call.params.get("chat_id")
        if chat is None:
            continue
        chat = int(chat)
        if call.time + 0.05 < blocked.get(chat, 0.0):  # the answer's own time: a little slack
            early.append(f"#{call.seq} {call.method} to {chat}")
        if call.status == 429:
            retry = call.response.get("parameters", {}).get("retry_after", 0)
            blocked[chat] = call.time + float(retry)
    return early


def is_table(text: str | None) -> bool:
    text = text or ""
    return bool(re.search(r"· deal \d+", text)) and not DEAL_OVER.search(text)


async def test_a_finished_table_leaves_nothing_in_memory(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env={**ENV, "KOZEL_LOG_LEVEL": "DEBUG"})  # the sender's counts
    await bot.start()
    await computer_match(fake_telegram, bot)
    await wait_until("the match to end", lambda: is_over(bot.db), timeout=180)
    await wait_until(
        "the sender to finish",
        lambda: "in memory: locks=0 matches=0" in bot.log_text(),
        timeout=30,
    )
