"""Whole matches through the real bot process and the fake Bot API: people tapping buttons."""

from __future__ import annotations

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram

from .driver import ENV_FAST, Table, leaked_cards, table_log

pytestmark = pytest.mark.e2e

NAMES = ("Anna", "Boris", "Vera", "Gleb")


# Every variant and number of players once, each store more than once (not every pair: the
# storage tests run every query on both stores, and many tests here play on each). Every
# variant plays a match to 12 once; two cases play to 6 (``goat=6``): as many checks, half
# the deals.
@pytest.mark.parametrize(
    ("variant", "players", "bot_database"),
    [
        ("ziege", 4, "postgres"),
        ("street", 4, "sqlite"),
        ("moscow goat=6", 2, "sqlite"),
        ("moscow", 3, "postgres"),
        ("moscow", 4, "sqlite"),
        ("moscow goat=6", 4, "postgres"),
    ],
    indirect=["bot_database"],
)
async def test_a_whole_match_played_by_people(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory, variant: str, players: int
) -> None:
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    users = [fake_telegram.add_user(name) for name in NAMES[:players]]
    group = fake_telegram.add_group("Kozel club", users, admins=users[:1])
    table = Table(fake_telegram, group)
    await table.start_private(users[0])  # the others join through the deep link
    await table.open(users[0], variant)
    for user in users[1:]:
        await table.join(user)
    await table.start(users[0])

    await table.play(users)

    over = [
        m.text or "" for m in fake_telegram.messages(group) if "match is over" in (m.text or "")
    ]
    assert len(over) == 1
    assert "🐐 The goat" in over[0]
    log = table_log(bot.db)
    deals = [entry for entry in log if entry[0] == "deal"]
    assert deals, "at least one deal was played"
    results = [m.text or "" for m in fake_telegram.messages(group) if "is over" in (m.text or "")]
    assert len(results) == len(deals) + 1  # one post per deal, one for the match
    # A tidy group: the lobby became the first deal's table, each table became its deal's
    # result (one a deal), and the match's result is the last word; nothing was deleted.
    left = [m for m in fake_telegram.messages(group) if m.from_bot and not m.deleted]
    assert [(m.text or "").split("\n")[0] for m in left] == [
        *(f"🏁 Deal {n} is over" for n in range(1, len(deals) + 1)),
        "🏆 The match is over!",
    ]
    assert left[0].message_id == table.lobby_id
    assert len(fake_telegram.calls_to("deleteMessage")) == 0 or all(
        int(c.params["chat_id"]) != group.id for c in fake_telegram.calls_to("deleteMessage")
    )
    assert leaked_cards(fake_telegram.shown_texts(group, from_bot_only=True), bot.db) == []
    fake_telegram.assert_no_unknown_calls()
