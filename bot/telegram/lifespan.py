"""The bot's lifespan, in one place: everything it runs is started here in order and stopped
in reverse (one ``AsyncExitStack``), in both modes (long polling, webhook).

Start: Telegram (getMe, tried again until it answers) → the database (polling: wait for its
lock) → the service → the timers and the sender → the watch on Telegram → PTB's update
processing → the web server → updates (polling, or the webhook set). Stop, after a signal or a
lost lock: the reverse, so no update is taken that would not be processed, work under way may
finish while the bot can still call Telegram, and the database goes last. The background
loops (``background``) run under the runtime's supervisor, which starts a failed one again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta
from typing import Any, TypeVar

from telegram import BotCommand, Update
from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError

from .. import logs
from ..config import Config
from ..i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, get_translator
from ..service import admin
from ..service import due_jobs as timers  # the jobs a due timer runs
from ..service.budget import Budget, Limits
from ..service.core import Core
from ..service.lease import Lease, Workers, holder_id
from ..service.reach import Reach
from ..service.releases import announced
from ..service.restart import resume_all
from ..service.running_settings import Settings
from ..service.timer_loop import TimerRunner
from ..storage import SchemaError, Storage, StorageError, open_storage
from ..web import metrics
from ..web.mini_app import MiniApp
from ..web.server import WebServer
from . import background, webhook
from .handlers import group_member
from .io import TelegramMessenger, prepared_card
from .runtime import App, Runtime

log = logging.getLogger(__name__)
T = TypeVar("T")

HEALTH_TIMEOUT = 3.0  # seconds the database has to answer /healthz
MAX_RETRY_PAUSE = 30.0  # seconds between tries while Telegram cannot be reached

COMMANDS = (
    ("newgame", N_("open a Kozel table")),
    ("nextgame", N_("tell me in private when the next table opens")),
    ("cup", N_("a cup for four: three matches, each partnering each other once")),
    ("rules", N_("the rules of the variants")),
    ("score", N_("standings of the running match")),
    ("top", N_("this chat's ladder")),
    ("stats", N_("a player's statistics")),
    ("history", N_("the last matches")),
    ("achievements", N_("achievements and who holds them")),
    ("pairs", N_("the best partnerships")),
    ("settings", N_("turn timer")),
    ("language", N_("choose the language")),
    ("cancel", N_("cancel the table")),
    ("kick", N_("remove a player from the table")),
    ("resetladder", N_("start a new ladder season (admins)")),
    ("help", N_("how to play with me")),
)


class StartupError(Exception):
    """The bot cannot start as configured; the message is one line for the operator."""


class Stopped(Exception):
    """Asked to stop (a signal) before the bot was up."""


@asynccontextmanager
async def lifespan(app: App, config: Config, stop: asyncio.Event) -> AsyncIterator[Runtime]:
    """Start the bot; yield its runtime while it runs; stop all of it once, in reverse.

    ``stop`` set while starting (waiting for Telegram or the database's lock) ends it with
    ``Stopped``; the lock taken over sets it."""
    runtime = app.bot_data
    holder = holder_id()
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(_telegram(app, config, stop))
        polling = config.webhook_url is None
        # Polling migrates only once it holds the lock: never under a bot that still runs.
        runtime.storage = storage = await _open_storage(config, migrate=not polling)
        stack.push_async_callback(storage.close)
        workers = None
        if polling:
            await stack.enter_async_context(_lease(runtime, holder, stop))
            await _migrate(storage, config)
        else:
            if not config.database_url:
                await stack.enter_async_context(_sqlite_alone(storage, holder))
            # Any number of workers share the database; each claims its timers and chats row
            # by row, and keeps to its share of the bot's call budget.
            workers = Workers(
                storage.leases,
                holder,
                seconds=config.lease_seconds,
                renew_every=config.lease_renew,
                updates=storage.updates,
            )
        # Alone, the stored timers are all this process's to run (see ``resume_all``).
        alone = workers is None or await workers.alive() == 0
        # Said before any lease or claim is taken (an unsaid holder counts as an old release).
        await stack.enter_async_context(
            announced(storage, runtime.supervisor, holder, config.lease_seconds, config.lease_renew)
        )
        core = _core(app, runtime, config, holder)
        stack.push_async_callback(core.analyses.close)  # the coach's worker process
        if workers is not None:
            await stack.enter_async_context(background.worker(runtime, workers))
        await _register_commands(app)
        resumed = await resume_all(core, alone=alone)
        await stack.enter_async_context(background.work(runtime, config, holder))
        await stack.enter_async_context(background.telegram_watch(app, runtime))
        await app.start()  # updates are processed from now on
        stack.push_async_callback(app.stop)
        await stack.enter_async_context(_web(app, runtime, config, holder))
        await stack.enter_async_context(_updates(app, config, stop))
        log.info("kozel-bot @%s ready; %d unfinished tables resumed", app.bot.username, resumed)
        yield runtime


@asynccontextmanager
async def _telegram(app: App, config: Config, stop: asyncio.Event) -> AsyncIterator[None]:
    """PTB's application, initialized (getMe) once Telegram answers; shut down last."""
    try:
        await until_stopped(retrying(app.initialize, config), stop)
        yield
    finally:
        await app.shutdown()
        await app.bot.shutdown()  # its HTTP client, if getMe never succeeded


async def _open_storage(config: Config, *, migrate: bool = True) -> Storage:
    """The database (its schema brought up to date, if ``migrate``), or one line saying why
    not and which setting names it."""
    try:
        return await open_storage(config.storage, migrate=migrate)
    except StorageError as err:
        raise _not_opened(err, config) from None


async def _migrate(storage: Storage, config: Config) -> None:
    try:
        await storage.migrate()
    except StorageError as err:
        raise _not_opened(err, config) from None


def _not_opened(err: StorageError, config: Config) -> StartupError:
    setting = "KOZEL_DATABASE_URL" if config.database_url else "KOZEL_DB"
    if isinstance(err, SchemaError):
        return StartupError(f"{err} ({setting}; see docs/operating.md: rolling upgrade)")
    return StartupError(f"{err} ({setting})")


@asynccontextmanager
async def _lease(runtime: Runtime, holder: str, stop: asyncio.Event) -> AsyncIterator[None]:
    """Polling: nothing is polled, sent or timed before this process holds the database's
    lock (the system frees it when the holder dies); losing it (another process took over
    after a database restart) stops the bot."""
    assert runtime.storage is not None
    lease = Lease(runtime.storage.process_lock(), holder=holder)
    try:
        await until_stopped(lease.acquire(say=_say), stop)
        runtime.lease = lease
        runtime.supervisor.start("database lock", lambda: lease.keep(stop.set))
        yield
    finally:
        await runtime.supervisor.stop("database lock")
        await lease.release()  # a clean stop: the next process may start at once


@asynccontextmanager
async def _sqlite_alone(storage: Storage, holder: str) -> AsyncIterator[None]:
    """Webhook workers on SQLite: one process per file. Its caches of people and chats trust
    that this process's writes are all there are (another worker's would be seen minutes
    late, and stale rows written back: an admin's /language undone)."""
    lock = storage.process_lock()
    if not await lock.take(holder):
        other = await lock.holder() or "another process"
        raise StartupError(
            f"the SQLite database is in use by another running bot ({other}): several "
            "webhook workers need PostgreSQL (KOZEL_DATABASE_URL); one SQLite file serves "
            "one process (KOZEL_DB)"
        )
    try:
        yield
    finally:
        await lock.release()


def _say(line: str) -> None:
    logs.say(line)


def _core(app: App, runtime: Runtime, config: Config, holder: str) -> Core:
    assert runtime.storage is not None
    storage = runtime.storage

    async def migrated(old: int, new: int) -> None:
        await admin.chat_migrated(runtime.core, old, new)

    # The bot's own budget replaces PTB's rate limiter: it knows which message matters most.
    limits = Limits.of(config.rate_limit, config.group_rate_limit, config.private_rate_limit)
    runner = TimerRunner(storage.timers, holder=holder, claim_seconds=config.lease_seconds)
    settings = Settings.of(config, bot_username=app.bot.username)
    core = Core(storage, TelegramMessenger(app.bot, migrated), runner, settings, Budget(limits))
    runner.bind(lambda due: timers.fire(core, due))
    runtime.runner = runner
    runtime.core = core
    reach = runtime.reach = Reach(storage.timers, storage.outbox, wake=core.wake_sender)
    for request in runtime.requests:
        request.on_answer, request.on_failure = reach.answered, reach.failed
    return core


@asynccontextmanager
async def _web(app: App, runtime: Runtime, config: Config, holder: str) -> AsyncIterator[None]:
    """The web server, when the webhook or the Mini App needs one."""
    if not config.web_server:
        yield
        return
    core = runtime.core

    async def healthy() -> bool:
        # Every loop the bot needs runs (none is waiting to start again after a failure), the
        # listener hears the database, and the database answers.
        if runtime.supervisor.down():
            return False
        if runtime.workers is not None and not core.storage.listening:
            return False  # only workers listen (polling, one process tells itself)
        if runtime.workers is not None and runtime.reach is not None and runtime.reach.cut_off:
            return False  # cut off from Telegram: the balancer sends updates to the others
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT):
                return await core.storage.ping()
        except TimeoutError:
            return False

    server = WebServer(config.listen_host, config.listen_port, health=healthy)
    if config.webhook_url is not None and config.webhook_secret is not None:
        path = webhook.webhook_path(config.webhook_url)
        updates = core.storage.updates
        receiver = webhook.AppReceiver(app, runtime.failures, updates, holder=holder)
        server.add_routes(webhook.routes(receiver, path=path, secret=config.webhook_secret))
    if config.metrics:
        server.add_routes(metrics.routes(core, runtime.process()))
    mini_app = None
    if config.public_url is not None:  # Telegram opens the page there
        mini_app = MiniApp(
            core, config.token, members=group_member(app.bot), prepare=prepared_card(app.bot)
        )
        server.add_routes(mini_app.routes())
    try:
        await server.start()
    except OSError as err:
        raise StartupError(
            f"cannot listen on {config.listen_host}:{config.listen_port} "
            f"(KOZEL_LISTEN): {err.strerror or err}"
        ) from None
    runtime.web, runtime.mini_app = server, mini_app
    try:
        yield
    finally:
        if config.webhook_url is not None:  # workers behind a balancer: it moves on first
            await server.drain(config.drain_seconds)
        if mini_app is not None:
            await mini_app.close()  # its open event streams end, so the server stops at once
        await server.stop()


