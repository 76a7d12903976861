"""Tests of the fake Telegram Bot API server, driven by python-telegram-bot's own client."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fakebot import TEST_TOKEN, Bucket, Call, FakeTelegram, SimUser, TelegramLimits, Window
from fakebot.fixtures import BotProcessFactory
from fakebot.formatting import ParseError, format_text
from fakebot.limits import RateLimiter
from fakebot.process import REPO_ROOT, BotProcess
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    ChatMemberBanned,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    ReplyParameters,
    Update,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    RetryAfter,
)


def keyboard(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text, callback_data=data) for text, data in row] for row in rows]
    )


@pytest.fixture
async def bot(fake_telegram: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(TEST_TOKEN, base_url=fake_telegram.base_url) as client:
        yield client


@pytest.fixture
async def ann(fake_telegram: FakeTelegram) -> SimUser:
    user = fake_telegram.add_user("Ann", language_code="ru", username="ann")
    await user.start_bot()
    return user


async def drain(bot: Bot) -> int:
    """Fetch and confirm everything queued; returns the next offset."""
    updates = await bot.get_updates(timeout=0)
    offset = updates[-1].update_id + 1 if updates else 0
    await bot.get_updates(offset=offset, timeout=0)
    return offset


# ------------------------------------------------------------------ basics


async def test_get_me_and_startup_calls(fake_telegram: FakeTelegram, bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.is_bot, me.first_name, me.username) == (1000, True, "Kozel", "kozel_test_bot")
    assert await bot.delete_webhook()
    info = await bot.get_webhook_info()
    assert info.url == "" and info.pending_update_count == 0
    assert await bot.log_out() and await bot.close()
    fake_telegram.assert_no_unknown_calls()


async def test_wrong_token_is_unauthorized(fake_telegram: FakeTelegram) -> None:
    with pytest.raises(InvalidToken):
        async with Bot("999:WRONG", base_url=fake_telegram.base_url):
            pass


async def test_unknown_method_is_404_and_recorded(fake_telegram: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(EndPointNotFound):  # how PTB reports a 404 "Not Found"
        await bot.do_api_request("sendKozelCard", api_kwargs={"chat_id": 1})
    assert [c.method for c in fake_telegram.unknown_calls] == ["sendKozelCard"]
    with pytest.raises(AssertionError, match="sendKozelCard"):
        fake_telegram.assert_no_unknown_calls()


async def test_commands_per_scope_and_language(fake_telegram: FakeTelegram, bot: Bot) -> None:
    await bot.set_my_commands([BotCommand("newgame", "New game")])
    await bot.set_my_commands(
        [BotCommand("newgame", "Новая игра")],
        scope=BotCommandScopeAllGroupChats(),
        language_code="ru",
    )
    assert [c.command for c in await bot.get_my_commands()] == ["newgame"]
    ru = await bot.get_my_commands(scope=BotCommandScopeAllGroupChats(), language_code="ru")
    assert ru[0].description == "Новая игра"
    assert fake_telegram.commands_for({"type": "all_group_chats"}, "ru") == [
        {"command": "newgame", "description": "Новая игра"}
    ]
    assert await bot.delete_my_commands()
    assert await bot.get_my_commands() == ()
    with pytest.raises(BadRequest, match=r"(?i)BOT_COMMAND_INVALID"):
        await bot.set_my_commands([BotCommand("NewGame", "x")])


# ------------------------------------------------------------------ messages


async def test_send_edit_not_modified(fake_telegram: FakeTelegram, bot: Bot, ann: SimUser) -> None:
    markup = keyboard([("Play", "play")])
    sent = await bot.send_message(
        ann.id, "<b>Hand</b> &lt;3 &amp; more", parse_mode="HTML", reply_markup=markup
    )
    assert sent.text == "Hand <3 & more"
    assert sent.entities == (MessageEntity("bold", 0, 4),)
    stored = fake_telegram.last_message(ann)
    assert stored is not None and stored.message_id == sent.message_id
    assert stored.raw_text == "<b>Hand</b> &lt;3 &amp; more"
    assert stored.text == "Hand <3 & more"
    assert stored.button("Play").callback_data == "play"

    edited = await bot.edit_message_text(
        "<i>Hand</i> changed", ann.id, sent.message_id, parse_mode="HTML", reply_markup=markup
    )
    assert not isinstance(edited, bool) and edited.text == "Hand changed"
    assert edited.edit_date is not None

    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_text(
            "<em>Hand</em> changed", ann.id, sent.message_id, parse_mode="HTML", reply_markup=markup
        )
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_reply_markup(ann.id, sent.message_id, reply_markup=markup)

    # Like Telegram, an edit that does not repeat the keyboard removes it.
    await bot.edit_message_text("final", ann.id, sent.message_id)
    assert fake_telegram.message(ann, sent.message_id).buttons == []
    assert [v.text for v in stored.versions] == ["Hand <3 & more", "Hand changed", "final"]
    assert "Play" in fake_telegram.shown_texts(ann, from_bot_only=True)
    assert fake_telegram.failed_calls()[0].error_code == 400

    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await bot.edit_message_text("x", ann.id, 9999)


async def test_callback_data_over_64_bytes(bot: Bot, ann: SimUser) -> None:
    await bot.send_message(ann.id, "ok", reply_markup=keyboard([("x", "я" * 32)]))  # 64 bytes
    with pytest.raises(BadRequest, match=r"(?i)BUTTON_DATA_INVALID"):
        await bot.send_message(ann.id, "too long", reply_markup=keyboard([("x", "я" * 33)]))


async def test_button_styles_are_kept_and_checked(
    fake_telegram: FakeTelegram, bot: Bot, ann: SimUser
) -> None:
    """Bot API 9.4: a button may have a style (danger, success, primary); it is not a kind
    of button of its own, and any other value is refused."""
    styled = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton("Beat", callback_data="b", style="success"),
                InlineKeyboardButton("Discard", callback_data="d", style="danger"),
                InlineKeyboardButton("Lead", callback_data="l", style="primary"),
                InlineKeyboardButton("Plain", callback_data="p"),
            ]
        ]
    )
    sent = await bot.send_message(ann.id, "styled", reply_markup=styled)
    buttons = fake_telegram.message(ann, sent.message_id).buttons
    assert [b.style for b in buttons] == ["success", "danger", "primary", None]
    wrong = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="x", style="pink")]])
    with pytest.raises(BadRequest, match=r"(?i)style"):
        await bot.send_message(ann.id, "pink", reply_markup=wrong)
    with pytest.raises(BadRequest, match=r"(?i)style"):
        await bot.edit_message_reply_markup(ann.id, sent.message_id, reply_markup=wrong)
    assert fake_telegram.message(ann, sent.message_id).buttons[0].style == "success"


async def test_bad_markup_is_refused(bot: Bot, ann: SimUser) -> None:
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(ann.id, "Tom <the cat>", parse_mode="HTML")
    with pytest.raises(BadRequest, match=r"(?i)reserved"):
        await bot.send_message(ann.id, "Score: 1.5", parse_mode="MarkdownV2")
    with pytest.raises(BadRequest, match=r"(?i)message text is empty"):
        await bot.send_message(ann.id, "  <b> </b> ", parse_mode="HTML")


def test_format_text() -> None:
    html = format_text(
        "  <a href='https://x.y'>a</a> <pre><code class=\"language-py\">p</code></pre>\n", "HTML"
    )
    assert html.text == "a p"
    assert [e["type"] for e in html.entities] == ["text_link", "pre"]
    assert html.entities[1]["language"] == "py"
    md = format_text(r"*bold* _it_ __u__ `c` [l](http://x) 1\.5 😀*b*", "MarkdownV2")
    assert md.text == "bold it u c l 1.5 😀b"
    assert md.entities[-1] == {"type": "bold", "offset": 20, "length": 1}  # UTF-16 offset
    with pytest.raises(ParseError, match="Can't find end of Bold entity"):
        format_text("*open", "MarkdownV2")
    with pytest.raises(ParseError, match="Unmatched end tag"):
        format_text("<b><i>x</b></i>", "HTML")
    # Offsets after runs of text with emoji and Cyrillic: UTF-16 in entities, UTF-8 in errors.
    ru = format_text("Ход 😀 &amp; <b>Анна</b> 👉 <i>8♥</i>", "HTML")
    assert ru.text == "Ход 😀 & Анна 👉 8♥"
    assert ru.entities == (
        {"type": "bold", "offset": 9, "length": 4},
        {"type": "italic", "offset": 17, "length": 2},
    )
    before = "Ход <b>😀</b> &amp; 👉 "
    with pytest.raises(
        ParseError, match=f"Unexpected end tag at byte offset {len(before.encode())}"
    ):
        format_text(before + "</b>", "HTML")


async def test_delete_reply_pin(fake_telegram: FakeTelegram, bot: Bot, ann: SimUser) -> None:
    first = await bot.send_message(ann.id, "one")
    reply = await bot.send_message(
        ann.id, "two", reply_parameters=ReplyParameters(first.message_id)
    )
    assert reply.reply_to_message is not None
    assert reply.reply_to_message.message_id == first.message_id
    assert await bot.pin_chat_message(ann.id, first.message_id)
    assert (await bot.get_chat(ann.id)).pinned_message is not None
    assert await bot.unpin_chat_message(ann.id)
    assert await bot.delete_message(ann.id, first.message_id)
    with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
        await bot.delete_message(ann.id, first.message_id)
    with pytest.raises(BadRequest, match=r"(?i)message to be replied not found"):
        await bot.send_message(ann.id, "x", reply_parameters=ReplyParameters(first.message_id))
    assert [m.text for m in fake_telegram.messages(ann, from_bot=True)] == ["two"]
    assert "one" in fake_telegram.shown_texts(ann)  # deleted, but it was shown
    assert await bot.send_chat_action(ann.id, "typing")


# ------------------------------------------------------------------ errors


async def test_forbidden_before_start_and_after_block(
    fake_telegram: FakeTelegram, bot: Bot
) -> None:
    bob = fake_telegram.add_user("Bob")
    with pytest.raises(Forbidden, match=r"(?i)bot can't initiate conversation with a user"):
        await bot.send_message(bob.id, "hi")
    await bob.start_bot()
    await bot.send_message(bob.id, "hi")
    bob.block_bot()
    with pytest.raises(Forbidden, match=r"(?i)bot was blocked by the user"):
        await bot.send_message(bob.id, "hi")
    updates = await bot.get_updates(timeout=0)
    member_update = updates[-1].my_chat_member
    assert member_update is not None
    assert isinstance(member_update.new_chat_member, ChatMemberBanned)
    await bob.start_bot()  # "Restart" unblocks
    await bot.send_message(bob.id, "welcome back")


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_injected_429(fake_telegram: FakeTelegram, bot: Bot, ann: SimUser) -> None:
    fake_telegram.inject_error("sendMessage", 429, retry_after=7)
    with pytest.raises(RetryAfter, match="Retry in 7 seconds"):
        await bot.send_message(ann.id, "flood")
    await bot.send_message(ann.id, "fine now")
    assert [m.text for m in fake_telegram.messages(ann, from_bot=True)] == ["fine now"]


async def test_group_migration(fake_telegram: FakeTelegram, bot: Bot) -> None:
    users = [fake_telegram.add_user(name) for name in ("A", "B")]
    group = fake_telegram.add_group("Kozel club", users, admins=users[:1])
    await bot.send_message(group.id, "in the group")
    supergroup = fake_telegram.migrate_to_supergroup(group)
    assert str(supergroup.id).startswith("-100")
    updates = await bot.get_updates(timeout=0)
    migrations = [u.message for u in updates if u.message]
    assert migrations[0].migrate_to_chat_id == supergroup.id
    assert migrations[1].migrate_from_chat_id == group.id
    with pytest.raises(ChatMigrated) as caught:
        await bot.send_message(group.id, "old id")
    assert caught.value.new_chat_id == supergroup.id
    await bot.send_message(supergroup.id, "new id")


async def test_kicked_and_readded(fake_telegram: FakeTelegram, bot: Bot) -> None:
    owner = fake_telegram.add_user("Owner")
    group = fake_telegram.add_group("G", [owner])
    fake_telegram.remove_bot_from(group)
    with pytest.raises(Forbidden, match=r"(?i)bot was kicked from the group chat"):
        await bot.send_message(group.id, "hello?")
    fake_telegram.add_bot_to(group, by=owner)
    await bot.send_message(group.id, "back")
    updates = await bot.get_updates(timeout=0)
    statuses = [u.my_chat_member.new_chat_member.status for u in updates if u.my_chat_member]
    assert statuses == ["kicked", "member"]
    members = await bot.get_chat_administrators(group.id)
    assert isinstance(members[0], ChatMemberOwner) and members[0].user.id == owner.id
    assert await bot.get_chat_member_count(group.id) == 2
    assert (await bot.get_chat_member(group.id, owner.id)).status == "creator"
    assert await bot.leave_chat(group.id)
    with pytest.raises(Forbidden, match=r"(?i)not a member"):
        await bot.send_message(group.id, "gone")


async def test_membership_and_privacy(fake_telegram: FakeTelegram, bot: Bot) -> None:
    ann, bob = fake_telegram.add_user("Ann"), fake_telegram.add_user("Bob", username="bob")
    group = fake_telegram.add_group("G", [ann], supergroup=True, username="kozel_club")
    assert (await bot.get_chat("@kozel_club")).id == group.id
    joined = fake_telegram.user_joins(group, bob)
    assert joined.delivered  # service messages reach a bot in privacy mode
    question = await bot.send_message(group.id, "Who plays?")
    assert (await bob.send(group, "me", reply_to=question.message_id)).delivered
    fake_telegram.user_leaves(group, bob)
    updates = await bot.get_updates(timeout=0)
    service = [u.message for u in updates if u.message]
    assert [u.id for u in service[0].new_chat_members] == [bob.id]
    assert service[1].reply_to_message is not None
    assert service[2].left_chat_member is not None
    assert (await bot.get_chat_member(group.id, bob.id)).status == "left"
    fake_telegram.privacy_mode = False
    assert (await ann.send(group, "just chatting")).delivered


# ------------------------------------------------------------------ forum topics


async def test_forum_topics_carry_their_thread(fake_telegram: FakeTelegram, bot: Bot) -> None:
    ann, bob = fake_telegram.add_user("Ann"), fake_telegram.add_user("Bob")
    forum = fake_telegram.add_group("Forum", [ann, bob], admins=[ann], forum=True)
    assert (await bot.get_chat(forum.id)).is_forum
    cards = fake_telegram.create_topic(forum, "Cards", by=ann)
    await bob.send(forum, "/newgame", topic=cards)
    await bob.send(forum, "/newgame")  # in General
    updates = [u.message for u in await bot.get_updates(timeout=0) if u.message]
    created, in_topic, in_general = updates
    assert created.forum_topic_created is not None and created.forum_topic_created.name == "Cards"
    assert created.message_thread_id == cards.thread_id == created.message_id
    assert in_topic.is_topic_message and in_topic.message_thread_id == cards.thread_id
    # Telegram's way: a topic's messages "reply" to the message that created it.
    assert in_topic.reply_to_message is not None
    assert in_topic.reply_to_message.forum_topic_created is not None
    assert not in_general.is_topic_message and in_general.message_thread_id is None

    sent = await bot.send_message(forum.id, "lobby", message_thread_id=cards.thread_id)
    assert sent.is_topic_message and sent.message_thread_id == cards.thread_id
    edited = await bot.edit_message_text("lobby, edited", forum.id, sent.message_id)
    assert isinstance(edited, Message) and edited.message_thread_id == cards.thread_id
    stored = fake_telegram.message(forum, sent.message_id)
    assert stored.thread_id == cards.thread_id and stored.is_topic_message
    answer = await in_topic.reply_text("a reply")  # PTB keeps the topic
    assert answer.message_thread_id == cards.thread_id
    general = await bot.send_message(forum.id, "in General")
    assert general.message_thread_id is None
    with pytest.raises(BadRequest, match=r"(?i)message thread not found"):
        await bot.send_message(forum.id, "nowhere", message_thread_id=9999)

    fake_telegram.close_topic(forum, cards, by=ann)
    with pytest.raises(BadRequest, match=r"(?i)TOPIC_CLOSED"):
        await bot.send_message(forum.id, "closed", message_thread_id=cards.thread_id)
    with pytest.raises(AssertionError, match="closed"):
        await bob.send(forum, "hello?", topic=cards)
    await ann.send(forum, "admins still write", topic=cards)
    fake_telegram.reopen_topic(forum, cards, by=ann)
    await bot.send_message(forum.id, "open again", message_thread_id=cards.thread_id)

    fake_telegram.delete_topic(forum, cards)
    assert all(m.thread_id != cards.thread_id for m in fake_telegram.messages(forum))
    assert [m.text for m in fake_telegram.messages(forum, from_bot=True)] == ["in General"]
    with pytest.raises(BadRequest, match=r"(?i)message thread not found"):
        await bot.send_message(forum.id, "gone", message_thread_id=cards.thread_id)
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await bot.edit_message_text("gone", forum.id, sent.message_id)


async def test_topics_by_the_bot_need_admin_rights(fake_telegram: FakeTelegram, bot: Bot) -> None:
    ann = fake_telegram.add_user("Ann")
    forum = fake_telegram.add_group("Forum", [ann], forum=True)
    with pytest.raises(BadRequest, match=r"(?i)not enough rights"):
        await bot.create_forum_topic(forum.id, "Mine")
    forum.bot_status = "administrator"
    topic = await bot.create_forum_topic(forum.id, "Mine")
    assert forum.topics[topic.message_thread_id].name == "Mine"
    assert await bot.close_forum_topic(forum.id, topic.message_thread_id)
    with pytest.raises(BadRequest, match=r"(?i)TOPIC_NOT_MODIFIED"):
        await bot.close_forum_topic(forum.id, topic.message_thread_id)
    # An admin bot may still write in a closed topic.
    await bot.send_message(forum.id, "admin", message_thread_id=topic.message_thread_id)
    assert await bot.delete_forum_topic(forum.id, topic.message_thread_id)
    plain = fake_telegram.add_group("Plain", [ann], supergroup=True, bot_status="administrator")
    with pytest.raises(BadRequest, match=r"(?i)not a forum"):
        await bot.create_forum_topic(plain.id, "No")
    fake_telegram.assert_no_unknown_calls()


async def test_replies_outside_forums_have_a_thread_but_no_topic(
    fake_telegram: FakeTelegram, bot: Bot
) -> None:
    ann = fake_telegram.add_user("Ann")
    group = fake_telegram.add_group("Super", [ann], supergroup=True)
    question = await bot.send_message(group.id, "Who plays?")
    await ann.send(group, "/newgame", reply_to=question.message_id)
    (update,) = [u.message for u in await bot.get_updates(timeout=0) if u.message]
    assert update.message_thread_id == question.message_id and not update.is_topic_message
    answer = await update.reply_text("ok")  # PTB sends no thread id outside topics
    assert not answer.is_topic_message
    with pytest.raises(BadRequest, match=r"(?i)message thread not found"):
        await bot.send_message(group.id, "x", message_thread_id=question.message_id)


# ------------------------------------------------------------------ updates


async def test_long_poll_delivers_message_and_press(fake_telegram: FakeTelegram, bot: Bot) -> None:
    users = [fake_telegram.add_user(name) for name in ("Ann", "Bob")]
    group = fake_telegram.add_group("Table", users)
    offset = await drain(bot)

    polls = fake_telegram.received_count("getUpdates")
    poll = asyncio.create_task(bot.get_updates(offset=offset, timeout=10))
    await fake_telegram.wait_for(lambda: fake_telegram.received_count("getUpdates") > polls)
    started = time.monotonic()
    await users[0].send(group, "/newgame@kozel_test_bot")
    updates = await poll
    assert time.monotonic() - started < 3  # answered at once, not at the 10 s timeout
    message = updates[0].message
    assert message is not None and message.text == "/newgame@kozel_test_bot"
    assert message.entities[0].type == "bot_command"
    assert message.chat.type == "group" and message.chat.title == "Table"

    # Privacy mode: plain chatter and commands for other bots do not reach the bot.
    assert not (await users[1].send(group, "hello all")).delivered
    assert not (await users[1].send(group, "/help@other_bot")).delivered

    sent = await bot.send_message(group.id, "Join?", reply_markup=keyboard([("Join", "join")]))
    offset = updates[-1].update_id + 1
    press = asyncio.create_task(users[1].press_button(group, sent.message_id, "Join"))
    (update,) = await bot.get_updates(offset=offset, timeout=5)
    query = update.callback_query
    assert query is not None and query.data == "join" and query.from_user.id == users[1].id
    assert query.message is not None and query.message.message_id == sent.message_id
    await query.answer("You joined", show_alert=True)
    answer = await press
    assert (answer.text, answer.show_alert) == ("You joined", True)

    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await query.answer("again")
    with pytest.raises(AssertionError, match="no button"):
        await users[1].press(group, sent.message_id, "leave")


async def test_forged_press_and_unanswered_timeout(
    fake_telegram: FakeTelegram, bot: Bot, ann: SimUser
) -> None:
    sent = await bot.send_message(ann.id, "menu", reply_markup=keyboard([("A", "a")]))
    with pytest.raises(TimeoutError, match="did not answer"):
        await ann.press(ann, sent.message_id, "cheat", forged=True, timeout=0.2)
    updates = await bot.get_updates(timeout=0)
    assert updates[-1].callback_query is not None
    assert updates[-1].callback_query.data == "cheat"


async def test_offset_and_allowed_updates(fake_telegram: FakeTelegram, bot: Bot) -> None:
    ann = fake_telegram.add_user("Ann")
    await ann.start_bot(payload="ref42")
    first = await bot.get_updates(timeout=0, allowed_updates=["message"])
    assert first[0].message is not None and first[0].message.text == "/start ref42"
    again = await bot.get_updates(timeout=0)  # not confirmed yet: delivered again
    assert [u.update_id for u in again] == [u.update_id for u in first]
    assert await bot.get_updates(offset=first[-1].update_id + 1, timeout=0) == ()
    sent = await bot.send_message(ann.id, "m", reply_markup=keyboard([("A", "a")]))
    with pytest.raises(AssertionError, match="allowed_updates"):
        await ann.press(ann, sent.message_id, "a")
    await bot.get_updates(timeout=0, allowed_updates=Update.ALL_TYPES)


async def test_concurrent_polls_conflict(fake_telegram: FakeTelegram, bot: Bot) -> None:
    async with Bot(TEST_TOKEN, base_url=fake_telegram.base_url) as other:
        first = asyncio.create_task(bot.get_updates(timeout=5))
        await fake_telegram.wait_for(lambda: fake_telegram.received_count("getUpdates") >= 1)
        second = asyncio.create_task(other.get_updates(timeout=0))
        with pytest.raises(Conflict, match="only one bot instance"):
            await first
        assert await second == ()


async def test_wait_for_message_wakes_on_change(
    fake_telegram: FakeTelegram, bot: Bot, ann: SimUser
) -> None:
    mark = fake_telegram.mark()
    waiter = asyncio.create_task(
        fake_telegram.wait_for_message(ann, lambda m: "trump" in (m.text or ""), timeout=3)
    )
    await asyncio.sleep(0)
    await bot.send_message(ann.id, "no")
    await bot.send_message(ann.id, "trump is ♥")
    assert (await waiter).text == "trump is ♥"
    earlier = await fake_telegram.wait_for_message(ann, lambda m: m.text == "no", since=mark)
    assert earlier.text == "no"
    call = await fake_telegram.wait_for_call("sendMessage", since=mark)
    assert call.params["text"] == "no"
    with pytest.raises(TimeoutError, match="recent calls"):
        await fake_telegram.wait_for_message(ann, timeout=0.05)


# ------------------------------------------------------------------ process


async def test_bot_process_lifecycle(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    echo = Path(__file__).parent / "fakebot" / "echo_bot.py"
    process = bot_process(command=[sys.executable, str(echo)])
    await process.start()
    assert process.running
    startup = [c.method for c in fake_telegram.calls]
    assert startup[:1] == ["getMe"] and "deleteWebhook" in startup
    assert fake_telegram.commands_for() == [{"command": "start", "description": "Start"}]

    ann = fake_telegram.add_user("Ann")
    await ann.start_bot()
    hello = await fake_telegram.wait_for_message(ann, lambda m: m.text == "hello")
    assert (await ann.press_button(ann, hello.message_id, "Ping")).text == "pong"

    process.kill()
    await process.start()  # crash recovery: same workdir and database path
    await ann.start_bot()
    await fake_telegram.wait_for_message(ann, lambda m: m.text == "hello")

    assert await process.stop() == 0
    assert "start #2" in process.log_text()
    fake_telegram.assert_no_unknown_calls()


# ------------------------------------------------------------------ flood limits (opt-in)


class FakeClock:
    """The limits' clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@contextlib.asynccontextmanager
