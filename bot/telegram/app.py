"""Build and run the application: handlers, the outbox sender, job queue, storage lifecycle."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys

from aiohttp.web import AbstractRouteDef
from telegram import BotCommand, Update
from telegram.ext import (
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
from ..service.budget import Budget, Limits
from ..service.core import Core, Settings
from ..service.gate import Gate
from ..service.lease import Lease, Workers, holder_id
from ..service.restart import resume_all
from ..service.sender import Sender
from ..service.timer_runner import TimerRunner
from ..storage import open_storage
from ..web.mini_app import MiniApp
from ..web.server import WebServer
from . import handlers, ladder_handlers, webhook
from .io import TelegramMessenger
from .processor import FairProcessor

log = logging.getLogger(__name__)
HEALTH_TIMEOUT = 3.0  # seconds the database has to answer /healthz

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
    ("kick", N_("remove a player from the table")),
    ("resetladder", N_("start a new ladder season (admins)")),
    ("help", N_("how to play with me")),
)


def build(config: Config) -> Application:  # type: ignore[type-arg]
    builder = (
        ApplicationBuilder()
        .token(config.token)
        .base_url(f"{config.api_url}/bot")
        .base_file_url(f"{config.api_url}/file/bot")
        # Presses from many private chats at once (tables lock themselves), each person
        # within a fair share so that nobody can fill every slot.
        .concurrent_updates(FairProcessor(Gate(config.press_rate, config.press_burst)))
        .post_init(_post_init(config))
        .post_stop(_post_stop)
        .post_shutdown(_post_shutdown)
    )
    if config.webhook_url is not None:
        builder = builder.updater(None)  # updates come to our own web server (webhook.py)
    app = builder.build()
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
    closed = filters.StatusUpdate.FORUM_TOPIC_CLOSED
    app.add_handler(MessageHandler(closed, handlers.on_topic_closed))
    app.add_handler(ChatMemberHandler(handlers.on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(ChatMemberHandler(handlers.on_member, ChatMemberHandler.CHAT_MEMBER))
    ladder_handlers.register(app)  # /top /stats /history /resetladder, reset buttons
    app.add_error_handler(handlers.on_error)
    return app


def _post_init(config: Config):  # type: ignore[no-untyped-def]
    async def post_init(app: Application) -> None:  # type: ignore[type-arg]
        storage = await open_storage(config.storage)
        app.bot_data["storage"] = storage
        holder = holder_id()
        polling = config.webhook_url is None
        workers = None
        if polling:
            # Nothing is polled, sent or timed before this process holds the database's lease.
            lease = Lease(
                storage.leases,
                seconds=config.lease_seconds,
                renew_every=config.lease_renew,
                holder=holder,
            )
            await lease.acquire(say=lambda line: print(line, file=sys.stderr, flush=True))
            app.bot_data["lease"] = lease
            app.bot_data["lease_task"] = asyncio.create_task(
                lease.keep(app.stop_running), name="lease renewal"
            )
            alone = True
        else:
            # Webhook: any number of workers share the database; each claims its timers and
            # chats row by row, and keeps to its share of the bot's call budget.
            workers = Workers(
                storage.leases, holder, seconds=config.lease_seconds, renew_every=config.lease_renew
            )
            alone = await workers.alive() == 0
        settings = Settings(
            bot_username=app.bot.username,
            ai_delay=config.ai_delay,
            table_interval=config.table_interval,
            hand_interval=config.hand_interval,
            timeout_scale=config.timeout_scale,
            public_url=config.public_url,
            webapp_name=config.webapp_name,
            lobby_expiry=config.lobby_expiry,
            idle_match=config.idle_match,
        )
        # The bot's own budget replaces PTB's rate limiter: it knows which message matters most.
        limits = Limits.of(config.rate_limit, config.group_rate_limit, config.private_rate_limit)
        runner = TimerRunner(storage.timers, holder=holder, claim_seconds=config.lease_seconds)
        core = Core(
            storage,
            TelegramMessenger(app.bot, _migrate_hook(app)),
            runner,
            settings,
            Budget(limits),
        )
        runner.bind(lambda due: timers.fire(core, due))
        app.bot_data["core"] = core
        if workers is not None:
            core.budget.share(await workers.announce())
            app.bot_data["workers_task"] = asyncio.create_task(
                workers.keep(core.budget.share), name="worker lease"
            )
        if not polling:

            def heard(table_id: int) -> None:
                # Another worker saved a table: what it owes may be ours to send (a chat we
                # hold), its timers ours to run, its pages ours to tell.
                core.table_changed(table_id)
                runner.wake()

            await storage.watch_tables(heard)
        await _register_commands(app)
        resumed = await resume_all(core, alone=alone)
        app.bot_data["timers"] = runner
        app.bot_data["timers_task"] = asyncio.create_task(runner.run(), name="timers")
        sender = Sender(
            core, holder=None if polling else holder, claim_seconds=config.lease_seconds
        )
        app.bot_data["sender"] = sender
        app.bot_data["sender_task"] = asyncio.create_task(sender.run(), name="outbox sender")
        if config.web_server:
            await _start_web(app, core, config)
        log.info("kozel-bot @%s ready; %d unfinished tables resumed", app.bot.username, resumed)

    return post_init


async def _start_web(app: Application, core: Core, config: Config) -> None:  # type: ignore[type-arg]
    async def healthy() -> bool:
        try:
            return await asyncio.wait_for(core.storage.ping(), HEALTH_TIMEOUT)
        except TimeoutError:
            return False

    server = WebServer(config.listen_host, config.listen_port, health=healthy)
    if config.webhook_url is not None and config.webhook_secret is not None:
        path = webhook.webhook_path(config.webhook_url)
        server.add_routes(webhook.routes(app, path=path, secret=config.webhook_secret))
    server.add_routes(_web_routes(app, core, config))
    try:
        await server.start()
    except OSError as err:
        raise webhook.StartupError(
            f"cannot listen on {config.listen_host}:{config.listen_port} "
            f"(KOZEL_LISTEN): {err.strerror or err}"
        ) from None
    app.bot_data["web"] = server


def _web_routes(app: Application, core: Core, config: Config) -> list[AbstractRouteDef]:  # type: ignore[type-arg]
    """The Mini App's routes (only with a public URL: Telegram opens the page there)."""
    if config.public_url is None:
        return []
    mini_app = MiniApp(core, config.token)
    app.bot_data["mini_app"] = mini_app
    return list(mini_app.routes())