@asynccontextmanager
async def _updates(app: App, config: Config, stop: asyncio.Event) -> AsyncIterator[None]:
    """Updates come in: polled (deleteWebhook first, tried again while Telegram cannot be
    reached), or posted to the webhook once Telegram took its URL."""
    if config.webhook_url is None:
        updater = app.updater
        assert updater is not None
        try:
            # ALL_TYPES includes chat_member, which Telegram sends only when asked for by name.
            polling = updater.start_polling(
                allowed_updates=Update.ALL_TYPES, bootstrap_retries=-1, error_callback=_poll_failed
            )
            await until_stopped(polling, stop)
            yield
        finally:
            if updater.running:
                await updater.stop()
        return
    url, secret = config.webhook_url, config.webhook_secret

    async def set_webhook() -> None:
        await app.bot.set_webhook(url, secret_token=secret, allowed_updates=Update.ALL_TYPES)

    try:
        await until_stopped(retrying(set_webhook, config), stop)
    except BadRequest as err:
        raise StartupError(f"Telegram refused the webhook URL {url}: {err.message}") from None
    log.info("webhook set to %s; listening", url)
    yield


def _poll_failed(error: TelegramError) -> None:
    """A poll that failed (PTB polls again, with a pause): Telegram out of reach is said once,
    by the watch on it (``service.reach``), not with a traceback per poll."""
    if isinstance(error, NetworkError) and not isinstance(error, BadRequest):
        log.debug("polling failed: %s", error)
    else:
        log.warning("polling failed: %s", error)


