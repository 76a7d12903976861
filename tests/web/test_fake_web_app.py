"""The fake Bot API treats web_app buttons as Telegram does: private chats, HTTPS pages."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fakebot import FakeTelegram
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.error import BadRequest


@pytest.fixture
async def bot(fake_telegram: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(fake_telegram.token, base_url=fake_telegram.base_url) as bot:
        yield bot


def opener(url: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("🃏", web_app=WebAppInfo(url))]])


async def test_web_app_buttons_open_https_pages_in_private_chats(
    fake_telegram: FakeTelegram, bot: Bot
) -> None:
    ann = fake_telegram.add_user("Ann")
    await ann.start_bot()
    group = fake_telegram.add_group("Club", [ann])
    sent = await bot.send_message(ann.id, "hand", reply_markup=opener("https://k.example/app"))
    assert fake_telegram.message(ann, sent.message_id).buttons[0].raw["web_app"] == {
        "url": "https://k.example/app"
    }
    await bot.send_message(ann.id, "test", reply_markup=opener("http://127.0.0.1:8080/app"))
    with pytest.raises(BadRequest, match=r"(?i)only https links are allowed"):
        await bot.send_message(ann.id, "plain", reply_markup=opener("http://k.example/app"))
    with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
        await bot.send_message(group.id, "table", reply_markup=opener("https://k.example/app"))
    with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
        table = await bot.send_message(group.id, "table")
        await bot.edit_message_reply_markup(
            group.id, table.message_id, reply_markup=opener("https://k.example/app")
        )
