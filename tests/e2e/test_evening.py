"""The group's evening through the real bot: a match's result names what it earned (🏅) and its
moment (✨) in lines of its own message, /stats and /achievements show them after, and /pairs
lists the partnerships of the chat's four-player matches."""

from __future__ import annotations

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram
from fakebot.users import SimGroup

from bot.storage import MatchPlayerRecord, MatchRecord, open_storage

from .driver import BOTH_BACKENDS, ENV_FAST, MATCH_OVER, Table, open_table, rows
from .test_ladder import said

pytestmark = pytest.mark.e2e


def group_sends(fake: FakeTelegram, group: SimGroup) -> int:
    """Messages the bot sent to the group (edits are not messages)."""
    return sum(1 for c in fake.calls_to("sendMessage") if c.params.get("chat_id") == group.id)


@BOTH_BACKENDS
async def test_a_first_match_earns_a_medal_in_its_result_and_in_stats(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna = fake.add_user("Anna", username="anna")
    club = fake.add_group("Kozel club", [anna], admins=[anna])
    table = Table(fake, club)
    await table.start_private(anna)
    await table.open(anna, "street goat=6")
    for level in ("random", "random", "random"):
        await table.add_computer(anna, level)
    await table.start(anna)
    await table.play([anna])
    await fake.wait_for(
        lambda: any(MATCH_OVER in (m.text or "") for m in fake.messages(club, from_bot=True)),
        what="the match result",
    )
    sent = group_sends(fake, club)
    bot_texts = [m.text or "" for m in fake.messages(club, from_bot=True)]
    result = next(text for text in bot_texts if "The match is over!" in text)
    deals = next(line for line in result.splitlines() if "played." in line).split()[0]
    print(f"group messages the bot sent for the match: {sent} ({deals} deals)")
    print(result)

    # As many group messages as before achievements and moments: the lobby (which becomes
    # the first deal's table), a table for each further deal, and the result.
    assert sent == int(deals) + 1
    lines = result.splitlines()
    medals = [line for line in lines if line.startswith("🏅")]
    assert len(medals) == 1
    assert medals[0].startswith("🏅 Anna: First match")  # computers earn nothing
    assert "🤖" not in medals[0]
    moments = [line for line in lines if line.startswith("✨ Moment of the match: ")]
    assert len(moments) == 1
    assert lines[-1] == "Play again with /newgame · the ladder: /top"
    # The medal and the moment are lines of the result, never messages of their own.
    assert sum("🏅" in text for text in bot_texts) == 1
    assert sum("✨" in text for text in bot_texts) == 1

    stats = await said(fake, anna, club, "/stats")
    assert "🏅" in stats and "🎴 First match" in stats
    assert "⏰ 0 turns timed out · 🤖 0 deals played by a stand-in" in stats
    board = await said(fake, anna, club, "/achievements")
    assert board.splitlines()[0] == "🏅 Achievements · Kozel club"
    assert "🎴 First match — Play a match in this chat.\n    Anna" in board
    assert "🤝 Old partners — Play ten four-player matches with the same partner." in board
    # The answers were replies to the commands: the match itself added nothing since.
    assert group_sends(fake, club) == sent + 2
    # In private, every chat together.
    earned = len(medals[0].removeprefix("🏅 Anna: ").split(", "))
    private = await said(fake, anna, anna, "/stats")
    assert f"🏅 {earned} achievement{'s' if earned != 1 else ''}" in private.splitlines()
    fake.assert_no_unknown_calls()


def team_match(
    table_id: int, chat_id: int, winners: list[tuple[int, str]], losers: list[tuple[int, str]]
) -> MatchRecord:
    """A four-player street match, ``winners`` at seats 0 and 2."""
    seats = [winners[0], losers[0], winners[1], losers[1]]
    players = [
        MatchPlayerRecord(
            seat=seat,
            side=seat % 2,
            user_id=user_id,
            name=name,
            ai_level=None,
            won=seat % 2 == 0,
            goat=seat % 2 == 1,
            defeat_points=4 if seat % 2 == 0 else 12,
            deals_won=3 if seat % 2 == 0 else 1,
            deals_lost=1 if seat % 2 == 0 else 3,
            eggs=0,
            queens_caught=0,
            tricks=20,
            card_points=200,
        )
        for seat, (user_id, name) in enumerate(seats)
    ]
    result = {
        "defeat_points": [4, 12],
        "winners": [0],
        "losers": [1],
        "goats": [1],
        "places": [1, 2],
        "goat_with_eggs": False,
        "deals": 4,
    }
    return MatchRecord(
        table_id, chat_id, "street", 4, 1_700_000_000.0 + table_id, 1_700_000_600.0 + table_id,
        4, False, result, players,
    )  # fmt: skip


@BOTH_BACKENDS
async def test_pairs_lists_partners_of_three_matches(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    names = ("Anna", "Boris", "Vera", "Gleb")
    anna, boris, vera, gleb = (fake.add_user(n, username=n.lower()) for n in names)
    club = fake.add_group("Kozel club", [anna, boris, vera, gleb], admins=[anna])

    assert "No two partners have played 3 four-player matches together" in await said(
        fake, anna, club, "/pairs"
    )
    a, b, v, g = ((u.id, u.first_name) for u in (anna, boris, vera, gleb))
    store = await open_storage(bot.db)
    try:
        # Anna and Boris: three matches together, two won; Vera and Gleb: three, one won;
        # Anna and Vera: one only (not a partnership yet).
        for number, (won, lost) in enumerate(
            [([a, b], [v, g]), ([b, a], [g, v]), ([v, g], [a, b]), ([a, v], [b, g])], start=1
        ):
            await store.ladder.record(team_match(900 + number, club.id, won, lost))
    finally:
        await store.close()

    pairs = await said(fake, anna, club, "/pairs")
    assert pairs.splitlines() == [
        "🤝 Partners · Kozel club",
        "1. Anna & Boris — 3 matches · 2 wins (67%) · 6.7 defeat points a match",
        "2. Vera & Gleb — 3 matches · 1 win (33%) · 9.3 defeat points a match",
    ]
    stats = await said(fake, boris, club, "/stats")
    assert "🤝 Best partner: Anna · 3 matches · 2 wins (67%)" in stats
    await Table(fake, club).start_private(anna)
    private = await said(fake, anna, anna, "/pairs")
    assert private == "Partnerships live in group chats: send /pairs there."
    fake.assert_no_unknown_calls()


async def test_stats_says_who_was_waited_for(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """Anna and Boris never press: their first turns time out, then a computer stands in."""
    fake = fake_telegram
    env = {**ENV_FAST, "KOZEL_TIMEOUT_SCALE": "0.002"}  # the 60 s turn timer: 0.12 s
    table, (anna, _boris), bot = await open_table(
        fake, bot_process, ("Anna", "Boris"), "street", seated=2, env=env
    )
    await table.add_computer(anna, "basic")
    await table.add_computer(anna, "random")
    await table.start(anna)
    await fake.wait_for(table.match_over, timeout=180, what="the match to end")

    # The truth, from the table's log: a deal's line follows the move that ended it.
    deal, timeouts, stood_in = 1, 0, set()
    for kind, by, seat in rows(bot.db_path, "SELECT kind, by, seat FROM table_log ORDER BY id"):
        if kind == "deal":
            deal += 1
        elif kind == "action" and seat == 0:
            timeouts += by == "timeout"
            if by == "computer":
                stood_in.add(deal)
    assert timeouts == 2 and stood_in  # the driver's own figures, not a copy of the bot's

    stats = await said(fake, anna, table.group, "/stats")
    turns = f"{timeouts} turns timed out"
    deals = f"{len(stood_in)} deal{'s' if len(stood_in) != 1 else ''} played by a stand-in"
    assert f"⏰ {turns} · 🤖 {deals}" in stats
    fake.assert_no_unknown_calls()


async def test_the_medal_and_the_moment_speak_the_chats_language(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna = fake.add_user("Anna", username="anna")
    club = fake.add_group("Клуб", [anna], admins=[anna])
    table = Table(fake, club)
    await table.start_private(anna)  # her own chat stays English: the driver reads her hand
    mark = fake.mark()
    await anna.send(club, "/language")
    menu = await fake.wait_for_message(club, lambda m: bool(m.buttons), since=mark)
    await anna.press_button(club, menu.message_id, contains="Русский")
    await table.open(anna, "street goat=6")
    for level in ("random", "random", "random"):
        await table.add_computer(anna, level)
    await table.start(anna)
    await table.play([anna])
    await fake.wait_for(table.match_over, what="the match result")
    result = next(
        m.text or ""
        for m in fake.messages(club, from_bot=True)
        if "Партия окончена" in (m.text or "")
    )
    print(result)
    lines = result.splitlines()
    medal = next(line for line in lines if line.startswith("🏅"))
    assert medal.startswith("🏅 Anna: Первая партия")
    assert sum(line.startswith("✨ Момент партии: ") for line in lines) == 1
    stats = await said(fake, anna, club, "/stats")
    assert "🎴 Первая партия" in stats and "⏰ 0 ходов сделано по таймеру" in stats
