"""A tiny python-telegram-bot application configured like the Kozel bot (same env vars).

Used by ``tests/test_fakebot.py`` to check BotProcess and PTB's startup/shutdown sequence
against the fake server before the real bot exists.  Run as a script.
"""

from __future__ import annotations

import logging
import os

from telegram import BotCommand, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)


async def _post_init(application: Application) -> None:  # type: ignore[type-arg]
    await application.bot.set_my_commands([BotCommand("start", "Start")])


async def _start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Ping", callback_data="ping")]])
    await update.effective_message.reply_text(
        "<b>hello</b>", parse_mode="HTML", reply_markup=keyboard
    )


async def _ping(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.callback_query is not None
    await update.callback_query.answer("pong")


def main() -> None:
    logging.basicConfig(level=os.environ.get("KOZEL_LOG_LEVEL", "INFO"))
    application = (
        Application.builder()
        .token(os.environ["KOZEL_BOT_TOKEN"])
        .base_url(os.environ["KOZEL_BOT_API_URL"] + "/bot")
        .post_init(_post_init)
        .build()
    )
    application.add_handler(CommandHandler("start", _start))
    application.add_handler(CallbackQueryHandler(_ping))
    application.run_polling(allowed_updates=Update.ALL_TYPES)


if __name__ == "__main__":
    main()
