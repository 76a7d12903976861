"""The ladder through the real bot: /top, /stats, /history and /resetladder after real matches.

Kept fast: in the first test one person and three quick computer players (weak, medium) sit
at each table, and the two groups play at the same time; the people tap their own cards. The
second test starts the bot on a version-1 database file full of older matches, which it must
upgrade and show exactly.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import StoredMessage
from fakebot.server import FakeTelegram
from fakebot.users import SimGroup, SimUser

from bot.storage.migrations import SCHEMA_V1, latest_version

from .driver import BOTH_BACKENDS, ENV_FAST, MATCH_OVER, Table, is_hand, rows

pytestmark = pytest.mark.e2e

RANKED = re.compile(r"^(?:🥇|🥈|🥉|\d+\.) (?:👑 )?(.+?) — (\d+) · (.+)$")


async def ask(
    fake: FakeTelegram, user: SimUser, chat: SimGroup | SimUser, text: str, **kwargs: int
) -> StoredMessage:
    """Send a command and wait for the bot's reply to it (quoted in groups; in a private
    chat the bot's next new message that is not the player's hand)."""
    mark = fake.mark()
    sent = await user.send(chat, text, **kwargs)
    if isinstance(chat, SimUser):
        return await fake.wait_for_message(
            chat,
            lambda m: m.message_id > sent.message_id and not is_hand(m),
            since=mark,
            timeout=15,
        )
    return await fake.wait_for_message(
        chat,
        lambda m: m.reply_to is not None and m.reply_to.message_id == sent.message_id,
        since=mark,
        timeout=15,
    )


async def said(fake: FakeTelegram, user: SimUser, chat: SimGroup | SimUser, text: str) -> str:
    return (await ask(fake, user, chat, text)).text or ""


def ranked(text: str) -> dict[str, tuple[int, str]]:
    """Name -> (rating, "n matches · n wins · 🐐 n goats") of the ranked lines of /top."""
    lines = {}
    for line in text.splitlines():
        found = RANKED.match(line)
        if found:
            lines[found.group(1)] = (int(found.group(2)), found.group(3))
    return lines


def counts(matches: int, wins: int, goats: int) -> str:
    def n(k: int, one: str, many: str) -> str:
        return f"{k} {one if k == 1 else many}"

    return (
        f"{n(matches, 'match', 'matches')} · {n(wins, 'win', 'wins')} · "
        f"🐐 {n(goats, 'goat', 'goats')}"
    )


def outcome(fake: FakeTelegram, group: SimGroup) -> tuple[str, str]:
    """(winners, goat) as the group's match result message said them."""
    text = next(m.text or "" for m in fake.messages(group) if MATCH_OVER in (m.text or ""))
    winners = re.search(r"Winners?: (.+)", text)
    goat = re.search(r"The goats?: (.+)", text)
    assert winners and goat, text
    return winners.group(1), goat.group(1)


def stored_matches(db: Path | str) -> list[dict[str, object]]:
    found = rows(
        db,
        "SELECT chat_id, variant, deals, result, season, goat_with_eggs FROM matches ORDER BY id",
    )
    return [
        {
            "chat_id": c,
            "variant": v,
            "deals": d,
            "result": json.loads(str(r)),
            "season": s,
            "goat_with_eggs": bool(e),
        }
        for c, v, d, r, s, e in found
    ]


