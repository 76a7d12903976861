"""How a setting of ``Config`` is declared (``setting``, its ``Spec``), and the checks of the
values with a form of their own (a log level, a URL, ``host:port``); ``ConfigError`` is what
each refusal raises, one line for the operator."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

T = TypeVar("T")


class ConfigError(Exception):
    """The environment does not describe a runnable bot (one line for the operator)."""


Check = Callable[[str, str], str]  # (variable, value) -> the value to use; raises ConfigError


@dataclass(frozen=True)
class Spec:
    """How one setting is read and described."""

    env: str
    help: str
    at_least: float | None = None  # the allowed range of a number
    above: float | None = None
    check: Check | None = None  # a value with a form of its own
    shown: str | None = None  # the default as --help and the table say it
    secret: bool = False  # never shown (a password inside a URL is hidden alone)
    required: str | None = None  # unset: refused, with this advice

    def allowed(self) -> str:
        if self.above is not None:
            return f"above {self.above:g}"
        if self.at_least is not None:
            return f"at least {self.at_least:g}"
        return ""


def setting(env: str, default: T, help: str, **details: Any) -> T:
    """A field of ``Config`` read from ``env`` (``default`` when unset or empty); ``details``
    are the rest of its ``Spec``."""
    return field(default=default, metadata={"setting": Spec(env, help, **details)})


def log_level(name: str, value: str) -> str:
    level = value.upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError(f"{name} must be DEBUG, INFO, WARNING or ERROR, not {level!r}")
    return level


def log_format(name: str, value: str) -> str:
    if value.lower() not in ("text", "json"):
        raise ConfigError(f"{name} must be text or json, not {value!r}")
    return value.lower()


def flag(name: str, value: str) -> bool:
    if value not in ("0", "1"):
        raise ConfigError(f"{name} must be 1 (on) or 0 (off), not {value!r}")
    return value == "1"


def postgres_url(name: str, value: str) -> str:
    if not value.startswith(("postgresql://", "postgres://")):
        raise ConfigError(
            f"{name} must be a postgresql:// URL "
            "(postgresql://user@host/db); unset it to use the SQLite file KOZEL_DB"
        )
    return value


def ai_budget(name: str, value: str) -> str:
    from kozel_rules.ai.search import Budget  # the engine loads only for this setting

    try:
        Budget.parse(value)
    except ValueError:
        raise ConfigError(
            f"{name} must be card-plays (20000), a time (150ms) or both (20000,150ms), "
            f"not {value!r}"
        ) from None
    return value


def web_url(name: str, value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ConfigError(f"{name} must be an https:// URL, not {value!r}")
    return value


def base_url(name: str, value: str) -> str:
    # Said without the rest of the value: a token pasted into the URL would show.
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http"):
        raise ConfigError(f"{name} must start with https:// or http://, not {parts.scheme!r}")
    if not parts.hostname:
        raise ConfigError(f"{name} must name a host (like https://api.telegram.org)")
    return value.rstrip("/")


def host_port(name: str, value: str) -> str:
    split_listen(value, name)
    return value


def split_listen(value: str, name: str = "KOZEL_LISTEN") -> tuple[str, int]:
    """``host:port`` (``[::]:8080`` too) as host and port."""
    host, colon, port = value.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"{name} must be host:port (like 0.0.0.0:8080), not {value!r}")
    return host, int(port)


def without_password(url: str) -> str:
    """The URL as it may be shown: a password in it replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