async def _register_commands(app: App) -> None:
    for lang in LANGUAGES:
        t = get_translator(lang)
        commands = [BotCommand(name, t._(text)) for name, text in COMMANDS]
        code = None if lang == DEFAULT_LANGUAGE else lang
        await app.bot.set_my_commands(commands, language_code=code)


async def until_stopped(step: Coroutine[Any, Any, T], stop: asyncio.Event) -> T:
    """Run ``step``, unless ``stop`` is set first: then it is cancelled and Stopped raised."""
    task = asyncio.create_task(step)
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
        if not task.done():
            task.cancel()
            await asyncio.wait({task})
    if task.cancelled():
        raise Stopped
    return task.result()


async def retrying(call: Callable[[], Awaitable[T]], config: Config) -> T:
    """Call until Telegram answers (pauses growing to 30 s); an API out of reach is said once,
    in one line. ``call`` makes a new request on every attempt."""
    pause, said = 1.0, False
    while True:
        try:
            return await call()
        except RetryAfter as err:
            after = err.retry_after
            wait = after.total_seconds() if isinstance(after, timedelta) else float(after)
        except BadRequest:
            raise
        except NetworkError as err:
            if not said:
                logs.say(
                    f"kozel-bot: Telegram's API at {config.api_url} cannot be reached ({err}); "
                    "retrying with backoff (at most 30 s apart) until it answers"
                )
                said = True
            wait, pause = pause, min(pause * 2, MAX_RETRY_PAUSE)
        await asyncio.sleep(wait)
