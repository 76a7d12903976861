"""The coach end to end: after a deal, "How did I play?" on the private hand answers in the
player's private chat and names one of their own plays; asking twice, or about a deal that
is not over, is refused (strangers and forged tables: tests/bot/test_coach.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import Button
from fakebot.server import FakeTelegram

from kozel_rules.action import Action

from .driver import op_of, open_table, rows, table_log

pytestmark = [pytest.mark.e2e]


def is_coach(button: Button) -> bool:
    return op_of(button) == "coach"


def first_deal_plays(db: Path | str, seat: int) -> list[Action]:
    """The seat's actions in deal 1, from the bot's table log."""
    plays = []
    for kind, _ply, text in table_log(db):
        if kind == "deal":
            break
        if kind == "action" and Action.parse(text).seat == seat:
            plays.append(Action.parse(text))
    return plays


async def test_the_coach_names_one_of_the_players_own_plays(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    table, users, bot = await open_table(
        fake_telegram, bot_process, ("Anna", "Boris"), "moscow", seated=2
    )
    await table.start(users[0])
    anna = users[0]

    def coach_offered() -> bool:
        hand = table.hand(anna)
        return hand is not None and any(is_coach(b) for b in hand.buttons)

    await table.play(users, until=coach_offered)
    hand = table.hand(anna)
    assert hand is not None
    mark = fake_telegram.mark()
    answer = await anna.press_button(anna, hand.message_id, predicate=is_coach)
    assert not answer.show_alert and "coach is looking" in (answer.text or ""), answer.text
    reply = await fake_telegram.wait_for_message(
        anna, lambda m: (m.text or "").startswith("🎓"), since=mark, timeout=90
    )
    text = reply.text or ""
    assert "How you played in deal 1" in text, text
    (seat,) = [
        int(str(s)) for (s,) in rows(bot.db, "SELECT seat FROM seats WHERE user_id = ?", (anna.id,))
    ]
    plays = first_deal_plays(bot.db, seat)
    assert plays and any(" ".join(str(c) for c in a.cards) in text for a in plays), text
    # Boris hears nothing of Anna's review
    assert not any("How you played" in (m.text or "") for m in fake_telegram.messages(users[1]))

    again = await anna.press_button(anna, hand.message_id, predicate=is_coach)
    assert again.show_alert and "already asked about deal 1" in (again.text or ""), again.text
    data = next(b.callback_data for b in hand.buttons if is_coach(b))
    assert data is not None
    table_id = data.split(":")[1]
    future = await anna.press(anna, hand.message_id, f"v1:{table_id}:9:coach", forged=True)
    assert future.show_alert and future.text == "That deal is not over yet."
    assert len([m for m in fake_telegram.messages(anna) if (m.text or "").startswith("🎓")]) == 1