@BOTH_BACKENDS
async def test_real_matches_in_two_groups_make_two_ladders(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna = fake.add_user("Anna", username="anna")
    gleb = fake.add_user("Gleb", username="gleb")
    club = fake.add_group("Kozel club", [anna], admins=[anna])
    other = fake.add_group("Other club", [gleb], admins=[gleb])

    # Street, teams of two, both groups at once. Kozel club: Anna and a medium computer
    # against two weak ones; Other club: Gleb and a weak computer against two medium ones.
    first, second = Table(fake, club), Table(fake, other)
    for table, user, levels in (
        (first, anna, ("random", "basic", "random")),  # seats 1, 2 (the partner), 3
        (second, gleb, ("basic", "random", "basic")),
    ):
        await table.start_private(user)
        await table.open(user, "street goat=6")
        for level in levels:
            await table.add_computer(user, level)
    await asyncio.gather(first.start(anna), second.start(gleb))
    await asyncio.gather(first.play([anna]), second.play([gleb]))

    winners, goat = outcome(fake, club)
    anna_won = "Anna" in winners
    assert ("Anna" in goat) is not anna_won
    gleb_won = "Gleb" in outcome(fake, other)[0]
    played = stored_matches(bot.db)
    assert len(played) == 2
    street = next(m for m in played if m["chat_id"] == club.id)
    points = street["result"]["defeat_points"]  # type: ignore[index]

    # A few commands per group here, the groups at once (with the real flood limits, 20
    # messages a minute per group, the matches use up most of that); the second test, in a
    # quiet group, goes through the rest.
    (top, history), (other_top, card), (mine, my_history) = await asyncio.gather(
        said_in_turn(fake, anna, club, "/top", "/history"),
        said_in_turn(fake, gleb, other, "/top", "/stats"),
        said_in_turn(fake, anna, anna, "/stats", "/history"),
    )

    # /top in each group: its own players only, with what happened, and a human champion
    assert top.splitlines()[:3] == [
        "🏆 Ladder · Kozel club",
        "Season 1 · all variants",
        "👑 Champion: Anna",
    ]
    lines = ranked(top)
    assert set(lines) == {"Anna", "🤖 medium", "🤖 weak"}
    win, lose = (1, 0) if anna_won else (0, 1)
    assert lines["Anna"][1] == counts(1, win, lose)
    assert lines["🤖 medium"][1] == counts(1, win, lose)
    assert lines["🤖 weak"][1] == counts(2, 2 * lose, 2 * win)  # both opponents' seats
    assert (lines["Anna"][0] > 1000 > lines["🤖 weak"][0]) is anna_won
    assert "Gleb" not in top and "👑 🤖" not in top

    assert "👑 Champion: Gleb" in other_top
    other_lines = ranked(other_top)
    assert set(other_lines) == {"Gleb", "🤖 weak", "🤖 medium"}  # the same computers, own lines
    g_win, g_lose = (1, 0) if gleb_won else (0, 1)
    assert other_lines["Gleb"][1] == counts(1, g_win, g_lose)
    assert other_lines["🤖 weak"][1] == counts(1, g_win, g_lose)
    assert other_lines["🤖 medium"][1] == counts(2, 2 * g_lose, 2 * g_win)
    assert "Anna" not in other_top

    # /stats: the caller's card
    assert card.splitlines()[0] == "📊 Gleb · Other club"
    share = 100 if gleb_won else 0
    assert f"1 match played: {g_win} won, {g_lose} lost ({share}% won)" in card
    assert f"Latest matches (newest first): {'🏆' if gleb_won else '🐐'}" in card

    # /history: the match, its sides in finishing order and its defeat points
    sides = {
        True: f"🏆 Anna and 🤖 medium {points[0]} · 🐐 🤖 weak and 🤖 weak {points[1]}",
        False: f"🏆 🤖 weak and 🤖 weak {points[1]} · 🐐 Anna and 🤖 medium {points[0]}",
    }
    eggs = " · 🥚 a goat with eggs" if street["goat_with_eggs"] else ""  # a random deal's luck
    assert sides[anna_won] + eggs in history.splitlines()
    assert f"Street Kozel · {street['deals']} deal" in history
    assert "Gleb" not in history

    # in private: Anna's totals over every chat (one: nothing from the other group), her matches
    assert mine.splitlines()[:2] == ["📊 Anna · all chats", "Played in 1 chat."]
    share = 100 if anna_won else 0
    assert f"1 match played: {win} won, {lose} lost ({share}% won)" in mine
    assert f"Kozel club: {lines['Anna'][0]} · {counts(1, win, lose)}" in mine
    assert "Other club" not in mine
    assert sides[anna_won] + eggs in my_history.splitlines()
    fake.assert_no_unknown_calls()


async def said_in_turn(
    fake: FakeTelegram, user: SimUser, chat: SimGroup | SimUser, *commands: str
) -> list[str]:
    return [await said(fake, user, chat, command) for command in commands]


async def said_reply(
    fake: FakeTelegram, user: SimUser, chat: SimGroup, text: str, reply_to: int
) -> str:
    return (await ask(fake, user, chat, text, reply_to=reply_to)).text or ""


# ------------------------------------------------------------------ an old database


@dataclass
class Seat:
    user_id: int | None
    name: str
    ai_level: str | None = None


def write_version_1_database(
    db: Path, chat_id: int, matches: list[tuple[str, list[Seat], int]]
) -> None:
    """A database file as version-1 code left it: schema 1 and finished matches.
    Each match: (variant, seats, winning side); four seats play in teams, two alone."""
    conn = sqlite3.connect(db)
    try:
        conn.executescript(SCHEMA_V1)
        conn.execute("PRAGMA user_version = 1")
        conn.execute(
            "INSERT INTO chats (chat_id, title, created_at, updated_at) "
            "VALUES (?, 'Old club', 0, 0)",
            (chat_id,),
        )
        users = {seat.user_id: seat.name for _, seats, _ in matches for seat in seats}
        for user_id, name in users.items():
            if user_id is not None:
                conn.execute(
                    "INSERT INTO users (user_id, first_name, username, created_at, updated_at) "
                    "VALUES (?, ?, ?, 0, 0)",
                    (user_id, name, name.lower().replace(" ", "")),
                )
        for number, (variant, seats, winner) in enumerate(matches, start=1):
            sides = 2
            points = [0, 0]
            points[1 - winner] = 12
            points[winner] = 2 * (number % 4)
            result = {
                "defeat_points": points,
                "winners": [winner],
                "losers": [1 - winner],
                "goat": 1 - winner,
                "goat_with_eggs": False,
                "deals": 5,
            }
            finished = 1_700_000_000 + 3600 * number
            conn.execute(
                "INSERT INTO matches (id, table_id, chat_id, variant, players, started_at, "
                "finished_at, deals, goat_with_eggs, result) VALUES (?, ?, ?, ?, ?, ?, ?, 5, 0, ?)",
                (
                    number,
                    number,
                    chat_id,
                    variant,
                    len(seats),
                    finished - 900,
                    finished,
                    json.dumps(result),
                ),
            )
            for seat_no, seat in enumerate(seats):
                side = seat_no % sides
                conn.execute(
                    "INSERT INTO match_players "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 3, 2, 0, 0, 9, 150)",
                    (
                        number,
                        seat_no,
                        side,
                        seat.user_id,
                        seat.name,
                        seat.ai_level,
                        int(side == winner),
                        int(side != winner),
                        points[side],
                    ),
                )
        conn.commit()
    finally:
        conn.close()


