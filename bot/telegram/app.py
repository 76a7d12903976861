"""Build and run the application: PTB with the handlers, run through the bot's ``lifespan``."""

from __future__ import annotations

import asyncio
import logging
import signal

from telegram.error import InvalidToken
from telegram.ext import (
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from .. import logs
from ..config import Config
from ..service.gate import Gate
from . import handlers, ladder_handlers
from .lifespan import StartupError, Stopped, lifespan
from .processor import FairProcessor
from .request import WatchedRequest
from .runtime import App, Runtime

POLL_READ_TIMEOUT = 5.0  # seconds beyond the long poll's own (PTB adds them)

COMMAND_HANDLERS = {
    "newgame": handlers.newgame_command,
    "nextgame": handlers.nextgame_command,
    "cup": handlers.cup_command,
    "start": handlers.start_command,
    "help": handlers.help_command,
    "cancel": handlers.cancel_command,
    "rules": handlers.rules_command,
    "language": handlers.language_command,
    "settings": handlers.settings_command,
    "score": handlers.score_command,
    "kick": handlers.kick_command,
    "status": handlers.status_command,  # the owner's only: not in the commands' menu
}


def build(config: Config) -> App:
    builder = (
        ApplicationBuilder()
        .token(config.token)
        .base_url(f"{config.api_url}/bot")
        .base_file_url(f"{config.api_url}/file/bot")
        .context_types(ContextTypes(bot_data=Runtime))  # the running services, typed
        .job_queue(None)  # the bot's timers are its own (``timer_loop``)
        # Presses from many private chats at once (tables lock themselves), each person
        # within a fair share so that nobody can fill every slot.
        .concurrent_updates(FairProcessor(Gate(config.press_rate, config.press_burst)))
    )
    # Our own HTTP clients: a read timeout long enough for Telegram's slow answers, and every
    # answer (or none) told to the watch on whether Telegram can be reached (``service.reach``).
    calls = WatchedRequest(connection_pool_size=256)
    polls = WatchedRequest(connection_pool_size=1, read_timeout=POLL_READ_TIMEOUT)
    builder = builder.request(calls).get_updates_request(polls)
    if config.webhook_url is not None:
        builder = builder.updater(None)  # updates come to our own web server (webhook.py)
    app = builder.build()
    app.bot_data.requests = [calls, polls]
    for name, callback in COMMAND_HANDLERS.items():
        app.add_handler(CommandHandler(name, callback))
    app.add_handler(CallbackQueryHandler(handlers.on_button))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, handlers.on_migrate))
    closed = filters.StatusUpdate.FORUM_TOPIC_CLOSED
    app.add_handler(MessageHandler(closed, handlers.on_topic_closed))
    app.add_handler(ChatMemberHandler(handlers.on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(ChatMemberHandler(handlers.on_member, ChatMemberHandler.CHAT_MEMBER))
    ladder_handlers.register(app)  # /top /stats /history /resetladder, reset buttons
    app.add_error_handler(handlers.on_error)
    return app


def run(config: Config) -> int:
    """Run the bot until it is stopped; returns the exit status.

    A first start says what is wrong in one line: a token Telegram rejects ends the bot with
    status 2; an API that cannot be reached is said once, and the bot keeps trying (getMe,
    with a growing pause of up to 30 seconds) until Telegram answers. Updates are polled, or
    with ``KOZEL_WEBHOOK_URL`` taken on the bot's web server; SIGTERM or SIGINT stops it
    (status 0). The database's lock lost to another process stops it with status 1.
    """
    logging.getLogger("telegram.ext").addFilter(_not_invalid_token)
    app = build(config)
    try:
        asyncio.run(serve(app, config))
    except InvalidToken:  # Telegram answered and refused the token
        logs.say("kozel-bot: Telegram rejected the token: check KOZEL_BOT_TOKEN")
        return 2
    except StartupError as err:
        logs.say(f"kozel-bot: {err}")
        return 2
    except KeyboardInterrupt:
        pass
    lease = app.bot_data.lease
    if lease is not None and lease.lost:
        return 1  # stopped because another process runs the bot now: not a clean stop
    return 0


async def serve(app: App, config: Config) -> None:
    """Run until a signal (or a lease taken over) sets ``stop``."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        async with lifespan(app, config, stop):
            await stop.wait()
    except Stopped:  # while waiting for Telegram or the lease: nothing to say
        pass


def _not_invalid_token(record: logging.LogRecord) -> bool:
    # PTB logs a refused token with a traceback before raising it; ``run`` says it in one line.
    return not (record.exc_info and isinstance(record.exc_info[1], InvalidToken))
