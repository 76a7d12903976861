"""Forum topics through the real bot: each topic holds its own table, and everything a table
says in the group goes to its topic; the ladder stays the chat's."""

from __future__ import annotations

import re

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import StoredMessage
from fakebot.server import FakeTelegram
from fakebot.users import SimGroup, SimUser

from .driver import (
    ENV_FAST,
    MATCH_OVER,
    TURN_MARK,
    Table,
    is_special,
    leaked_cards,
    op_of,
    table_log,
)

pytestmark = pytest.mark.e2e


def table_id_of(message: StoredMessage) -> int:
    """The table a lobby message belongs to, from its buttons (it may have none now)."""
    found = re.match(r"v1:(\d+):", buttons_of(message)[0])
    assert found, buttons_of(message)
    return int(found.group(1))


def buttons_of(message: StoredMessage) -> list[str]:
    """Every button's callback data the message ever had."""
    return [
        str(b.get("callback_data"))
        for version in message.versions
        for row in (version.reply_markup or {}).get("inline_keyboard", [])
        for b in row
        if b.get("callback_data")
    ]


async def reply_to(
    fake: FakeTelegram, user: SimUser, group: SimGroup, text: str, table: Table
) -> StoredMessage:
    """Send a command in the table's topic and wait for the bot's answer to it."""
    mark = fake.mark()
    sent = await user.send(group, text, topic=table.topic)
    return await fake.wait_for_message(
        group,
        lambda m: m.reply_to is not None and m.reply_to.message_id == sent.message_id,
        since=mark,
        timeout=15,
    )