async def test_an_old_database_is_upgraded_and_its_ladder_can_be_reset(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    people = [fake.add_user(f"Player {k}") for k in range(1, 15)]
    zoe = fake.add_user("Zoe", username="zoe")
    admin = people[0]
    club = fake.add_group("Old club", [*people, zoe], admins=[admin])
    humans = {user.id: Seat(user.id, user.first_name) for user in people}
    strong = Seat(None, "Bot Ivan", "strong")
    rng = random.Random(5)
    matches: list[tuple[str, list[Seat], int]] = []
    ids = list(humans)
    for number in range(30):
        if number % 3 == 0:  # the strong computer wins all of its matches
            partner, *others = rng.sample(ids, 3)
            seats = [strong, humans[others[0]], humans[partner], humans[others[1]]]
            matches.append(("street", seats, 0))
        elif number % 3 == 1:
            a, b = rng.sample(ids, 2)
            matches.append(("moscow", [humans[a], humans[b]], rng.randrange(2)))
        else:
            a, b, c, d = rng.sample(ids, 4)
            seats = [humans[a], humans[b], humans[c], humans[d]]
            matches.append(("ziege", seats, rng.randrange(2)))
    for number in range(3):  # Zoe loses three times, to somebody who never plays again
        guest = Seat(900 + number, f"Guest {number}")
        matches.append(("moscow", [Seat(zoe.id, "Zoe"), guest], 1))

    bot = bot_process(env=ENV_FAST)
    bot.db_path.parent.mkdir(parents=True, exist_ok=True)
    write_version_1_database(bot.db_path, club.id, matches)
    await bot.start()
    with sqlite3.connect(bot.db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == latest_version()

    tally: dict[str, Counter[str]] = {}
    for _, seats, winner in matches:
        for seat_no, seat in enumerate(seats):
            name = "🤖 strong" if seat.ai_level else seat.name
            line = tally.setdefault(name, Counter())
            line["matches"] += 1
            line["wins" if seat_no % 2 == winner else "goats"] += 1

    # /top: the ten best and the caller's own line; a computer leads, a person is champion
    top = await said(fake, zoe, club, "/top")
    lines = ranked(top)
    shown = [line for line in top.splitlines() if RANKED.match(line)]
    assert len(shown) == 11 and "…" in top
    assert shown[0].startswith("🥇 🤖 strong — ")
    champion = next(name for name in lines if not name.startswith("🤖"))
    assert f"👑 Champion: {champion}" in top
    assert shown[1].startswith(f"🥈 👑 {champion} — ")
    assert shown[-1].startswith(tuple(f"{n}. Zoe — " for n in range(12, 20)))
    ratings = [rating for rating, _ in lines.values()]
    assert ratings[:10] == sorted(ratings[:10], reverse=True)
    for name, (_, text) in lines.items():
        line = tally[name]
        assert text == counts(line["matches"], line["wins"], line["goats"]), name
    assert f"{len(tally)} players in this ladder." in top
    street = ranked(await said(fake, zoe, club, "/top street"))
    assert street["🤖 strong"][1] == counts(10, 10, 0)

    # /history: the newest ten of 33, newest first
    history = await said(fake, zoe, club, "/history")
    entries = [line for line in history.splitlines() if line.startswith(("🏆", "🐐"))]
    assert len(entries) == 10
    assert entries[:3] == [
        "🏆 Guest 2 2 · 🐐 Zoe 12",
        "🏆 Guest 1 0 · 🐐 Zoe 12",
        "🏆 Guest 0 6 · 🐐 Zoe 12",
    ]

    # /stats: the caller, an @username, the author of a replied-to message
    mine = await said(fake, zoe, club, "/stats")
    assert "3 matches played: 0 won, 3 lost (0% won)" in mine
    assert "Latest matches (newest first): 🐐🐐🐐" in mine
    player3 = await said(fake, zoe, club, "/stats @player3")
    assert player3.splitlines()[0] == "📊 Player 3 · Old club"
    line = tally["Player 3"]
    assert f"{line['matches']} matches played: {line['wins']} won" in player3
    hello = await people[4].send(club, "good game!")
    by_reply = await ask(fake, zoe, club, "/stats", reply_to=hello.message_id)
    assert (by_reply.text or "").splitlines()[0] == "📊 Player 5 · Old club"

    # /resetladder: admins only, confirmed with a button, the old season stays
    assert await said(fake, zoe, club, "/resetladder") == "Only chat admins can reset the ladder."
    question = await ask(fake, admin, club, "/resetladder")
    assert "Season 1 closes and season 2 starts" in (question.text or "")
    start = question.button(contains="Start season 2")
    assert start.callback_data is not None and len(start.callback_data.encode()) <= 64
    answer = await zoe.press(club, question.message_id, start.callback_data)
    assert answer.show_alert and answer.text == "Only chat admins can reset the ladder."
    answer = await admin.press(club, question.message_id, start.callback_data)
    assert answer.text == "A new season has started."
    done = await fake.wait_for_message(
        club,
        lambda m: m.message_id == question.message_id and "has started" in (m.text or ""),
        new=False,
    )
    assert not done.buttons
    assert "Player 1 reset the ladder. Season 1 is kept: /top s1 · /history s1" in (done.text or "")
    again = await admin.press(club, question.message_id, start.callback_data, forged=True)
    assert again.show_alert and "out of date" in (again.text or "")
    # Data that is not on the message: refused before it reaches the ladder (the question has
    # no buttons left, so to the bot it is an old one).
    for forged in ("v1:0:2:reset:maybe", "v1:0:2:reset:yes:no", "v1:7:2:reset:yes"):
        answer = await admin.press(club, question.message_id, forged, forged=True)
        stale = "This button is out of date. Send the command again."
        assert answer.show_alert and answer.text in ("This button is not valid.", stale), forged

    fresh = await said(fake, zoe, club, "/top")
    assert fresh.splitlines()[1].startswith("Season 2 · since ")
    assert "No matches in this ladder yet" in fresh
    old = await said(fake, zoe, club, "/top s1")
    assert old.splitlines()[1] == "Season 1 · closed · all variants"
    assert f"👑 Champion of the season: {champion}" in old
    assert ranked(old) == lines
    old_history = await said(fake, zoe, club, "/history s1")
    assert old_history.splitlines()[1] == "Season 1 · closed · all variants"
    assert [line for line in old_history.splitlines() if line.startswith(("🏆", "🐐"))] == entries
    after = await said(fake, zoe, club, "/stats")
    assert after.startswith("Zoe has no matches in this chat's season 2 yet.")
    assert f"Earlier seasons: {counts(3, 0, 3)}" in after
    with sqlite3.connect(bot.db_path) as conn:
        assert conn.execute("SELECT count(*), max(season) FROM matches").fetchone() == (33, 1)
    fake.assert_no_unknown_calls()