async def limited(
    limits: TelegramLimits, clock: FakeClock
) -> AsyncIterator[tuple[FakeTelegram, Bot]]:
    async with (
        FakeTelegram(limits=limits, clock=clock) as fake,
        Bot(TEST_TOKEN, base_url=fake.base_url) as client,
    ):
        yield fake, client


def last_429(fake: FakeTelegram) -> Call:
    call = fake.calls[-1]
    assert call.status == 429, call
    return call


async def test_limits_are_off_by_default(fake_telegram: FakeTelegram, bot: Bot) -> None:
    assert fake_telegram.limits is None
    group = fake_telegram.add_group("G", [fake_telegram.add_user("Ann")])
    for n in range(25):  # over 20 a minute in one group: fine without limits
        await bot.send_message(group.id, f"m{n}")
    assert fake_telegram.rate_limit_hits == [] and not fake_telegram.failed_calls()


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_overall_limit_counts_chat_calls_only() -> None:
    clock = FakeClock()
    limits = TelegramLimits(overall=Window(5, 1.0), group=None, private=None)
    async with limited(limits, clock) as (fake, bot):
        users = [fake.add_user(name) for name in ("A", "B", "C", "D", "E", "F")]
        for user in users:
            await user.start_bot()
        menu = await bot.send_message(users[0].id, "menu", reply_markup=keyboard([("A", "a")]))
        for user in users[1:5]:
            await bot.send_message(user.id, "hi")
        with pytest.raises(RetryAfter, match="Retry in 1 seconds"):
            await bot.send_message(users[5].id, "sixth in one second")
        call = last_429(fake)
        assert call.response == {
            "ok": False,
            "error_code": 429,
            "description": "Too Many Requests: retry after 1",
            "parameters": {"retry_after": 1},
        }
        assert fake.messages(users[5], from_bot=True) == []  # no effect
        (hit,) = fake.rate_limit_hits
        assert (hit.scope, hit.chat_id, hit.retry_after, hit.seq) == (
            "overall",
            users[5].id,
            1,
            call.seq,
        )
        assert hit.waited_out is None

        # Not limited: polling, answering a press, look-ups.
        assert (await bot.get_me()).username == "kozel_test_bot"
        assert (await bot.get_chat_member(users[0].id, users[0].id)).status == "member"
        offset = await drain(bot)
        press = asyncio.create_task(users[0].press_button(users[0], menu.message_id, "A"))
        (update,) = await bot.get_updates(offset=offset, timeout=5)
        assert update.callback_query is not None
        await update.callback_query.answer("pressed")
        assert (await press).text == "pressed"
        assert hit.waited_out is None

        clock.now += 0.5  # too early, and to another chat: the overall limit is global
        with pytest.raises(RetryAfter):
            await bot.send_message(users[1].id, "too early")
        assert hit.waited_out is False
        clock.now += 1.0  # the second 429 said "retry after 1" too
        await bot.send_message(users[1].id, "a second later")
        first, second = fake.rate_limit_hits
        assert (first.waited_out, second.waited_out) == (False, True)


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_group_limit_counts_edits_and_deletes() -> None:
    clock = FakeClock()
    async with limited(TelegramLimits(overall=None), clock) as (fake, bot):
        ann = fake.add_user("Ann")
        await ann.start_bot()
        group, other = fake.add_group("G", [ann]), fake.add_group("H", [ann])
        markup = keyboard([("x", "x")])
        sent = [await bot.send_message(group.id, f"m{n}") for n in range(10)]
        for n, message in enumerate(sent[:5]):
            await bot.edit_message_text(f"e{n}", group.id, message.message_id)
        for message in sent[5:8]:
            await bot.edit_message_reply_markup(group.id, message.message_id, reply_markup=markup)
        await bot.delete_message(group.id, sent[9].message_id)
        await bot.send_chat_action(group.id, "typing")  # the 20th in a minute
        with pytest.raises(RetryAfter, match="Retry in 60 seconds"):
            await bot.edit_message_text("over", group.id, sent[0].message_id)
        assert fake.message(group, sent[0].message_id).text == "e0"  # no effect
        await bot.send_message(other.id, "another group has its own minute")
        await bot.send_message(ann.id, "private chats too")
        await bot.get_chat(group.id)  # look-ups are not limited

        clock.now += 30
        with pytest.raises(RetryAfter, match="Retry in 30 seconds"):
            await bot.send_message(group.id, "half a minute later")
        clock.now += 30
        await bot.send_message(group.id, "a minute after the first")
        hits = fake.rate_limit_hits
        assert [(h.scope, h.chat_id, h.retry_after) for h in hits] == [
            ("group", group.id, 60),
            ("group", group.id, 30),
        ]
        assert [h.waited_out for h in hits] == [False, True]
        assert hits[0].next_method == "sendMessage"


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_private_limit_allows_a_burst_of_three() -> None:
    clock = FakeClock()
    async with limited(TelegramLimits(overall=None), clock) as (fake, bot):
        ann, bob = fake.add_user("Ann"), fake.add_user("Bob")
        await ann.start_bot()
        await bob.start_bot()
        hand = await bot.send_message(ann.id, "hand")
        await bot.edit_message_text("hand 2", ann.id, hand.message_id)
        await bot.edit_message_text("hand 3", ann.id, hand.message_id)
        with pytest.raises(RetryAfter, match="Retry in 1 seconds"):
            await bot.edit_message_text("hand 4", ann.id, hand.message_id)
        await bot.send_message(bob.id, "Bob's chat is not Ann's")
        clock.now += 0.5
        with pytest.raises(RetryAfter):
            await bot.delete_message(ann.id, hand.message_id)
        clock.now += 0.5
        await bot.edit_message_text("hand 4", ann.id, hand.message_id)  # one a second
        with pytest.raises(RetryAfter):
            await bot.send_message(ann.id, "no burst left")
        assert fake.message(ann, hand.message_id).text == "hand 4"
        hits = fake.rate_limit_hits
        assert [(h.scope, h.chat_id) for h in hits] == [("private", ann.id)] * 3
        # retry_after is whole seconds, rounded up: half a second owed is "retry after 1",
        # so the edit at +1.0 passed the bucket but did not wait the second hit out.
        assert [h.retry_after for h in hits] == [1, 1, 1]
        assert [h.waited_out for h in hits] == [False, False, None]


