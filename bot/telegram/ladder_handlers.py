"""Telegram handlers of the ladder: /top, /stats, /history, /resetladder, /achievements,
/pairs.

``register(app)`` adds them; the /resetladder confirmation buttons go through
``handlers.on_button`` like every other button.
"""

from __future__ import annotations

import logging
import re

from telegram import Message, MessageEntity, Update
from telegram.ext import CommandHandler

from ..service import awards, ladder
from ..service.ladder import StatsTarget
from ..service.ports import Person
from .handlers import admin_check, chat_of, core_of, person_of, reply
from .runtime import App, Context

log = logging.getLogger(__name__)

_USERNAME = re.compile(r"^@?([A-Za-z0-9_]{4,32})$")


def register(app: App) -> None:
    app.add_handler(CommandHandler("top", top_command))
    app.add_handler(CommandHandler("stats", stats_command))
    app.add_handler(CommandHandler("history", history_command))
    app.add_handler(CommandHandler("resetladder", resetladder_command))
    app.add_handler(CommandHandler("achievements", achievements_command))
    app.add_handler(CommandHandler("pairs", pairs_command))


async def top_command(update: Update, context: Context) -> None:
    answer_ = await ladder.top(
        core_of(context), chat_of(update), person_of(update), context.args or []
    )
    await reply(context, update.effective_message, answer_)


async def stats_command(update: Update, context: Context) -> None:
    target = stats_target(update.effective_message, context.args or [])
    answer_ = await ladder.stats(core_of(context), chat_of(update), person_of(update), target)
    await reply(context, update.effective_message, answer_)


async def history_command(update: Update, context: Context) -> None:
    answer_ = await ladder.history(
        core_of(context), chat_of(update), person_of(update), context.args or []
    )
    await reply(context, update.effective_message, answer_)


async def achievements_command(update: Update, context: Context) -> None:
    answer_ = await awards.achievements(core_of(context), chat_of(update), person_of(update))
    await reply(context, update.effective_message, answer_)


async def pairs_command(update: Update, context: Context) -> None:
    answer_ = await awards.pairs(core_of(context), chat_of(update), person_of(update))
    await reply(context, update.effective_message, answer_)


async def resetladder_command(update: Update, context: Context) -> None:
    answer_ = await ladder.reset_command(
        core_of(context), chat_of(update), person_of(update), admin_check(update, context)
    )
    await reply(context, update.effective_message, answer_)


def stats_target(message: Message | None, args: list[str]) -> StatsTarget:
    """Whose statistics: the author of the message replied to, a mentioned user, or an
    @username argument; nobody (the caller) otherwise."""
    if message is None:
        return StatsTarget()
    replied = message.reply_to_message
    if replied is not None and replied.from_user is not None and not replied.from_user.is_bot:
        user = replied.from_user
        return StatsTarget(
            person=Person(user.id, user.first_name, user.username, user.language_code)
        )
    for entity in message.entities:
        if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None:
            user = entity.user
            return StatsTarget(
                person=Person(user.id, user.first_name, user.username, user.language_code)
            )
        if entity.type == MessageEntity.MENTION:
            return StatsTarget(username=message.parse_entity(entity).removeprefix("@"))
    for arg in args:
        found = _USERNAME.match(arg)
        if found and arg.startswith("@"):
            return StatsTarget(username=found.group(1))
    return StatsTarget()