async def test_a_match_in_one_topic_while_another_topic_has_its_own_table(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna, boris, vera, gleb = users = [fake.add_user(n) for n in ("Anna", "Boris", "Vera", "Gleb")]
    forum = fake.add_group("Kozel forum", users, admins=[anna], forum=True)
    a = Table(fake, forum, topic=fake.create_topic(forum, "Table A", by=anna))
    b = Table(fake, forum, topic=fake.create_topic(forum, "Table B", by=vera))
    for user in users:
        await a.start_private(user)

    await a.open(anna, "street")
    refused = await reply_to(fake, boris, forum, "/newgame street", a)
    assert "already open" in (refused.text or "") and a.here(refused)
    # In a topic every message "replies" to the topic's first one (Anna's): that is no target.
    kick = await reply_to(fake, boris, forum, "/kick", a)
    # No target: /kick offers its menu of the seated (in this topic) and removes nobody.
    assert "Whom should I remove" in (kick.text or "") and a.here(kick)
    assert "Anna" in a.lobby_text()
    await b.open(vera, "street")  # another topic: a table of its own
    await b.join(gleb)
    for _ in range(3):  # computers take the other seats: Anna plays a quarter of the cards
        await a.add_computer(anna, "random")
    await a.start(anna)
    await a.play([anna])

    a_id, b_id = table_id_of(a.lobby()), table_id_of(b.lobby())
    assert a_id != b_id
    sent = [m for m in forum.messages.values() if m.from_bot]  # deleted ones too
    assert sent and all(m.is_topic_message for m in sent), "nothing goes to General"
    in_a = [m for m in sent if a.here(m)]
    in_b = [m for m in sent if b.here(m)]
    assert len(in_a) + len(in_b) == len(sent)
    # Every message with table A's buttons is in topic A, every one with B's in topic B.
    assert all(a.here(m) for m in sent if any(f"v1:{a_id}:" in d for d in buttons_of(m)))
    assert all(b.here(m) for m in sent if any(f"v1:{b_id}:" in d for d in buttons_of(m)))
    assert not any(f"v1:{b_id}:" in d for m in in_a for d in buttons_of(m))
    # Topic A saw its lobby, its table (edited move by move) and every result.
    texts_a = [v.text for m in in_a for v in m.versions]
    assert any("deal 1" in t for t in texts_a)
    assert max(len(m.versions) for m in in_a) > 3  # the table is edited in place
    deals = [entry for entry in table_log(bot.db_path) if entry[0] == "deal"]
    results = [m for m in in_a if "is over" in (m.text or "")]
    assert len(results) == len(deals) + 1 and MATCH_OVER in (results[-1].text or "")
    assert leaked_cards([t for m in in_a for t in m.shown_texts()], bot.db_path) == []
    # Topic B's table waits, untouched: Vera and Gleb seated, nobody from A.
    lobby_b = b.lobby_text()
    assert "Vera" in lobby_b and "Gleb" in lobby_b and "Anna" not in lobby_b
    assert b.lobby().find_buttons(contains="Join")
    refused_b = await reply_to(fake, boris, forum, "/newgame", b)
    assert "already open" in (refused_b.text or "") and b.here(refused_b)

    # A's match is over: A takes a new table; the ladder is the chat's, in every topic.
    await a.open(boris, "moscow")
    top = await reply_to(fake, gleb, forum, "/top", b)
    assert b.here(top) and "Anna" in (top.text or "")
    score = await reply_to(fake, anna, forum, "/score", a)
    assert a.here(score) and "No match is running" in (score.text or "")
    fake.assert_no_unknown_calls()


async def test_a_table_whose_topic_is_deleted_ends_and_frees_its_players(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna, boris = users = [fake.add_user(n) for n in ("Anna", "Boris")]
    forum = fake.add_group("Kozel forum", users, admins=[anna], forum=True)
    topic = fake.create_topic(forum, "Evening game", by=anna)
    table = Table(fake, forum, topic=topic)
    for user in users:
        await table.start_private(user)
    await table.open(anna, "moscow")
    await table.join(boris)
    await table.start(anna)
    # The lobby message became the table (in the topic).
    await fake.wait_for(lambda: "· deal 1" in table.lobby_text(), what="the lobby became the table")

    fake.delete_topic(forum, topic)

    # Whoever leads plays a card: the table message is gone, a new one cannot go to the topic.
    def turn() -> SimUser | None:
        hands = [(u, table.hand(u)) for u in users]
        return next((u for u, h in hands if h and TURN_MARK in (h.text or "")), None)

    await fake.wait_for(lambda: turn() is not None, what="a player's turn")
    mover = turn()
    assert mover is not None
    hand = table.hand(mover)
    assert hand is not None
    mark = fake.mark()
    card = next(b for b in hand.buttons if op_of(b) == "tog")
    answer = await mover.press(mover, hand.message_id, card.callback_data or "")
    if not (answer.text or "").startswith("Played"):
        hand = await fake.wait_for_message(
            mover, lambda m: any(op_of(b) == "act" for b in m.buttons), since=mark
        )
        play = next(b for b in hand.buttons if op_of(b) == "act" and not is_special(b))
        await mover.press(mover, hand.message_id, play.callback_data or "")

    def closed(user: SimUser) -> bool:
        return "was cancelled" in (fake.messages(user)[-1].text or "")

    await fake.wait_for(lambda: closed(anna) and closed(boris), what="the hands closed")
    assert fake.messages(boris)[-1].text == "The table in Kozel forum was cancelled."
    assert not [m for m in fake.messages(forum, from_bot=True) if not m.is_topic_message]
    # Both are free again: a table in General.
    general = Table(fake, forum)
    await general.open(boris, "street")
    await general.join(anna)
    assert general.lobby().thread_id is None
    fake.assert_no_unknown_calls()


async def test_closing_a_topic_ends_its_table_at_once(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna, boris = users = [fake.add_user(n) for n in ("Anna", "Boris")]
    forum = fake.add_group("Kozel forum", users, admins=[anna], forum=True)
    closing, other = fake.create_topic(forum, "Closing"), fake.create_topic(forum, "Other")
    table, kept = Table(fake, forum, topic=closing), Table(fake, forum, topic=other)
    for user in users:
        await table.start_private(user)
    await table.open(anna, "moscow")
    await table.join(boris)
    await kept.open(anna, "street")  # Anna opened it; she sits at the first one

    fake.close_topic(forum, closing, by=anna)

    await fake.wait_for(lambda: "was cancelled" in table.lobby_text(), what="the lobby closed")
    assert table.here(table.lobby())
    assert kept.lobby().find_buttons(contains="Join"), "the other topic's table stays"
    await kept.join(boris)  # free again
    fake.assert_no_unknown_calls()


async def test_a_reply_outside_a_forum_is_no_topic(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """In a plain supergroup a reply carries a message_thread_id: the table is the chat's."""
    fake = fake_telegram
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    anna = fake.add_user("Anna")
    group = fake.add_group("Kozel club", [anna], admins=[anna], supergroup=True)
    table = Table(fake, group)
    await table.start_private(anna)
    mark = fake.mark()
    hello = await anna.send(group, "/help")
    helped = await fake.wait_for_message(group, since=mark)
    assert hello.delivered
    mark = fake.mark()
    sent = await anna.send(group, "/newgame moscow", reply_to=helped.message_id)
    assert sent.thread_id is not None and not sent.is_topic_message
    lobby = await fake.wait_for_message(group, lambda m: bool(m.buttons), since=mark)
    assert lobby.thread_id is None
    assert not [c for c in fake.failed_calls() if c.method == "sendMessage"]
