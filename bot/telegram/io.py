"""The service's messenger port implemented with python-telegram-bot: sending, editing, deleting."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from uuid import uuid4

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    LinkPreviewOptions,
    WebAppInfo,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from ..screen import Screen, fit_html
from ..service.ports import MessageGone, RetryLater, TopicGone, Transient, Unreachable
from ..service.share import Card, Preparer

log = logging.getLogger(__name__)

OnMigrate = Callable[[int, int], Awaitable[None]]
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
# Telegram's 400s for a forum topic that was deleted or closed.
_TOPIC_GONE = ("message thread not found", "topic_closed", "topic_deleted")
# Telegram's 400s for a chat the bot may not write to (restricted, gone): no retry helps.
_CANNOT_WRITE = (
    "chat not found",
    "not enough rights",
    "have no rights",
    "chat_write_forbidden",
    "need administrator rights",
)


def markup(screen: Screen) -> InlineKeyboardMarkup | None:
    if not screen.buttons:
        return None
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    b.text,
                    callback_data=b.data,
                    url=b.url,
                    web_app=WebAppInfo(b.web_app) if b.web_app else None,
                    style=str(b.style) if b.style else None,
                )
                for b in row
            ]
            for row in screen.buttons
        ]
    )


class TelegramMessenger:
    """Telegram's answers as the service's exceptions: 403 and lost chats are Unreachable,
    429 is RetryLater, network trouble and Telegram's own failures are Transient."""

    def __init__(self, bot: Bot, on_migrate: OnMigrate) -> None:
        self._bot = bot
        self._on_migrate = on_migrate

    async def send(
        self, chat_id: int, screen: Screen, *, notify: bool = True, thread_id: int | None = None
    ) -> int:
        try:
            return await self._send(chat_id, screen, notify, thread_id)
        except ChatMigrated as err:
            await self._on_migrate(chat_id, err.new_chat_id)
            return await self._send(err.new_chat_id, screen, notify, thread_id)

    async def _send(self, chat_id: int, screen: Screen, notify: bool, thread_id: int | None) -> int:
        async with _answers():
            message = await self._bot.send_message(
                chat_id,
                fit_html(screen.text),
                parse_mode=ParseMode.HTML,
                reply_markup=markup(screen),
                disable_notification=not notify,
                link_preview_options=_NO_PREVIEW,
                message_thread_id=thread_id,
            )
        return message.message_id

    async def edit(self, chat_id: int, message_id: int, screen: Screen) -> None:
        try:
            async with _answers():
                await self._bot.edit_message_text(
                    fit_html(screen.text),
                    chat_id=chat_id,
                    message_id=message_id,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup(screen),
                    link_preview_options=_NO_PREVIEW,
                )
        except ChatMigrated as err:
            # The message stays in the old group; the table moved to the new one and owes it a
            # new message: this delivery is simply made again, for the new chat.
            await self._on_migrate(chat_id, err.new_chat_id)
            raise Transient(str(err)) from err
        except BadRequest as err:
            text = err.message.lower()
            if "not modified" in text:
                return  # the same content: nothing to do
            if "not found" in text or "can't be edited" in text:
                raise MessageGone(str(err)) from err
            raise

    async def delete(self, chat_id: int, message_id: int) -> None:
        try:
            async with _answers():
                await self._bot.delete_message(chat_id, message_id)
        except (BadRequest, ChatMigrated, Unreachable) as err:
            log.debug("could not delete message %s in %s: %s", message_id, chat_id, err)


def prepared_card(bot: Bot) -> Preparer:
    """Stores a result card as a prepared inline message (Bot API 8.0) that its user may
    send to any chat (the Mini App's ``shareMessage``); its id, or None if Telegram said no."""

    async def prepare(card: Card) -> str | None:
        button = [[InlineKeyboardButton(card.button, url=card.url)]] if card.url else None
        result = InlineQueryResultArticle(
            id=uuid4().hex,
            title=card.title,
            input_message_content=InputTextMessageContent(
                fit_html(card.text), parse_mode=ParseMode.HTML, link_preview_options=_NO_PREVIEW
            ),
            reply_markup=InlineKeyboardMarkup(button) if button else None,
        )
        try:
            prepared = await bot.save_prepared_inline_message(
                card.user_id,
                result,
                allow_user_chats=True,
                allow_bot_chats=True,
                allow_group_chats=True,
                allow_channel_chats=True,
            )
        except TelegramError as err:
            log.info("savePreparedInlineMessage failed for %s: %s", card.user_id, err)
            return None
        return prepared.id

    return prepare


@asynccontextmanager
async def _answers() -> AsyncIterator[None]:
    try:
        yield
    except RetryAfter as err:
        # A timedelta inside; the public attribute is still an int in PTB 22 (and warns).
        raise RetryLater(err._retry_after.total_seconds()) from err
    except Forbidden as err:
        raise Unreachable(str(err)) from err
    except BadRequest as err:
        text = err.message.lower()
        if any(reason in text for reason in _CANNOT_WRITE):
            raise Unreachable(str(err)) from err
        if any(words in text for words in _TOPIC_GONE):
            raise TopicGone(str(err)) from err
        raise
    except (TimedOut, NetworkError) as err:  # BadRequest is a NetworkError too: caught above
        raise Transient(str(err)) from err
