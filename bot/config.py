"""The bot's settings, written once: each field of ``Config`` carries its environment variable,
default, help text and allowed range (``setting``); the parser (``Config.from_env``), ``kozel-bot
--help`` and docs/operating.md's table (``python -m bot.config --markdown``) all come from it.
``config_checks`` holds the ``Spec`` and the checks of values with a form of their own,
``config_docs`` the help and the table.
Secrets (the token, the webhook secret, a database password) never show in a ``repr`` or ``str``.
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, get_type_hints

from . import config_checks as checks
from . import config_docs
from .config_checks import (
    Check,
    ConfigError,
    Spec,
    setting,
    split_listen,
    without_password,
)

__all__ = [
    "Check",
    "Config",
    "ConfigError",
    "Spec",
    "help_text",
    "markdown_table",
    "setting",
    "split_listen",
    "without_password",
]

_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")

# ------------------------------------------------------------------ the settings


@dataclass(frozen=True, repr=False)
class Config:
    token: str = setting(
        "KOZEL_BOT_TOKEN",
        "",
        "the bot's token from @BotFather (required; without it `kozel-bot` exits with code 2)",
        secret=True,
        required="get a token from @BotFather and export it",
    )
    db: str = setting(
        "KOZEL_DB", "kozel.sqlite3", "the SQLite database file (WAL mode; migrated on start)"
    )
    database_url: str = setting(
        "KOZEL_DATABASE_URL",
        "",
        "a PostgreSQL database instead, `postgresql://user[:password]@host[:port]/db` "
        "(migrated on start; `KOZEL_DB` is then not used)",
        check=checks.postgres_url,
        shown="— (SQLite)",
    )
    api_url: str = setting(
        "KOZEL_BOT_API_URL",
        "https://api.telegram.org",
        "Bot API base URL (a local Bot API server; the tests point it at a fake one)",
        check=checks.base_url,
    )
    log_level: str = setting(
        "KOZEL_LOG_LEVEL", "INFO", "`DEBUG`, `INFO`, `WARNING` or `ERROR`", check=checks.log_level
    )
    log_format: str = setting(
        "KOZEL_LOG_FORMAT",
        "text",
        "`text` (one line a record) or `json` (one JSON object a line, for log shippers)",
        check=checks.log_format,
    )
    metrics: bool = setting(
        "KOZEL_METRICS",
        False,
        "`1`: the web server answers `GET /metrics` (Prometheus' text format; in polling mode "
        "the web server then runs on `KOZEL_LISTEN` for it)",
        check=checks.flag,
        shown="`0`",
    )
    owner_id: int = setting(
        "KOZEL_OWNER_ID",
        0,
        "the Telegram user id of the bot's owner, who may ask `/status` in the private chat "
        "(`0`: nobody)",
        at_least=0,
    )
    keep_finished_days: float = setting(
        "KOZEL_KEEP_FINISHED_DAYS",
        90.0,
        "days a finished or cancelled table's rows (its seats, log, leftover posts and timers) "
        "are kept before they are pruned; the ladder keeps its matches for ever (`0`: keep "
        "every table for ever)",
        at_least=0,
    )
    ai_delay: float = setting(
        "KOZEL_AI_DELAY", 1.2, "seconds a computer player pauses before it moves", at_least=0
    )
    rate_limit: float = setting(
        "KOZEL_RATE_LIMIT",
        30.0,
        "calls a second to Telegram from the whole bot (its flood limit; the bot keeps a "
        "little under it)",
        above=0,
    )
    group_rate_limit: float = setting(
        "KOZEL_GROUP_RATE_LIMIT", 20.0, "calls a minute to one group (Telegram's limit)", above=0
    )
    private_rate_limit: float = setting(
        "KOZEL_PRIVATE_RATE_LIMIT",
        1.0,
        "calls a second to one private chat (Telegram's limit)",
        above=0,
    )
    press_rate: float = setting(
        "KOZEL_PRESS_RATE",
        4.0,
        "presses and commands one person may send a second after a burst of "
        '`KOZEL_PRESS_BURST`; a press beyond is answered "slow down" and a command dropped, '
        "with no other work, so one person cannot slow the bot for others",
        above=0,
    )
    press_burst: int = setting(
        "KOZEL_PRESS_BURST", 20, "presses and commands one person may send at once", at_least=1
    )
    table_interval: float = setting(
        "KOZEL_TABLE_INTERVAL",
        3.0,
        "seconds a group's table waits for more changes before an edit",
        at_least=0,
    )
    hand_interval: float = setting(
        "KOZEL_HAND_INTERVAL",
        4.0,
        "seconds the hand of a player who is not to move waits for more changes before an edit",
        at_least=0,
    )
    timeout_scale: float = setting(
        "KOZEL_TIMEOUT_SCALE", 1.0, "multiplies every turn timer (tests use small values)", above=0
    )
    ai_budget: str | None = setting(
        "KOZEL_AI_BUDGET",
        None,
        "how far the strong and expert computers search a move: card-plays (`20000`), a time "
        "(`150ms`) or both (`20000,150ms`); unset: strong 20000 and expert 30000, about 40 and "
        "55 ms of one core a move (a small machine, or the tests, may want less)",
        check=checks.ai_budget,
    )
    webhook_url: str | None = setting(
        "KOZEL_WEBHOOK_URL",
        None,
        "the public HTTPS URL Telegram posts updates to (webhook mode); unset: the bot polls",
        check=checks.web_url,
    )
    webhook_secret: str | None = setting(
        "KOZEL_WEBHOOK_SECRET",
        None,
        "the secret Telegram sends with every update (`X-Telegram-Bot-Api-Secret-Token`); "
        "required with `KOZEL_WEBHOOK_URL`; 1–256 of `A-Z a-z 0-9 _ -`",
        secret=True,
    )
    listen: str = setting(
        "KOZEL_LISTEN",
        "0.0.0.0:8080",
        "`host:port` of the bot's web server (webhook, Mini App, `GET /healthz`, `GET /metrics`)",
        check=checks.host_port,
    )
    public_url: str | None = setting(
        "KOZEL_PUBLIC_URL",
        None,
        "the HTTPS base Telegram opens the Mini App at (`<url>/app`); set, the web server runs "
        'in polling mode too, hands get a "🃏 Open the table" button; unset, nothing changes',
        check=checks.base_url,
    )
    webapp_name: str | None = setting(
        "KOZEL_WEBAPP_NAME",
        None,
        "the Mini App's short name at @BotFather: the group's table gets a link "
        "`t.me/<bot>/<name>?startapp=<table>` (groups may not have `web_app` buttons)",
    )
    lobby_expiry: float = setting(
        "KOZEL_LOBBY_EXPIRY",
        1800.0,
        "seconds a lobby may stay unchanged before it is closed (the group is told)",
        above=0,
    )
    idle_match: float = setting(
        "KOZEL_IDLE_MATCH",
        86400.0,
        "seconds a match may go without a move before it is abandoned (and not rated)",
        above=0,
    )
    drain_seconds: float = setting(
        "KOZEL_DRAIN_SECONDS",
        2.0,
        "webhook mode: seconds a stopping worker (SIGTERM) still takes posts while `GET "
        "/healthz` already answers 503, so that the balancer sends them elsewhere before the "
        "worker stops listening (above the balancer's health-check interval)",
        at_least=0,
    )
    lease_seconds: float = setting(
        "KOZEL_LEASE_SECONDS",
        30.0,
        "webhook workers: how long a worker's claim on a timer or a chat lasts; a dead "
        "worker's timers and chats are taken over this long after its last renewal (polling: "
        "one bot per database holds a lock the system frees when it dies; a second process "
        "waits, saying so in one line, and takes over the moment the first one is gone)",
        above=0,
    )
    lease_renew: float = setting(
        "KOZEL_LEASE_RENEW",
        10.0,
        "seconds between renewals of a webhook worker's leases and claims (below "
        "`KOZEL_LEASE_SECONDS`)",
        above=0,
    )

    @property
    def storage(self) -> str:
        """What ``open_storage`` opens: the PostgreSQL URL if one is set, else the SQLite file."""
        return self.database_url or self.db

    @property
    def web_server(self) -> bool:
        """Whether the bot runs its HTTP server (the webhook or the Mini App needs it)."""
        return self.webhook_url is not None or self.public_url is not None or self.metrics

    @property
    def listen_host(self) -> str:
        return split_listen(self.listen)[0]

    @property
    def listen_port(self) -> int:
        return split_listen(self.listen)[1]

    def __repr__(self) -> str:
        shown = []
        for f in fields(self):
            value = getattr(self, f.name)
            spec = f.metadata.get("setting")
            if isinstance(value, str) and "://" in value:
                value = without_password(value)
            if value and spec is not None and spec.secret:
                value = "***"
            shown.append(f"{f.name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Read every setting; ConfigError (one line) for one that is missing or wrong."""
        env = os.environ if env is None else env
        hints = get_type_hints(Config)
        values: dict[str, Any] = {}
        for f, spec in _specs():
            raw = env.get(spec.env, "").strip()
            if raw:
                values[f] = _parse(spec, raw, hints[f])
            elif spec.required is not None:
                raise ConfigError(f"{spec.env} is not set: {spec.required}")
        config = Config(**values)
        config._check_together()
        if config.webhook_url is None:
            return replace(config, webhook_secret=None)  # only the webhook needs it
        return config

    def _check_together(self) -> None:
        if not self.lease_renew < self.lease_seconds:
            raise ConfigError("KOZEL_LEASE_RENEW must be above 0 and below KOZEL_LEASE_SECONDS")
        if self.webhook_url is None:
            return
        if self.webhook_secret is None:
            raise ConfigError(
                "KOZEL_WEBHOOK_SECRET is not set: webhook mode needs a secret "
                "(1-256 characters A-Z a-z 0-9 _ -)"
            )
        if not _SECRET.fullmatch(self.webhook_secret):
            raise ConfigError(
                "KOZEL_WEBHOOK_SECRET must be 1-256 characters from A-Z a-z 0-9 _ - "
                "(Telegram allows no others)"
            )


