"""A cup for four, end to end: four sign up in one message, play three matches with the
partners rotating, and that one message shows the standings after each match and the winner."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import StoredMessage
from fakebot.server import FakeTelegram
from fakebot.users import SimUser

from .driver import ENV_FAST, MATCH_OVER, Table, op_of, rows
from .intent import play_match

pytestmark = [pytest.mark.e2e]

CUP_TITLE = "Cup for four"


def cup_message(fake: FakeTelegram, table: Table) -> StoredMessage:
    (message,) = [
        m for m in fake.messages(table.group, from_bot=True) if CUP_TITLE in (m.text or "")
    ]
    return message


def results(fake: FakeTelegram, table: Table) -> int:
    return sum((m.text or "").startswith(MATCH_OVER) for m in fake.messages(table.group))


def round_tables(db: Path | str) -> list[int]:
    found = rows(db, "SELECT table_id FROM cup_rounds ORDER BY round")
    return [int(str(r[0])) for r in found]


def seated(db: Path | str, table_id: int) -> list[int | None]:
    found = rows(
        db,
        "SELECT coalesce(user_id, left_user_id) FROM seats WHERE table_id = ? ORDER BY seat",
        (table_id,),
    )
    return [None if r[0] is None else int(str(r[0])) for r in found]


async def signed_up(
    fake: FakeTelegram, bot_process: BotProcessFactory
) -> tuple[Table, list[SimUser], StoredMessage, Path | str]:
    """Anna opens a street cup to 6; Boris, Vera and Gleb join (Dasha is late): match 1 opens."""
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    names = ("Anna", "Boris", "Vera", "Gleb", "Dasha")
    users = [fake.add_user(name) for name in names]
    anna, boris, vera, gleb, dasha = users
    group = fake.add_group("Kozel club", users, admins=users[:1])
    table = Table(fake, group)
    for user in users:
        await table.start_private(user)

    mark = fake.mark()
    await anna.send(group, "/cup street goat=6")
    signup = await fake.wait_for_message(
        group, lambda m: any(op_of(b) == "cup" for b in m.buttons), since=mark
    )
    assert "Anna" in (signup.text or "")
    for user in (boris, vera):
        answer = await user.press_button(
            group, signup.message_id, predicate=lambda b: op_of(b) == "cup"
        )
        assert answer.text == "You are in the cup."
        await fake.wait_for(
            lambda u=user: u.first_name in (fake.message(group, signup.message_id).text or ""),
            what=f"{user.first_name} signed up",
        )
    again = await anna.press_button(group, signup.message_id, predicate=lambda b: op_of(b) == "cup")
    assert again.text == "You are in the cup already."
    forged = await dasha.press(group, signup.message_id, "v1:999:0:cup", forged=True)
    assert forged.text == "This button does not belong to this chat."
    await gleb.press_button(group, signup.message_id, predicate=lambda b: op_of(b) == "cup")
    # The fourth opens the first match; a fifth finds the cup full, and nothing changes.
    full = await dasha.press(group, signup.message_id, f"v1:{_cup_id(bot.db)}:0:cup", forged=True)
    assert full.text == "The cup is full." and full.show_alert
    return table, [anna, boris, vera, gleb], signup, bot.db


# On PostgreSQL (a group's cup is a server's): tests/bot/test_cup_storage.py runs every cup
# query on both stores, and three whole matches twice cost the suite a minute.
@pytest.mark.parametrize("bot_database", ["postgres"], indirect=True)
async def test_a_cup_of_three_matches_names_its_winner(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    table, players, signup, db = await signed_up(fake, bot_process)
    group, anna = table.group, players[0]
    a, b, c, d = (u.id for u in players)
    expected = {1: [a, b, c, d], 2: [a, c, b, d], 3: [a, b, d, c]}  # partners: seats 0+2, 1+3
    for round_no in (1, 2, 3):
        lobby = await fake.wait_for(
            lambda r=round_no: _lobby(fake, table, r), timeout=15, what=f"match {round_no}"
        )
        table.lobby_id = lobby.message_id
        tables = round_tables(db)
        assert len(tables) == round_no
        assert seated(db, tables[-1]) == expected[round_no]
        await table.start(anna)
        await play_match(
            fake, db, players, lambda r=round_no: results(fake, table) >= r, timeout=300
        )
        await fake.wait_for(
            lambda r=round_no: f"after match {r} of 3" in (cup_message(fake, table).text or ""),
            timeout=15,
            what=f"standings after match {round_no}",
        )
    cup = cup_message(fake, table)
    text = cup.text or ""
    assert cup.message_id == signup.message_id  # one message, edited all along
    assert "won the cup!" in text or "The cup is shared" in text
    for player in players:
        assert player.first_name in text
    assert not cup.buttons
    sent = [
        c
        for c in fake.calls_to("sendMessage")
        if c.params.get("chat_id") == group.id and CUP_TITLE in str(c.params.get("text"))
    ]
    edits = [
        c
        for c in fake.calls_to("editMessageText")
        if c.params.get("chat_id") == group.id and c.params.get("message_id") == signup.message_id
    ]
    assert len(sent) == 1
    assert len(edits) >= 6  # two sign-ups, match 1 opens, the standings after each match

    mark = fake.mark()
    await anna.send(group, "/history")
    history = await fake.wait_for_message(
        group, lambda m: m.from_bot and "Cup (" in (m.text or ""), since=mark
    )
    line = next(ln for ln in (history.text or "").splitlines() if "Cup (" in ln)
    assert "won" in line
    for table_id in round_tables(db):
        assert f"#{table_id}" in line
    # The winner's achievement, stored with the cup's end (a shared win: each winner's).
    holders = rows(db, "SELECT user_id FROM achievements WHERE achievement = 'cup_won'")
    assert holders and len(holders) <= 4
    mark = fake.mark()
    await anna.send(group, "/achievements")
    listed = await fake.wait_for_message(
        group, lambda m: m.from_bot and "Cup winner" in (m.text or ""), since=mark
    )
    cup_line = (listed.text or "").split("Cup winner", 1)[1].split("\n\n", 1)[0]
    assert any(p.first_name in cup_line for p in players), cup_line


def _cup_id(db: Path | str) -> int:
    (row,) = rows(db, "SELECT id FROM cups")
    return int(str(row[0]))


def _lobby(fake: FakeTelegram, table: Table, round_no: int) -> StoredMessage | None:
    """The lobby of the cup's match ``round_no`` once it is open."""
    lobbies = [
        m
        for m in fake.messages(table.group, from_bot=True)
        if any(op_of(b) == "join" for b in m.buttons)
    ]
    return lobbies[-1] if results(fake, table) == round_no - 1 and lobbies else None


