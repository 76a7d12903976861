"""No single person can slow the bot for others: a flood of presses is refused cheaply, an
admin check costs one getChatMember (and never holds a table's lock), and Telegram's
``chat_member`` updates correct the bot's idea of who is an admin at once."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import StoredMessage
from fakebot.server import FakeTelegram
from fakebot.users import SimGroup, SimUser

from .driver import ENV_FAST, Table, op_of

pytestmark = pytest.mark.e2e

# Fast computers and no flood limits of the fake's own, but a person's fair share as shipped.
ENV = {k: v for k, v in ENV_FAST.items() if not k.startswith("KOZEL_PRESS_")}


async def press_quietly(
    user: SimUser, chat: SimUser | SimGroup, message_id: int, data: str
) -> None:
    """A press whose answer nobody waits for (a flood: most are never answered)."""
    with contextlib.suppress(TimeoutError):
        await user.press(chat, message_id, data, forged=True, timeout=15)


async def settings_menu(fake: FakeTelegram, user: SimUser, group: SimGroup) -> StoredMessage:
    mark = fake.mark()
    await user.send(group, "/settings")
    return await fake.wait_for_message(group, lambda m: "Settings" in (m.text or ""), since=mark)


async def computer_table(fake: FakeTelegram, group: SimGroup, creator: SimUser) -> Table:
    """``creator`` opens a two-seat Moscow table with a computer and starts it."""
    table = Table(fake, group)
    await table.start_private(creator)
    await table.open(creator, "moscow")
    await table.add_computer(creator)
    await table.start(creator)
    return table


async def test_a_flood_of_presses_does_not_slow_another_table(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV)
    await bot.start()
    fred, alma, vera = fake.add_user("Fred"), fake.add_user("Alma"), fake.add_user("Vera")
    loud = fake.add_group("Loud", [alma, fred], admins=[alma])
    quiet = fake.add_group("Quiet", [vera], admins=[vera])
    flooded = await computer_table(fake, loud, fred)
    victim = await computer_table(fake, quiet, vera)
    victim.pause = 0.8  # a person's pace
    menu = await settings_menu(fake, fred, loud)
    admin_only = [b.callback_data or "" for b in menu.buttons]
    hand = flooded.hand(fred)
    assert hand is not None
    cards = [b.callback_data or "" for b in hand.buttons if op_of(b) == "tog"]
    fake.set_delay("getChatMember", 1.0)  # Telegram answering slowly, as it does under load
    asked = len(fake.calls_to("getChatMember"))

    # Fred taps admin-only buttons (he is no admin) and his cards, 200 times a second.
    tasks: list[asyncio.Task[None]] = []

    async def flood() -> None:
        for i in range(800):
            if i % 4 == 3:
                press = press_quietly(fred, fred, hand.message_id, cards[i % len(cards)])
            else:
                press = press_quietly(fred, loud, menu.message_id, admin_only[i % 5])
            tasks.append(asyncio.create_task(press))
            await asyncio.sleep(0.005)

    flooding = asyncio.create_task(flood())
    start = len(fake.press_log)
    await victim.play([vera], until=lambda: victim.presses >= 10 or victim.match_over())
    await flooding
    # The last presses were only just started (Vera may finish before the flood does).
    await fake.wait_for(
        lambda: sum(p.user_id == fred.id for p in fake.press_log[start:]) == 800,
        timeout=10,
        what="every one of Fred's presses to reach Telegram",
    )
    vera_presses = [p for p in fake.press_log[start:] if p.user_id == vera.id]
    latencies = [p.latency for p in vera_presses]
    assert len(latencies) >= 10 and None not in latencies, latencies
    assert max(p for p in latencies if p is not None) < 1.0, latencies
    assert not any("Not so fast" in (p.answer.text or "") for p in vera_presses if p.answer)
    fred_presses = [p for p in fake.press_log[start:] if p.user_id == fred.id]
    assert len(fred_presses) == 800
    answers = [p.answer.text for p in fred_presses if p.answer is not None]
    assert any("Not so fast" in (text or "") for text in answers), answers
    assert len(answers) < 100, len(answers)  # the rest cost no HTTP call at all
    assert len(fake.calls_to("getChatMember")) - asked <= 2
    fake.set_delay("getChatMember", 0)
    for task in tasks:
        task.cancel()
    # A moment later Fred is served again: the menu still refuses him, politely.
    await asyncio.sleep(1.5)
    answer = await fred.press(loud, menu.message_id, admin_only[0])
    assert answer.text == "Only chat admins can change settings.", answer.text
    fake.assert_no_unknown_calls()


async def test_an_admin_check_keeps_no_one_waiting_for_a_table(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """Cancel on a lobby by someone who is not its opener asks Telegram whether they are an
    admin; a join by another player meanwhile is answered at once."""
    fake = fake_telegram
    bot = bot_process(env=ENV)
    await bot.start()
    anna, boris, vera = fake.add_user("Anna"), fake.add_user("Boris"), fake.add_user("Vera")
    group = fake.add_group("Kozel club", [anna, boris, vera], admins=[anna])
    table = Table(fake, group)
    for user in (anna, boris, vera):
        await table.start_private(user)
    await table.open(anna, "street")
    fake.set_delay("getChatMember", 3.0)
    cancel = asyncio.create_task(boris.press_button(group, table.lobby_id, contains="Cancel"))
    await asyncio.sleep(1.0)  # the bot has the press and waits for Telegram's answer
    assert not cancel.done()
    join = await vera.press_button(group, table.lobby_id, contains="Join", timeout=5)
    assert join.text == "You joined the table."
    vera_press = next(p for p in fake.press_log if p.user_id == vera.id)
    assert vera_press.latency is not None and vera_press.latency < 1.0, vera_press.latency
    refused = await cancel
    assert refused.show_alert and "Only the player who opened" in (refused.text or "")
    await fake.wait_for(lambda: "Vera" in table.lobby_text(), what="Vera seated")


async def test_chat_member_updates_say_who_is_an_admin(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV)
    await bot.start()
    anna, boris = fake.add_user("Anna"), fake.add_user("Boris")
    # Telegram sends chat_member updates only to a bot that is an admin of the group.
    group = fake.add_group("Kozel club", [anna, boris], admins=[anna], bot_status="administrator")
    menu = await settings_menu(fake, anna, group)
    button = menu.button("30 seconds")
    data = button.callback_data or ""
    answer = await boris.press(group, menu.message_id, data)
    assert answer.text == "Only chat admins can change settings."
    asked = len(fake.calls_to("getChatMember"))

    mark = fake.mark()
    assert fake.set_admin(group, boris)  # queued: the bot asked for chat_member updates
    await fake.wait_for_call("getUpdates", since=mark)
    await asyncio.sleep(0.3)  # handled
    answer = await boris.press(group, menu.message_id, data, forged=True)
    assert answer.text == "Saved.", answer.text

    fake.set_admin(group, boris, admin=False)
    await asyncio.sleep(0.5)
    answer = await boris.press(group, menu.message_id, data, forged=True)
    assert answer.text == "Only chat admins can change settings.", answer.text
    # Telegram told the bot; it did not have to ask again.
    assert len(fake.calls_to("getChatMember")) == asked
    assert not any("chat_member" in u for u in fake.dropped_updates)
