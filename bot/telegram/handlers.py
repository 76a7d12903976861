"""Telegram in and out: parse the update, call one use case, send what it answered."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from telegram import (
    Bot,
    CallbackQuery,
    ChatMember,
    ChatMemberRestricted,
    MaybeInaccessibleMessage,
    Message,
    Update,
)
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError, TimedOut

from .. import callback
from ..screen import Screen, fit_html, fit_plain, plain
from ..service import admin, chat_settings, cup, info, lobby, nextgame, status
from ..service.core import Core
from ..service.people import remember
from ..service.ports import ChatInfo, Person, Shared
from ..service.reply import IsAdmin, IsMember, Press, Reply
from ..service.translators import user_t
from ..service.webapp import GroupMember
from ..storage import StorageUnavailable
from .io import markup
from .routes import ROUTES
from .runtime import Context

log = logging.getLogger(__name__)


def core_of(context: Context) -> Core:
    return context.bot_data.core


def person_of(update: Update) -> Person:
    user = update.effective_user
    assert user is not None
    return Person(user.id, user.first_name, user.username, user.language_code, shared_of(update))


def shared_of(update: Update) -> Shared | None:
    """A message sent as a chat: as a channel, or as the group itself (an anonymous admin)."""
    message, chat = update.message, update.effective_chat
    if message is None or message.sender_chat is None:
        return None
    if chat is not None and message.sender_chat.id == chat.id:
        return Shared.ANONYMOUS
    return Shared.CHANNEL


def chat_of(update: Update) -> ChatInfo:
    chat = update.effective_chat
    assert chat is not None
    title = chat.title or chat.first_name or ""
    message = update.effective_message
    # Replies outside forums carry a message_thread_id too: only a topic's message is in one.
    thread_id = message.message_thread_id if message and message.is_topic_message else None
    return ChatInfo(chat.id, title, chat.type == ChatType.PRIVATE, thread_id)


def admin_check(update: Update, context: Context) -> IsAdmin:
    """Asked lazily: only a use case that needs it asks, and the answer is cached briefly
    (``chat_member`` updates correct it), so a flood of presses costs one getChatMember."""

    async def is_admin() -> bool:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None or chat.type == ChatType.PRIVATE:
            return False
        if shared_of(update) is Shared.ANONYMOUS:
            return True  # only admins can write as the group itself
        chat_id, user_id = chat.id, user.id

        async def fetch() -> bool | None:
            try:
                member = await context.bot.get_chat_member(chat_id, user_id)
            except TelegramError:
                log.warning("getChatMember failed in %s", chat_id)
                return None
            return _is_admin_status(member)

        return await core_of(context).admins.ask(chat_id, user_id, fetch)

    return is_admin


def _is_admin_status(member: ChatMember) -> bool:
    return member.status in (ChatMember.ADMINISTRATOR, ChatMember.OWNER)


def member_check(update: Update, context: Context) -> IsMember:
    """Whether the user is in a group: member, admin, creator, or restricted but a member."""

    async def is_member(chat_id: int) -> bool:
        user = update.effective_user
        if user is None:
            return False
        return bool(await group_member(context.bot)(chat_id, user.id))

    return is_member


def group_member(bot: Bot) -> GroupMember:
    """Asks Telegram whether a user is in a group (None: Telegram could not say)."""

    async def is_member(chat_id: int, user_id: int) -> bool | None:
        try:
            member = await bot.get_chat_member(chat_id, user_id)
        except TelegramError as err:
            log.info("getChatMember failed in %s: %s", chat_id, err)
            return None
        if isinstance(member, ChatMemberRestricted):
            return member.is_member
        return member.status in (ChatMember.MEMBER, ChatMember.ADMINISTRATOR, ChatMember.OWNER)

    return is_member


async def reply(context: Context, message: Message | None, answer: Reply) -> None:
    """Answer a command in its chat, within the bot's budget like everything it sends."""
    if message is None:
        return
    screen = answer.screen or (Screen(answer.text) if answer.text else None)
    if screen is None:
        return
    await _within_budget(
        core_of(context),
        message.chat_id,
        lambda: message.reply_text(
            fit_html(screen.text), parse_mode=ParseMode.HTML, reply_markup=markup(screen)
        ),
    )