def test_window_and_bucket_shapes() -> None:
    clock = FakeClock()
    params = {"chat_id": -400000001}
    window = RateLimiter(TelegramLimits(overall=None), clock)
    bucket = RateLimiter(TelegramLimits.buckets(), clock)
    for limiter in (window, bucket):
        assert all(limiter.check("sendMessage", params) is None for _ in range(20))
    clock.now += 3  # a bucket refills one call in three seconds; a window waits a minute
    assert bucket.check("sendMessage", params) is None
    hit = window.check("sendMessage", params)
    assert hit is not None and hit.retry_after == 57
    assert window.check("answerCallbackQuery", {"callback_query_id": "1"}) is None
    assert window.check("getChatMember", params) is None
    assert window.check("setMyCommands", {}) is None
    supergroup = {"chat_id": "@kozel_club"}
    assert window.check("sendMessage", supergroup) is None
    assert window._states[("group", "@kozel_club")]
    enforced = FakeTelegram(limits=TelegramLimits.buckets())
    assert isinstance(enforced.limits and enforced.limits.group, Bucket)
    enforced.enforce_limits(None)
    assert enforced.limits is None and enforced.rate_limit_hits == []


async def test_press_log_version_times_and_chat_waits(
    fake_telegram: FakeTelegram, bot: Bot, ann: SimUser
) -> None:
    bob = fake_telegram.add_user("Bob")
    await bob.start_bot()
    offset = await drain(bot)
    before = time.time()
    sent = await bot.send_message(ann.id, "menu", reply_markup=keyboard([("A", "a")]))
    seq = fake_telegram.chat_seq(ann)
    waiter = asyncio.create_task(fake_telegram.wait_chat(ann, seq, timeout=3))
    await bot.send_message(bob.id, "Bob's chat does not wake Ann's waiter")
    await asyncio.sleep(0.01)
    assert not waiter.done()
    await bot.edit_message_text("menu 2", ann.id, sent.message_id, reply_markup=sent.reply_markup)
    assert await waiter and fake_telegram.chat_seq(ann) == seq + 1
    assert not await fake_telegram.wait_chat(ann, seq + 1, timeout=0.01)
    versions = fake_telegram.message(ann, sent.message_id).versions
    assert before <= versions[0].at <= versions[1].at <= time.time()

    press = asyncio.create_task(ann.press_button(ann, sent.message_id, "A"))
    (update,) = await bot.get_updates(offset=offset, timeout=5)
    assert update.callback_query is not None
    await update.callback_query.answer("ok")
    await press
    (record,) = fake_telegram.press_log
    assert (record.user_id, record.chat_id, record.data) == (ann.id, ann.id, "a")
    assert record.answer is not None and record.answer.text == "ok"
    assert record.latency is not None and 0 <= record.latency < 5