async def test_a_player_who_leaves_forfeits_the_rest_to_a_computer(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    table, players, _, db = await signed_up(fake, bot_process)
    anna, boris, vera, _ = players
    table.lobby_id = (
        await fake.wait_for(lambda: _lobby(fake, table, 1), what="match 1")
    ).message_id
    await table.start(anna)
    # Mid-match, Anna (who opened the table) removes Gleb: a computer finishes his seat.
    mark = fake.mark()
    await anna.send(table.group, "/kick")
    menu = await fake.wait_for_message(
        table.group, lambda m: "Whom should I remove" in (m.text or ""), since=mark
    )
    answer = await anna.press_button(table.group, menu.message_id, contains="Gleb")
    assert "Gleb was removed" in (answer.text or "")
    await play_match(fake, db, [anna, boris, vera], lambda: results(fake, table) >= 1, timeout=300)
    await fake.wait_for(lambda: _lobby(fake, table, 2), timeout=15, what="match 2")
    # Match 2 seats A C B D: Gleb's seat (the fourth) is a computer's now.
    (_, second) = round_tables(db)
    assert seated(db, second) == [anna.id, vera.id, boris.id, None]
    text = await fake.wait_for(
        lambda: (
            "Standings after match 1" in (cup_message(fake, table).text or "")
            and cup_message(fake, table).text
        ),
        timeout=15,
    )
    gleb_line = next(line for line in text.splitlines() if "Gleb" in line and "—" in line)
    assert "left the cup, a computer plays for them" in gleb_line
    assert "Gleb" in table.lobby_text() or "🤖" in table.lobby_text()
