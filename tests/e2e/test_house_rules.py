"""House rules through the real bot: a match to 6 played to its end, options changed in the
lobby and shown on the table (in Russian), and a bad word that opens nothing."""

from __future__ import annotations

import json
import re

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram

from .driver import BOTH_BACKENDS, ENV_FAST, Table, is_hand, op_of, rows
from .intent import play_match
from .test_ladder import said

pytestmark = pytest.mark.e2e

GOAT_TOTAL = re.compile(r"\d+/(\d+)")  # "Anna 3/6" in a standings line
TOTALS = re.compile(r"Defeat points: (.*)")


def goat_totals(texts: list[str]) -> set[str]:
    """The "/n" of every standings line shown ("Defeat points: Anna 3/6 · 🤖 Bot 5/6")."""
    found = set()
    for text in texts:
        for line in text.splitlines():
            if "Defeat points" in line or "Штрафные очки" in line:
                found.update(GOAT_TOTAL.findall(line))
    return found


@BOTH_BACKENDS
async def test_a_match_to_6_shows_6_everywhere_and_ends_at_6(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna = fake_telegram.add_user("Anna")
    group = fake_telegram.add_group("Kozel club", [anna], admins=[anna])
    table = Table(fake_telegram, group)
    await table.start_private(anna)
    lobby = (await table.open(anna, "moscow goat=6")).text or ""  # (it becomes the table)
    assert "⚙️ House rules: match to 6" in lobby
    await table.add_computer(anna, "basic")
    await table.start(anna)
    await table.play([anna])

    shown = fake_telegram.shown_texts(group, from_bot_only=True, include_buttons=False)
    hands = [m.text or "" for m in fake_telegram.messages(anna) if is_hand(m)]
    hand_texts = fake_telegram.shown_texts(anna, from_bot_only=True, include_buttons=False)
    assert hands, "Anna had a hand"
    every = shown + hand_texts
    assert goat_totals(every) == {"6"}, goat_totals(every)
    assert not any("/12" in text for text in every)
    tables = [t for t in shown if t.startswith("🐐 Moscow Kozel · deal")]
    assert tables and all("⚙️ match to 6" in t for t in tables)
    assert all("⚙️ match to 6" in t for t in hand_texts if t.startswith("🐐 Moscow Kozel"))

    # The match ends with the deal that takes a side to 6 or more, not before.
    results = [t for t in shown if t.startswith("🏁 Deal")]
    finals = [_totals(t) for t in results]
    # (Both sides level at 6 or more put nobody out: another deal is played.)
    assert max(finals[-1]) >= 6 and len(set(finals[-1])) > 1, finals
    assert all(max(f) < 6 or len(set(f)) == 1 for f in finals[:-1]), finals
    over = [t for t in shown if t.startswith("🏆 The match is over!")]
    assert len(over) == 1 and "⚙️ match to 6" in over[0]
    stored = rows(bot.db, "SELECT options FROM matches")
    assert [json.loads(str(r[0])) for r in stored] == [{"goat_at": 6}]
    # On the ladder as any match: rated, and /history names its house rules.
    history = await said(fake_telegram, anna, group, "/history")
    assert re.search(r"Moscow Kozel · \d+ deals · ⚙️ match to 6", history), history
    stats = await said(fake_telegram, anna, group, "/stats")
    assert "1 match played" in stats and "⚙️ 1 of them with house rules." in stats
    assert re.search(r"Last match: 1000 → \d+ \([+−-]\d+\)", stats), stats
    changes = rows(bot.db, "SELECT count(*) FROM rating_changes")
    assert int(str(changes[0][0])) > 0
    for name, text in (("lobby", lobby), ("table", tables[0]), ("hand", hands[0])):
        print(name, "|", " ¶ ".join(_lines_with_options([text])))
    print("deal", "|", " ¶ ".join(results[-1].splitlines()[-3:]))
    print("match", "|", " ¶ ".join(over[0].splitlines()))
    print("history", "|", " ¶ ".join(history.splitlines()))
    fake_telegram.assert_no_unknown_calls()


def _totals(text: str) -> list[int]:
    found = TOTALS.search(text)
    assert found is not None, text
    return [int(n) for n in re.findall(r"(\d+)/\d+", found.group(1))]


def _lines_with_options(texts: list[str]) -> list[str]:
    return [line for text in texts for line in text.splitlines() if "⚙️" in line or "/6" in line]


async def test_options_changed_in_the_lobby_show_on_the_table_in_russian(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna, boris = fake_telegram.add_user("Анна", "ru"), fake_telegram.add_user("Борис", "ru")
    group = fake_telegram.add_group("Клуб", [anna, boris], admins=[anna])
    table = Table(fake_telegram, group)
    for user in (anna, boris):
        await table.start_private(user)
    lobby = await table.open(anna, "street eggs=double")
    assert "⚙️ Особые правила: яйца удваивают следующую раздачу" in (lobby.text or "")
    await table.join(boris)

    # Boris did not open the table: his press changes nothing.
    answer = await boris.press_button(group, table.lobby_id, "🐐 8")
    assert answer.text == "Менять особые правила может только тот, кто открыл стол."
    answer = await anna.press_button(group, table.lobby_id, "🐐 8")
    assert answer.text == "Особые правила: игра до 8 · яйца удваивают следующую раздачу"
    await fake_telegram.wait_for(
        lambda: "игра до 8" in table.lobby_text(), what="the lobby shows the change"
    )
    lobby_line = next(line for line in table.lobby_text().splitlines() if "⚙️" in line)
    for _ in range(2):
        await table.add_computer(anna, "random")
    await table.start(anna)
    await fake_telegram.wait_for(lambda: table.hand(boris) is not None, what="Boris's hand")
    first = table.hand(boris)
    assert first is not None
    group_table = table.lobby_text()  # the lobby became the first deal's table
    assert "⚙️ игра до 8 · яйца удваивают следующую раздачу" in group_table
    assert "/8" in group_table and "/12" not in group_table
    assert "⚙️ игра до 8 · яйца удваивают следующую раздачу" in (first.text or "")
    stored = rows(bot.db, "SELECT options FROM game_tables")
    assert [json.loads(str(r[0])) for r in stored] == [{"goat_at": 8, "eggs": "double"}]
    assert all(op_of(b) != "opt" for b in fake_telegram.message(group, table.lobby_id).buttons)
    print("lobby |", lobby_line)
    print("table |", " ¶ ".join(_lines(group_table)))
    print("hand |", " ¶ ".join(_lines(first.text or "")))

    # To the end (choosing as the weakest computer would): every total reads /8.
    await play_match(fake_telegram, bot.db, [anna, boris], table.match_over)
    shown = fake_telegram.shown_texts(group, from_bot_only=True, include_buttons=False)
    hands = fake_telegram.shown_texts(boris, from_bot_only=True, include_buttons=False)
    assert goat_totals(shown + hands) == {"8"}
    over = [t for t in shown if t.startswith("🏆")]
    assert len(over) == 1 and "⚙️ игра до 8 · яйца удваивают следующую раздачу" in over[0]
    results = [t for t in shown if t.startswith("🏁")]
    eggs = [line for t in results for line in t.splitlines() if line.startswith(("🥚", "✖️"))]
    assert all("вдвойне" in line or "×" in line for line in eggs if line.startswith("🥚"))
    print("eggs |", " ¶ ".join(eggs) or "(no eggs this match)")
    print("deal |", " ¶ ".join(results[-1].splitlines()[-3:]))
    print("match |", " ¶ ".join(over[0].splitlines()))


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "⚙️" in line or "/8" in line]


async def test_a_bad_option_opens_nothing_and_says_what_is_allowed(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna = fake_telegram.add_user("Anna")
    group = fake_telegram.add_group("Kozel club", [anna], admins=[anna])
    await Table(fake_telegram, group).start_private(anna)
    mark = fake_telegram.mark()
    await anna.send(group, "/newgame street goat=7")
    reply = await fake_telegram.wait_for_message(group, since=mark)
    assert reply.text == (
        "I don't know the house rule “goat=7”. Street Kozel takes: "
        "goat=6|8|10|12, eggs=plain|double."
    )
    assert reply.buttons == []
    assert rows(bot.db, "SELECT id FROM game_tables") == []
    print(reply.text)


async def test_an_admin_sets_the_groups_defaults_and_newgame_takes_them(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna, boris = fake_telegram.add_user("Anna"), fake_telegram.add_user("Boris")
    group = fake_telegram.add_group("Kozel club", [anna, boris], admins=[anna])
    table = Table(fake_telegram, group)
    await table.start_private(anna)
    mark = fake_telegram.mark()
    await anna.send(group, "/settings")
    menu = await fake_telegram.wait_for_message(group, lambda m: bool(m.buttons), since=mark)
    assert "Default house rules for Street Kozel in this group (a plain /newgame): none" in (
        menu.text or ""
    )

    refused = await boris.press_button(group, menu.message_id, "🐐 8")
    assert refused.show_alert and refused.text == "Only chat admins can change settings."
    saved = await anna.press_button(group, menu.message_id, "🐐 8")
    assert saved.text == "Saved."
    await fake_telegram.wait_for(
        lambda: (
            "(a plain /newgame): match to 8"
            in (fake_telegram.message(group, menu.message_id).text or "")
        ),
        what="the menu shows the new default",
    )
    lobby = await table.open(anna, "street")
    assert "⚙️ House rules: match to 8 (this group's defaults, see /settings)" in (lobby.text or "")
    stored = rows(bot.db, "SELECT options FROM game_tables")
    assert [json.loads(str(r[0])) for r in stored] == [{"goat_at": 8}]
