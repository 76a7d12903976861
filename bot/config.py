"""Configuration from the environment (no telegram import; read once at start)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

DEFAULT_API_URL = "https://api.telegram.org"

HELP = """kozel-bot — the Kozel card game bot for Telegram group chats.

Environment:
  KOZEL_BOT_TOKEN    the bot's token from @BotFather (required)
  KOZEL_DATABASE_URL PostgreSQL database, postgresql://user[:password]@host[:port]/db
                     (when set, KOZEL_DB is not used)
  KOZEL_DB           SQLite database file (default: kozel.sqlite3 in the working directory)
  KOZEL_BOT_API_URL  Bot API base URL (default: https://api.telegram.org;
                     set it to use a local Bot API server)
  KOZEL_LOG_LEVEL    DEBUG, INFO, WARNING or ERROR (default: INFO)
  KOZEL_AI_DELAY     seconds a computer player waits before it moves (default: 1.2)
  KOZEL_LOCALES      folder of the gettext catalogs (default: the project's locales/)
  KOZEL_TIMEOUT_SCALE  multiplies every turn timer (default: 1; tests use small values)
  KOZEL_RATE_LIMIT   requests per second for the whole bot (default: 30, Telegram's limit)
  KOZEL_GROUP_RATE_LIMIT  requests per minute to one group (default: 20, Telegram's limit)
  KOZEL_PRIVATE_RATE_LIMIT  requests per second to one private chat (default: 1)
  KOZEL_TABLE_INTERVAL  seconds a group's table waits for more moves before an edit (default: 1)
  KOZEL_HAND_INTERVAL  seconds the hand of a player who only waits waits (default: 4)
  KOZEL_WEBHOOK_URL  the public HTTPS URL Telegram posts updates to; unset: long polling
  KOZEL_WEBHOOK_SECRET  the secret Telegram sends with every update (required with
                     KOZEL_WEBHOOK_URL; 1-256 characters A-Z a-z 0-9 _ -)
  KOZEL_PUBLIC_URL   HTTPS base Telegram opens the Mini App at (<url>/app); enables the Mini
                     App and starts the web server
  KOZEL_WEBAPP_NAME  the Mini App's short name at @BotFather (a group table's link
                     t.me/<bot>/<name>)
  KOZEL_LISTEN       host:port the web server listens on (webhook, Mini App, GET /healthz;
                     default: 0.0.0.0:8080)
  KOZEL_PRESS_RATE   presses and commands a second one person may send, after a burst
                     of KOZEL_PRESS_BURST (defaults: 4 and 20); more are refused
  KOZEL_LOBBY_EXPIRY  seconds a lobby may stay unchanged before it is closed (default: 1800)
  KOZEL_IDLE_MATCH   seconds a match may go without a move before it is abandoned
                     (default: 86400)
  KOZEL_LEASE_SECONDS  one bot per database: a running bot's lease expires this long after
                     it dies (default: 30); it renews it every KOZEL_LEASE_RENEW s (default: 10)
"""

DEFAULT_LISTEN = "0.0.0.0:8080"
_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


class ConfigError(Exception):
    """The environment does not describe a runnable bot."""


@dataclass(frozen=True)
class Config:
    token: str
    db: str
    api_url: str
    log_level: str
    ai_delay: float
    table_interval: float
    hand_interval: float
    timeout_scale: float
    rate_limit: float
    group_rate_limit: float
    private_rate_limit: float = 1.0
    database_url: str = ""

    webhook_url: str | None = None
    webhook_secret: str | None = None
    listen_host: str = "0.0.0.0"
    listen_port: int = 8080
    public_url: str | None = None
    webapp_name: str | None = None
    press_rate: float = 4.0
    press_burst: int = 20

    lease_seconds: float = 30.0
    lease_renew: float = 10.0
    lobby_expiry: float = 1800.0
    idle_match: float = 86400.0

    @property
    def storage(self) -> str:
        """What ``open_storage`` opens: the PostgreSQL URL if one is set, else the SQLite file."""
        return self.database_url or self.db

    @property
    def web_server(self) -> bool:
        """Whether the bot runs its HTTP server (the webhook or the Mini App needs it)."""
        return self.webhook_url is not None or self.public_url is not None

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Config:
        env = dict(os.environ if env is None else env)
        token = env.get("KOZEL_BOT_TOKEN", "").strip()
        if not token:
            raise ConfigError(
                "KOZEL_BOT_TOKEN is not set: get a token from @BotFather and export it"
            )
        level = env.get("KOZEL_LOG_LEVEL", "INFO").upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise ConfigError(
                f"KOZEL_LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not {level!r}"
            )
        try:
            ai_delay = float(env.get("KOZEL_AI_DELAY", "1.2"))
            table_interval = float(env.get("KOZEL_TABLE_INTERVAL", "1.0"))
            hand_interval = float(env.get("KOZEL_HAND_INTERVAL", "4"))
            timeout_scale = float(env.get("KOZEL_TIMEOUT_SCALE", "1"))
            rate_limit = float(env.get("KOZEL_RATE_LIMIT", "30"))
            group_rate_limit = float(env.get("KOZEL_GROUP_RATE_LIMIT", "20"))
            private_rate_limit = float(env.get("KOZEL_PRIVATE_RATE_LIMIT", "1"))
            press_rate = float(env.get("KOZEL_PRESS_RATE", "4"))
            press_burst = int(env.get("KOZEL_PRESS_BURST", "20"))
            lease_seconds = float(env.get("KOZEL_LEASE_SECONDS", "30"))
            lease_renew = float(env.get("KOZEL_LEASE_RENEW", "10"))
            lobby_expiry = float(env.get("KOZEL_LOBBY_EXPIRY", "1800"))
            idle_match = float(env.get("KOZEL_IDLE_MATCH", "86400"))
        except ValueError as err:
            raise ConfigError(f"a timing setting is not a number: {err}") from None
        if not 0 < lease_renew < lease_seconds:
            raise ConfigError("KOZEL_LEASE_RENEW must be above 0 and below KOZEL_LEASE_SECONDS")
        database_url = env.get("KOZEL_DATABASE_URL", "").strip()
        if database_url and not database_url.startswith(("postgresql://", "postgres://")):
            raise ConfigError(
                "KOZEL_DATABASE_URL must be a postgresql:// URL "
                "(postgresql://user@host/db); unset it to use the SQLite file KOZEL_DB"
            )
        webhook_url, webhook_secret = _webhook(env)
        host, port = _listen(env.get("KOZEL_LISTEN", "").strip() or DEFAULT_LISTEN)
        return cls(
            token=token,
            db=env.get("KOZEL_DB", "kozel.sqlite3"),
            api_url=env.get("KOZEL_BOT_API_URL", DEFAULT_API_URL).rstrip("/"),
            log_level=level,
            ai_delay=ai_delay,
            table_interval=table_interval,
            hand_interval=hand_interval,
            timeout_scale=timeout_scale,
            rate_limit=rate_limit,
            group_rate_limit=group_rate_limit,
            private_rate_limit=private_rate_limit,
            database_url=database_url,
            webhook_url=webhook_url,
            webhook_secret=webhook_secret,
            listen_host=host,
            listen_port=port,
            public_url=env.get("KOZEL_PUBLIC_URL", "").strip().rstrip("/") or None,
            webapp_name=env.get("KOZEL_WEBAPP_NAME", "").strip() or None,
            press_rate=press_rate,
            press_burst=press_burst,
            lease_seconds=lease_seconds,
            lease_renew=lease_renew,
            lobby_expiry=lobby_expiry,
            idle_match=idle_match,
        )


def _webhook(env: dict[str, str]) -> tuple[str | None, str | None]:
    url = env.get("KOZEL_WEBHOOK_URL", "").strip() or None
    secret = env.get("KOZEL_WEBHOOK_SECRET", "").strip() or None
    if url is None:
        return None, None
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ConfigError(f"KOZEL_WEBHOOK_URL must be an https:// URL, not {url!r}")
    if secret is None:
        raise ConfigError(
            "KOZEL_WEBHOOK_SECRET is not set: webhook mode needs a secret "
            "(1-256 characters A-Z a-z 0-9 _ -)"
        )
    if not _SECRET.fullmatch(secret):
        raise ConfigError(
            "KOZEL_WEBHOOK_SECRET must be 1-256 characters from A-Z a-z 0-9 _ - "
            "(Telegram allows no others)"
        )
    return url, secret


def _listen(value: str) -> tuple[str, int]:
    host, colon, port = value.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")  # [::]:8080
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"KOZEL_LISTEN must be host:port (like {DEFAULT_LISTEN}), not {value!r}")
    return host, int(port)
