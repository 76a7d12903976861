"""The ladder's use cases (/top, /stats, /history, /resetladder) on a real SQLite store."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from ladder_fixtures import free_for_all, teams

from bot import callback
from bot.screen import Screen
from bot.service import ladder
from bot.service.core import Core
from bot.service.ladder import StatsTarget
from bot.service.people import chat_record
from bot.service.ports import ChatInfo, Person, Shared
from bot.service.reply import Press, Reply
from bot.service.running_settings import Settings
from bot.storage import SqliteStorage, UserRecord

CLUB = ChatInfo(-100, "Kozel club", is_private=False)
OTHER = ChatInfo(-200, "Other club", is_private=False)


class Quiet:
    """Messenger and scheduler that the ladder never needs."""

    async def send(
        self, chat_id: int, screen: Screen, *, notify: bool = True, thread_id: int | None = None
    ) -> int:
        raise AssertionError("the ladder answers, it does not send")

    async def edit(self, chat_id: int, message_id: int, screen: Screen) -> None:
        raise AssertionError("the ladder answers, it does not edit")

    async def delete(self, chat_id: int, message_id: int) -> None:
        raise AssertionError("the ladder answers, it does not delete")

    def wake_by(self, at: float) -> None:
        raise AssertionError("the ladder sets no timer")


@pytest.fixture
async def core(tmp_path: Path) -> AsyncIterator[Core]:
    storage = await SqliteStorage.open(str(tmp_path / "kozel.sqlite3"))
    quiet = Quiet()
    yield Core(storage, quiet, quiet, Settings())
    await storage.close()


def person(user_id: int, name: str | None = None, username: str | None = None) -> Person:
    return Person(user_id, name or f"P{user_id}", username, "en")


def private(user_id: int) -> ChatInfo:
    return ChatInfo(user_id, f"P{user_id}", is_private=True)


RANKED = re.compile(r"^(🥇|🥈|🥉|\d+\.) ")


def ranked(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if RANKED.match(line)]


def text(answer: Reply) -> str:
    return answer.screen.text if answer.screen else answer.text


def plain(answer: Reply) -> str:
    return re.sub(r"<[^>]+>", "", text(answer))


def yes() -> Callable[[], Awaitable[bool]]:
    async def is_admin() -> bool:
        return True

    return is_admin


def no() -> Callable[[], Awaitable[bool]]:
    async def is_admin() -> bool:
        return False

    return is_admin


async def test_top_lists_the_ladder_and_the_champion_is_human(core: Core) -> None:
    # the strong computer wins everything, but the champion is the best person
    for n in range(1, 5):
        await ladder.record(core, teams(n, CLUB.chat_id, ["strong", 1], [2, 3]))
    answer = plain(await ladder.top(core, CLUB, person(3), []))
    lines = answer.splitlines()
    assert lines[0] == "🏆 Ladder · Kozel club"
    assert lines[1] == "Season 1 · all variants"
    assert lines[2] == "👑 Champion: P1"
    lines = ranked(answer)
    assert lines[0].startswith("🥇 🤖 strong — ")
    assert lines[1].startswith("🥈 👑 P1 — ")
    assert "4 matches · 4 wins · 🐐 0 goats" in lines[0]
    assert "4 matches · 0 wins · 🐐 4 goats" in lines[2]


async def test_top_shows_the_callers_line_below_the_top_ten(core: Core) -> None:
    for n in range(1, 13):
        # twelve pairs, each beating a fixed pair of losers (users 100 and 101)
        await ladder.record(core, teams(n, CLUB.chat_id, [2 * n, 2 * n + 1], [100, 101]))
    answer = plain(await ladder.top(core, CLUB, person(100), []))
    lines = ranked(answer)
    assert len(lines) == 11
    assert lines[-1].startswith(("25. P100 — ", "26. P100 — "))
    assert "…" in answer
    assert "26 players in this ladder." in answer
    # somebody in the top ten sees no extra line
    caller = int(lines[3].split()[1].removeprefix("P"))
    again = plain(await ladder.top(core, CLUB, person(caller), []))
    assert len(ranked(again)) == 10


async def test_top_by_variant_and_season_and_bad_arguments(core: Core) -> None:
    await ladder.record(core, teams(1, CLUB.chat_id, [1, 2], [3, 4]))
    await ladder.record(core, free_for_all(2, CLUB.chat_id, [5, 6, 7]))
    moscow = plain(await ladder.top(core, CLUB, person(1), ["moscow"]))
    assert "Season 1 · Moscow Kozel" in moscow
    names = {line.split(" — ")[0].split()[-1] for line in ranked(moscow)}
    assert names == {"P5", "P6", "P7"}
    assert "There is no season 2" in plain(await ladder.top(core, CLUB, person(1), ["s2"]))
    assert plain(await ladder.top(core, CLUB, person(1), ["poker"])).startswith("Usage: /top")
    empty = plain(await ladder.top(core, OTHER, person(1), []))
    assert "No matches in this ladder yet" in empty


async def test_matches_recorded_before_the_ladder_are_rated_on_first_look(core: Core) -> None:
    await core.storage.ladder.record(teams(1, CLUB.chat_id, [1, 2], [3, 4]))  # no rater
    answer = plain(await ladder.top(core, CLUB, person(1), []))
    assert "1 match · 1 win" in answer


async def test_stats_of_the_caller_a_replied_person_and_a_username(core: Core) -> None:
    await core.storage.users.upsert(UserRecord(2, "Boris", username="boris_k"))
    await ladder.record(core, teams(1, CLUB.chat_id, [1, 2], [3, 4]))
    await ladder.record(core, teams(2, CLUB.chat_id, [1, 3], [2, 4], variant="ziege"))
    await ladder.record(core, free_for_all(3, CLUB.chat_id, [4, 1, 2]))

    mine = plain(await ladder.stats(core, CLUB, person(1, "Anna"), StatsTarget()))
    assert mine.splitlines()[0] == "📊 P1 · Kozel club"
    assert "place" in mine and "of 4" in mine
    assert "3 matches played: 2 won, 1 lost (67% won)" in mine
    assert "🐐 Goat 1 time" in mine
    assert "Latest matches (newest first): 🐐🏆🏆" in mine
    for variant in ("Street Kozel", "Classic Kozel (Ziege)", "Moscow Kozel"):
        assert any(line.startswith(variant) for line in mine.splitlines()), variant

    replied = plain(await ladder.stats(core, CLUB, person(1), StatsTarget(person=person(4))))
    assert replied.splitlines()[0] == "📊 P4 · Kozel club"
    assert "3 matches played: 1 won, 2 lost" in replied

    by_name = plain(await ladder.stats(core, CLUB, person(1), StatsTarget(username="Boris_K")))
    assert by_name.splitlines()[0] == "📊 P2 · Kozel club"
    assert "❌" in by_name  # out first in the three-player match: lost, but not the goat

    unknown = plain(await ladder.stats(core, CLUB, person(1), StatsTarget(username="nobody")))
    assert "I don't know @nobody yet" in unknown
    stranger = plain(await ladder.stats(core, CLUB, person(9, "Zoe"), StatsTarget()))
    assert stranger == "Zoe has no matches in this chat's season 1 yet."


async def test_private_stats_add_up_every_chat(core: Core) -> None:
    await ladder.record(core, teams(1, CLUB.chat_id, [1, 2], [3, 4]))
    await ladder.record(core, teams(2, OTHER.chat_id, [3, 4], [1, 2]))
    await ladder.record(core, teams(3, OTHER.chat_id, [3, 4], [1, 2]))
    for chat in (CLUB, OTHER):
        await chat_record(core, chat)
    answer = plain(await ladder.stats(core, private(1), person(1, "Anna"), StatsTarget()))
    assert answer.splitlines()[0] == "📊 Anna · all chats"
    assert "Played in 2 chats." in answer
    assert "3 matches played: 1 won, 2 lost (33% won)" in answer
    assert "Other club: " in answer and "Kozel club: " in answer
    assert answer.index("Other club") < answer.index("Kozel club")  # most matches first
    nobody = plain(await ladder.stats(core, private(9), person(9), StatsTarget()))
    assert "You have not finished a match yet" in nobody
    hint = plain(await ladder.top(core, private(1), person(1), []))
    assert "Ladders live in group chats" in hint
    mine = plain(await ladder.history(core, private(1), person(1), []))
    assert mine.count("Other club · ") == 2 and mine.count("Kozel club · ") == 1


async def test_history_shows_the_last_ten_matches_newest_first(core: Core) -> None:
    for n in range(1, 13):
        await ladder.record(core, teams(n, CLUB.chat_id, [n, n + 100], [n + 200, "basic"]))
    await ladder.record(core, free_for_all(13, CLUB.chat_id, [1, 2, 3]))
    answer = plain(await ladder.history(core, CLUB, person(1), []))
    lines = answer.splitlines()
    assert lines[0] == "📜 Latest matches · Kozel club"
    assert lines[1] == "Season 1 · all variants"
    assert answer.count(" · 4 deals") + answer.count(" · 6 deals") == 10
    results = [line for line in lines if line.startswith(("🏆", "🐐"))]
    assert results[0] == "🏆 P1 0 · 🐐 P2 13 · ❌ P3 14"
    assert results[1] == "🏆 P12 and P112 4 · 🐐 P212 and 🤖 medium 12"
    assert "P2 & P102" not in answer  # match 2 is older than the last ten
    street = plain(await ladder.history(core, CLUB, person(1), ["moscow"]))
    assert street.count(" · Moscow Kozel · ") == 1


async def test_two_chats_never_see_each_others_ladders(core: Core) -> None:
    await ladder.record(core, teams(1, CLUB.chat_id, [1, 2], [3, 4]))
    await ladder.record(core, teams(2, OTHER.chat_id, [5, 6], [7, 8]))
    for chat, mine, theirs in ((CLUB, "P1", "P5"), (OTHER, "P5", "P1")):
        for answer in (
            await ladder.top(core, chat, person(1), []),
            await ladder.history(core, chat, person(1), []),
        ):
            assert mine in plain(answer) and theirs not in plain(answer)
    stats = plain(await ladder.stats(core, OTHER, person(1), StatsTarget()))
    assert "has no matches in this chat" in stats


async def test_reset_needs_an_admin_and_a_confirmation_and_keeps_the_history(core: Core) -> None:
    await ladder.record(core, teams(1, CLUB.chat_id, [1, 2], [3, 4]))
    refused = await ladder.reset_command(core, CLUB, person(3), no())
    assert plain(refused) == "Only chat admins can reset the ladder."
    question = await ladder.reset_command(core, CLUB, person(1), yes())
    assert question.screen is not None
    assert "Season 1 closes and season 2 starts" in question.screen.text
    (yes_button, no_button) = question.screen.buttons[0]
    assert yes_button.data is not None and no_button.data is not None
    for data in (yes_button.data, no_button.data):
        assert len(data.encode()) <= callback.MAX_BYTES
    assert callback.parse(yes_button.data) == callback.Callback(0, 1, "reset", "yes")

    press = callback.parse(yes_button.data)
    reply = await ladder.reset_press(core, Press(press, person(3), CLUB, no()))
    assert reply.alert and "Only chat admins" in reply.text
    reply = await ladder.reset_press(
        core, Press(callback.parse(no_button.data), person(1), CLUB, yes())
    )
    screen = reply.screen
    assert screen is not None and "stays as it is (season 1)" in screen.text
    assert (await core.storage.ladder.season(CLUB.chat_id)).season == 1

    reply = await ladder.reset_press(core, Press(press, person(1, "Anna"), CLUB, yes()))
    screen = reply.screen
    assert screen is not None and "Season 2 has started" in screen.text and "Anna" in screen.text
    reply = await ladder.reset_press(core, Press(press, person(1), CLUB, yes()))  # again
    assert reply.alert and "out of date" in reply.text
    assert (await core.storage.ladder.season(CLUB.chat_id)).season == 2
    forged = callback.Callback(5, 2, "reset", "yes")
    reply = await ladder.reset_press(core, Press(forged, person(1), CLUB, yes()))
    assert reply.alert and reply.screen is None

    assert "No matches in this ladder yet" in plain(await ladder.top(core, CLUB, person(1), []))
    old = plain(await ladder.top(core, CLUB, person(1), ["s1"]))
    assert "Season 1 · since" not in old and "closed" in old and "Champion of the season: P1" in old
    history = plain(await ladder.history(core, CLUB, person(1), ["s1"]))
    assert "Season 1 · closed" in history and "🏆 P1 and P2 4" in history
    assert "No matches yet" in plain(await ladder.history(core, CLUB, person(1), []))
    stats = plain(await ladder.stats(core, CLUB, person(1), StatsTarget()))
    assert "season 2 yet" in stats and "Earlier seasons: 1 match · 1 win" in stats
    in_private = await ladder.reset_command(core, private(1), person(1), yes())
    assert "group" in plain(in_private)


async def test_stats_and_history_from_a_channel_or_an_anonymous_admin_are_refused(
    core: Core,
) -> None:
    """A message sent as a channel (or as the group) is nobody's: no statistics of a shared
    sender id, no user stored for it."""
    for shared, words in ((Shared.CHANNEL, "as a channel"), (Shared.ANONYMOUS, "anonymously")):
        poster = Person(136817688, "Channel", "Channel_Bot", None, shared)
        stats = await ladder.stats(core, CLUB, poster, StatsTarget())
        history = await ladder.history(core, CLUB, poster, [])
        for answer in (stats, history):
            assert answer.screen is None and words in answer.text, answer.text
    assert await core.storage.users.get(136817688) is None


async def test_history_links_each_match_to_its_replay_in_the_mini_app(core: Core) -> None:
    """With the Mini App, each match of /history (in the group and in private) has a
    "▶️ Replay" link that opens its first deal; without it, none."""
    await ladder.record(core, teams(7, CLUB.chat_id, [1, 2], [3, 4]))
    answer = await ladder.history(core, CLUB, person(1), [])
    assert answer.screen is not None and "Replay" not in answer.screen.text
    core.settings = dataclasses.replace(
        core.settings,
        public_url="https://kozel.example",
        webapp_name="table",
        bot_username="kozel_bot",
    )
    link = '<a href="https://t.me/kozel_bot/table?startapp=r7_1">▶️ Replay</a>'
    for chat in (CLUB, private(1)):
        answer = await ladder.history(core, chat, person(1), [])
        assert answer.screen is not None and answer.screen.text.count(link) == 1, chat