def test_bot_process_from_another_checkout(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    default = BotProcess(fake_telegram, tmp_path / "here")
    assert default.cwd == REPO_ROOT
    other = BotProcess(fake_telegram, tmp_path / "work", cwd=tmp_path / "checkout")
    path = other.environment()["PYTHONPATH"].split(os.pathsep)
    assert path[0] == str(tmp_path / "checkout")  # its bot package wins over this one


async def test_save_prepared_inline_message(
    fake_telegram: FakeTelegram, bot: Bot, ann: SimUser
) -> None:
    """Bot API 8.0, as PTB 22.8 calls it: a PreparedInlineMessage (id, expiration_date) for
    a known user and an InlineQueryResult; Telegram's 400s otherwise."""
    from telegram import InlineQueryResultArticle, InputTextMessageContent

    card = InlineQueryResultArticle(
        "r1",
        "The match is over",
        InputTextMessageContent("🏆 <b>The match is over!</b>", parse_mode="HTML"),
        reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("Open", url="https://t.me/x")]]),
    )
    before = time.time()
    prepared = await bot.save_prepared_inline_message(
        ann.id, card, allow_user_chats=True, allow_group_chats=True
    )
    assert prepared.id and prepared.expiration_date.timestamp() > before
    stored = fake_telegram.prepared_messages[prepared.id]
    assert stored.user_id == ann.id and stored.text == "🏆 <b>The match is over!</b>"
    assert stored.allowed == ("allow_user_chats", "allow_group_chats")
    assert stored.result["reply_markup"]["inline_keyboard"][0][0]["url"] == "https://t.me/x"
    with pytest.raises(BadRequest, match=r"(?i)user_id_invalid"):
        await bot.save_prepared_inline_message(424242, card, allow_user_chats=True)
    empty = InlineQueryResultArticle("r2", "Title", InputTextMessageContent(" "))
    with pytest.raises(BadRequest, match=r"(?i)message_empty"):
        await bot.save_prepared_inline_message(ann.id, empty, allow_user_chats=True)
    assert len(fake_telegram.prepared_messages) == 1


async def test_a_held_method_is_answered_only_when_released(
    fake_telegram: FakeTelegram, bot: Bot, ann: SimUser
) -> None:
    fake_telegram.hold("getMe")
    before = fake_telegram.received_count("getMe")
    asking = asyncio.create_task(bot.get_me())
    await fake_telegram.wait_for(lambda: fake_telegram.received_count("getMe") > before)
    await asyncio.sleep(0.2)
    assert not asking.done()  # received, not answered
    await bot.send_message(ann.id, "other methods are answered meanwhile")
    assert not asking.done()
    fake_telegram.release("getMe")
    assert (await asyncio.wait_for(asking, 30)).username
    assert (await bot.get_me()).username  # and the next one at once
