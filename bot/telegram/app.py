"""Build and run the application: handlers, rate limiter, job queue, storage lifecycle."""

from __future__ import annotations

import logging

from telegram import BotCommand, Update
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    filters,
)

from ..config import Config
from ..i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, get_translator
from ..service import admin, timers
from ..service.core import Core, Settings
from ..service.restart import resume_all
from ..storage import open_storage
from . import handlers, ladder_handlers
from .io import JobScheduler, TelegramMessenger

log = logging.getLogger(__name__)

COMMANDS = (
    ("newgame", N_("open a Kozel table")),
    ("rules", N_("the rules of the variants")),
    ("score", N_("standings of the running match")),
    ("top", N_("this chat's ladder")),
    ("stats", N_("a player's statistics")),
    ("history", N_("the last matches")),
    ("settings", N_("turn timer")),
    ("language", N_("choose the language")),
    ("cancel", N_("cancel the table")),
    ("kick", N_("remove a player (reply to their message)")),
    ("resetladder", N_("start a new ladder season (admins)")),
    ("help", N_("how to play with me")),
)


def build(config: Config) -> Application:  # type: ignore[type-arg]
    app = (
        ApplicationBuilder()
        .token(config.token)
        .base_url(f"{config.api_url}/bot")
        .base_file_url(f"{config.api_url}/file/bot")
        .rate_limiter(
            AIORateLimiter(
                overall_max_rate=config.rate_limit,
                group_max_rate=config.group_rate_limit,
                max_retries=3,
            )
        )
        .concurrent_updates(True)  # presses from many private chats at once; tables lock themselves
        .post_init(_post_init(config))
        .post_shutdown(_post_shutdown)
        .build()
    )
    app.bot_data["config"] = config
    command_handlers = {
        "newgame": handlers.newgame_command,
        "start": handlers.start_command,
        "help": handlers.help_command,
        "cancel": handlers.cancel_command,
        "rules": handlers.rules_command,
        "language": handlers.language_command,
        "settings": handlers.settings_command,
        "score": handlers.score_command,
        "kick": handlers.kick_command,
    }
    for name, callback in command_handlers.items():
        app.add_handler(CommandHandler(name, callback))
    app.add_handler(CallbackQueryHandler(handlers.on_button))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, handlers.on_migrate))
    app.add_handler(ChatMemberHandler(handlers.on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    ladder_handlers.register(app)  # /top /stats /history /resetladder, reset buttons
    app.add_error_handler(handlers.on_error)
    return app


def _post_init(config: Config):  # type: ignore[no-untyped-def]
    async def post_init(app: Application) -> None:  # type: ignore[type-arg]
        storage = await open_storage(config.db)
        assert app.job_queue is not None
        settings = Settings(
            bot_username=app.bot.username,
            ai_delay=config.ai_delay,
            table_interval=config.table_interval,
            hand_interval=config.hand_interval,
            timeout_scale=config.timeout_scale,
        )
        core = Core(
            storage,
            TelegramMessenger(app.bot, _migrate_hook(app)),
            JobScheduler(app.job_queue),
            settings,
        )
        core.scheduler.bind(lambda due: timers.fire(core, due))
        app.bot_data["core"] = core
        await _register_commands(app)
        resumed = await resume_all(core)
        log.info("kozel-bot @%s ready; %d unfinished tables resumed", app.bot.username, resumed)

    return post_init


def _migrate_hook(app: Application):  # type: ignore[no-untyped-def, type-arg]
    async def migrate(old: int, new: int) -> None:
        await admin.chat_migrated(app.bot_data["core"], old, new)

    return migrate


async def _register_commands(app: Application) -> None:  # type: ignore[type-arg]
    for lang in LANGUAGES:
        t = get_translator(lang)
        commands = [BotCommand(name, t._(text)) for name, text in COMMANDS]
        code = None if lang == DEFAULT_LANGUAGE else lang
        await app.bot.set_my_commands(commands, language_code=code)


async def _post_shutdown(app: Application) -> None:  # type: ignore[type-arg]
    core = app.bot_data.get("core")
    if isinstance(core, Core):
        core.live_tables.cancel_all()
        core.live_hands.cancel_all()
        await core.storage.close()


def run(config: Config) -> None:
    app = build(config)
    app.run_polling(allowed_updates=Update.ALL_TYPES)