async def _within_budget(core: Core, chat_id: int, call: Callable[[], Awaitable[object]]) -> None:
    """Wait for the chat's budget, then call; a 429 is waited out once."""
    for attempt in range(2):
        while (wait := core.budget.ready_at(chat_id) - core.budget.clock()) > 0:
            await asyncio.sleep(wait)
        core.budget.spend(chat_id)
        try:
            await call()
            return
        except RetryAfter as err:
            seconds = err._retry_after.total_seconds()  # see io._answers
            core.budget.block(chat_id, seconds)
            if attempt:
                raise


# ------------------------------------------------------------------ commands


async def newgame_command(update: Update, context: Context) -> None:
    words = [word.lower() for word in context.args or []]
    # ``/newgame goat=6``: house rules alone, for the default variant.
    variant = words.pop(0) if words and "=" not in words[0] else None
    answer = await lobby.new_game(
        core_of(context), chat_of(update), person_of(update), variant, words
    )
    await reply(context, update.effective_message, answer)


async def cup_command(update: Update, context: Context) -> None:
    words = [word.lower() for word in context.args or []]
    variant = words.pop(0) if words and "=" not in words[0] else None  # as /newgame
    answer = await cup.command(core_of(context), chat_of(update), person_of(update), variant, words)
    await reply(context, update.effective_message, answer)


async def nextgame_command(update: Update, context: Context) -> None:
    answer = await nextgame.command(core_of(context), chat_of(update), person_of(update))
    await reply(context, update.effective_message, answer)


async def start_command(update: Update, context: Context) -> None:
    chat = chat_of(update)
    if not chat.is_private:
        answer = await info.show_help(core_of(context), chat, person_of(update))
    else:
        payload = context.args[0] if context.args else ""
        answer = await lobby.start_private(
            core_of(context), person_of(update), payload, member_check(update, context)
        )
    await reply(context, update.effective_message, answer)


async def help_command(update: Update, context: Context) -> None:
    answer = await info.show_help(core_of(context), chat_of(update), person_of(update))
    await reply(context, update.effective_message, answer)


async def cancel_command(update: Update, context: Context) -> None:
    answer = await admin.cancel_command(
        core_of(context), chat_of(update), person_of(update), admin_check(update, context)
    )
    await reply(context, update.effective_message, answer)


async def kick_command(update: Update, context: Context) -> None:
    message = update.effective_message
    replied = message.reply_to_message if message else None
    if replied is not None and replied.forum_topic_created is not None:
        replied = None  # in a topic, every message "replies" to the topic's first message
    target = None
    if replied is not None and replied.from_user is not None and not replied.from_user.is_bot:
        user = replied.from_user
        target = Person(user.id, user.first_name, user.username, user.language_code)
    answer = await admin.kick(
        core_of(context), chat_of(update), person_of(update), target, admin_check(update, context)
    )
    await reply(context, message, answer)


async def rules_command(update: Update, context: Context) -> None:
    variant = context.args[0].lower() if context.args else None
    answer = await info.rules(core_of(context), chat_of(update), person_of(update), variant)
    await reply(context, update.effective_message, answer)


async def language_command(update: Update, context: Context) -> None:
    answer = await chat_settings.language(core_of(context), chat_of(update), person_of(update))
    await reply(context, update.effective_message, answer)


async def settings_command(update: Update, context: Context) -> None:
    answer = await chat_settings.settings(core_of(context), chat_of(update), person_of(update))
    await reply(context, update.effective_message, answer)


async def score_command(update: Update, context: Context) -> None:
    answer = await info.score(core_of(context), chat_of(update), person_of(update))
    await reply(context, update.effective_message, answer)


async def status_command(update: Update, context: Context) -> None:
    """The owner's figures (``KOZEL_OWNER_ID``); anybody else hears nothing."""
    runtime = context.bot_data
    answer = await status.owner_status(
        runtime.core, runtime.process(), chat_of(update), person_of(update)
    )
    await reply(context, update.effective_message, answer)


# ------------------------------------------------------------------ buttons


