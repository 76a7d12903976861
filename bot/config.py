"""Configuration from the environment (no telegram import; read once at start)."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_API_URL = "https://api.telegram.org"

HELP = """kozel-bot — the Kozel card game bot for Telegram group chats (long polling).

Environment:
  KOZEL_BOT_TOKEN    the bot's token from @BotFather (required)
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
  KOZEL_LOBBY_EXPIRY  seconds a lobby may stay unchanged before it is closed (default: 1800)
  KOZEL_IDLE_MATCH   seconds a match may go without a move before it is abandoned
                     (default: 86400)
  KOZEL_LEASE_SECONDS  one bot per database: a running bot's lease expires this long after
                     it dies (default: 30); it renews it every KOZEL_LEASE_RENEW s (default: 10)
"""


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
    lease_seconds: float = 30.0
    lease_renew: float = 10.0
    lobby_expiry: float = 1800.0
    idle_match: float = 86400.0

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
            lease_seconds = float(env.get("KOZEL_LEASE_SECONDS", "30"))
            lease_renew = float(env.get("KOZEL_LEASE_RENEW", "10"))
            lobby_expiry = float(env.get("KOZEL_LOBBY_EXPIRY", "1800"))
            idle_match = float(env.get("KOZEL_IDLE_MATCH", "86400"))
        except ValueError as err:
            raise ConfigError(f"a timing setting is not a number: {err}") from None
        if not 0 < lease_renew < lease_seconds:
            raise ConfigError("KOZEL_LEASE_RENEW must be above 0 and below KOZEL_LEASE_SECONDS")
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
            lease_seconds=lease_seconds,
            lease_renew=lease_renew,
            lobby_expiry=lobby_expiry,
            idle_match=idle_match,
        )