def _specs() -> list[tuple[str, Spec]]:
    """The settings in their order: (field, spec)."""
    return [(f.name, f.metadata["setting"]) for f in fields(Config)]


def _parse(spec: Spec, raw: str, kind: Any) -> object:
    if spec.check is not None:
        return spec.check(spec.env, raw)
    if kind is float or kind is int:
        return _number(spec, raw, kind)
    return raw


def _number(spec: Spec, raw: str, kind: type[float] | type[int]) -> float:
    what = " ".join(filter(None, ["a whole number" if kind is int else "a number", spec.allowed()]))
    refused = ConfigError(f"{spec.env} must be {what}, not {raw!r}")
    try:
        value = kind(raw)
    except ValueError:
        raise refused from None
    if not math.isfinite(value):
        raise refused
    if spec.above is not None and not value > spec.above:
        raise refused
    if spec.at_least is not None and not value >= spec.at_least:
        raise refused
    return value


def help_text() -> str:
    """What ``kozel-bot --help`` prints."""
    return config_docs.help_text(_defaults())


def markdown_table() -> str:
    """docs/operating.md's settings table (``python -m bot.config --markdown``)."""
    return config_docs.markdown_table(_defaults())


def _defaults() -> list[tuple[Spec, object]]:
    """Every setting with its default, in order."""
    return [(f.metadata["setting"], f.default) for f in fields(Config)]


if __name__ == "__main__":
    if sys.argv[1:] != ["--markdown"]:
        sys.exit("usage: python -m bot.config --markdown  (prints docs/operating.md's table)")
    print(markdown_table(), end="")