async def on_button(update: Update, context: Context) -> None:
    """Answer the press first (what the use case said), then show its screen if it has one."""
    query = update.callback_query
    assert query is not None
    core = core_of(context)
    person, chat = person_of(update), chat_of(update)
    try:
        cb = callback.parse(query.data)
    except callback.CallbackDataError:
        t = user_t(await remember(core, person))
        await answer(query, Reply(t._("This button is not valid."), alert=True))
        return
    keyboard = keyboard_of(query.message)
    press = Press(cb, person, chat, admin_check(update, context), keyboard)
    result = await ROUTES[cb.op](core, press)
    await answer(query, result)
    # Only a menu's answer replaces the message pressed (and only a menu the press came from).
    message = query.message
    if result.screen is not None and cb.op in callback.MENU_OPS and message is not None:
        screen = result.screen
        try:
            await _within_budget(
                core,
                message.chat.id,
                lambda: query.edit_message_text(
                    fit_html(screen.text), parse_mode=ParseMode.HTML, reply_markup=markup(screen)
                ),
            )
        except TelegramError as err:
            log.debug("could not edit the menu: %s", err)


def keyboard_of(message: MaybeInaccessibleMessage | None) -> frozenset[str]:
    """The callback data on the pressed message as Telegram sent it (none if too old)."""
    if not isinstance(message, Message) or message.reply_markup is None:
        return frozenset()
    rows = message.reply_markup.inline_keyboard
    return frozenset(
        b.callback_data for row in rows for b in row if isinstance(b.callback_data, str)
    )


ANSWER_FOR = 12.0  # seconds to keep trying: Telegram takes an answer for about 15 s


async def answer(query: CallbackQuery, result: Reply) -> None:
    """Answer the press; network trouble and Telegram's own failures are tried again (while
    the press can still be answered), so the button stops spinning once the API is back."""
    loop = asyncio.get_running_loop()
    until, pause = loop.time() + ANSWER_FOR, 0.5
    # The use cases speak HTML; an answer is plain text of at most 200 characters.
    text = fit_plain(plain(result.text)) if result.text else None
    while True:
        try:
            await query.answer(text=text, show_alert=result.alert, url=result.url)
            return
        except RetryAfter as err:
            wait = err._retry_after.total_seconds()  # see io._answers
        except (TimedOut, NetworkError) as err:
            if isinstance(err, BadRequest):  # too old, answered already, ...
                log.info("callback answer failed: %s", err)
                return
            wait, pause = pause, min(pause * 2, 2.0)
        except TelegramError as err:
            log.info("callback answer failed: %s", err)
            return
        if loop.time() + wait > until:
            log.info("callback answer given up after %.0f s of trouble", ANSWER_FOR)
            return
        await asyncio.sleep(wait)


# ------------------------------------------------------------------ chat events


async def on_migrate(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is not None and message.migrate_to_chat_id is not None:
        await admin.chat_migrated(core_of(context), message.chat.id, message.migrate_to_chat_id)


async def on_topic_closed(update: Update, context: Context) -> None:
    chat = chat_of(update)
    if chat.thread_id is not None:
        await admin.topic_closed(core_of(context), chat.chat_id, chat.thread_id)


async def on_my_member(update: Update, context: Context) -> None:
    change = update.my_chat_member
    if change is None:
        return
    if change.new_chat_member.status in (ChatMember.LEFT, ChatMember.BANNED):
        await admin.bot_removed(core_of(context), change.chat.id, change.from_user.id)


async def on_member(update: Update, context: Context) -> None:
    """Telegram says someone's status changed (sent while the bot is an admin): the cache
    of who is an admin learns it at once."""
    change = update.chat_member
    if change is None:
        return
    member = change.new_chat_member
    core_of(context).admins.put(change.chat.id, member.user.id, _is_admin_status(member))


async def on_error(update: object, context: Context) -> None:
    """One place for every handler's failure: a webhook post of this update is answered with
    an error (Telegram sends it again). The database or Telegram being away is said once
    elsewhere (the store, ``service.reach``): here it is one quiet line, not a traceback."""
    error = context.error
    if isinstance(update, Update):
        context.bot_data.failures.add(update.update_id)
    away = isinstance(error, StorageUnavailable) or (
        isinstance(error, NetworkError) and not isinstance(error, BadRequest)
    )
    if away:
        log.info("update %s not handled now: %s", _update_id(update), error)
        return
    # The update's id and kind only: the update itself holds people's names and texts.
    log.error("unexpected error while handling %s", _described(update), exc_info=error)


def _update_id(update: object) -> object:
    return update.update_id if isinstance(update, Update) else type(update).__name__


def _described(update: object) -> str:
    if not isinstance(update, Update):
        return type(update).__name__  # a job or nothing: no update
    kinds = [kind for kind in Update.ALL_TYPES if getattr(update, kind, None) is not None]
    return f"update {update.update_id} ({', '.join(kinds) or 'empty'})"