async def _close_web(app: Application) -> None:  # type: ignore[type-arg]
    server = app.bot_data.get("web")
    mini_app = app.bot_data.get("mini_app")
    if isinstance(mini_app, MiniApp):
        await mini_app.close()  # its open event streams end, so the server stops at once
    if isinstance(server, WebServer):
        await server.stop()


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


async def _post_stop(app: Application) -> None:  # type: ignore[type-arg]
    """Updates have stopped: close the web server, then the timers and the sender, while the
    bot's HTTP client still works (a delivery under way may finish)."""
    await _close_web(app)
    await _stop_work(app)


async def _stop_work(app: Application) -> None:  # type: ignore[type-arg]
    """Stop the timers and the sender (once: later calls find nothing)."""
    runner, task = app.bot_data.pop("timers", None), app.bot_data.pop("timers_task", None)
    if isinstance(runner, TimerRunner) and isinstance(task, asyncio.Task):
        task.cancel()
        await runner.stop()  # its claims go back: other workers may run them at once
    task = app.bot_data.pop("workers_task", None)
    if isinstance(task, asyncio.Task):
        task.cancel()
    sender, task = app.bot_data.pop("sender", None), app.bot_data.pop("sender_task", None)
    if isinstance(sender, Sender) and isinstance(task, asyncio.Task):
        task.cancel()
        await sender.stop()
        if sender.holder is not None:
            # Every lease of this worker (its chats and itself): others take over at once.
            with contextlib.suppress(Exception):
                await app.bot_data["storage"].leases.release_all(sender.holder)


async def _post_shutdown(app: Application) -> None:  # type: ignore[type-arg]
    await _close_web(app)
    await _stop_work(app)
    renewal, lease = app.bot_data.get("lease_task"), app.bot_data.get("lease")
    if isinstance(renewal, asyncio.Task):
        renewal.cancel()
    storage = app.bot_data.get("storage")
    if storage is not None:
        if isinstance(lease, Lease):
            await lease.release()  # a clean stop: the next process may start at once
        await storage.close()


def run(config: Config) -> int:
    """Run the bot until it is stopped; returns the exit status.

    A first start says what is wrong in one line: a token Telegram rejects ends the bot with
    status 2; an API that cannot be reached is said once, and the bot keeps running while PTB
    retries (``bootstrap_retries=-1``: getMe, then deleteWebhook, with a growing pause of up to
    30 seconds) until Telegram answers. The first getMe is made here, on the loop that
    ``run_polling`` then uses, so that PTB's own ``initialize`` finds the bot initialized.
    With ``KOZEL_WEBHOOK_URL`` the bot takes updates on its web server instead (``webhook.run``).
    """
    # Imported here to keep this function's needs next to it.
    import asyncio
    import sys

    from telegram.error import InvalidToken, NetworkError

    def rejected() -> int:
        print("kozel-bot: Telegram rejected the token: check KOZEL_BOT_TOKEN", file=sys.stderr)
        return 2

    def not_invalid_token(record: logging.LogRecord) -> bool:
        # PTB logs a refused token with a traceback before raising it; rejected() says it.
        return not (record.exc_info and isinstance(record.exc_info[1], InvalidToken))

    logging.getLogger("telegram.ext").addFilter(not_invalid_token)
    app = build(config)
    if config.webhook_url is not None:
        return webhook.run(app, config, rejected)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)  # run_polling runs on the current event loop
    try:
        loop.run_until_complete(app.initialize())
    except NetworkError as err:
        print(
            f"kozel-bot: Telegram's API at {config.api_url} cannot be reached ({err}); "
            "retrying with backoff (at most 30 s apart) until it answers",
            file=sys.stderr,
            flush=True,
        )
    except (InvalidToken, KeyboardInterrupt) as err:
        loop.run_until_complete(app.bot.shutdown())
        loop.close()
        return rejected() if isinstance(err, InvalidToken) else 0
    try:
        # ALL_TYPES includes chat_member, which Telegram sends only when asked for by name.
        app.run_polling(allowed_updates=Update.ALL_TYPES, bootstrap_retries=-1)
    except InvalidToken:  # Telegram came within reach and refused the token
        return rejected()
    except webhook.StartupError as err:
        print(f"kozel-bot: {err}", file=sys.stderr)
        return 2
    return 0
