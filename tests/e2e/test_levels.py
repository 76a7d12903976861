"""The computer levels, through the real bot: the lobby offers weak, medium and strong (the
levels the arena tells apart, issue 36); the "add expert" button of an older lobby message is
answered and adds nobody; /help says what each level is like."""

from __future__ import annotations

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.server import FakeTelegram

from .driver import op_of, open_table

pytestmark = pytest.mark.e2e


async def test_the_lobby_offers_three_levels_and_an_old_expert_button_adds_nobody(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, _ = await open_table(fake_telegram, bot_process, ("Anna",), "street", seated=1)
    (anna,) = users
    lobby = table.lobby()
    adds = [b for b in lobby.buttons if op_of(b) == "bot"]
    assert [b.text for b in adds] == ["➕🤖 weak", "➕🤖 medium", "➕🤖 strong"]
    # The release before drew "➕🤖 expert" with this data (the lobby's version is the same).
    strong = adds[-1].callback_data or ""
    old = strong.removesuffix(":strong") + ":expert"
    before = table.lobby_text()
    answer = await anna.press(table.group, table.lobby_id, old, forged=True)
    assert answer.text == "That level is no longer offered: choose one of the buttons now shown."
    assert table.lobby_text() == before and "🤖" not in before
    # Today's strong button adds a strong computer player.
    await table.add_computer(anna, "strong")
    assert table.lobby_text().count("(strong)") == 1
    # /help: one line for each level offered, and who stands in and coaches.
    mark = fake_telegram.mark()
    await anna.send(table.group, "/help")
    help_ = await fake_telegram.wait_for_message(
        table.group, lambda m: "Computer players" in (m.text or ""), since=mark
    )
    text = help_.text or ""
    for name in ("weak", "medium", "strong"):
        assert f"🤖 {name} — " in text, text
    assert "“expert”" in text
    fake_telegram.assert_no_unknown_calls()
