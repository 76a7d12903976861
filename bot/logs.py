"""The bot's logging, set up once at start: one handler on stderr, as text or JSON lines, and a
filter that masks every secret (the token, a database password, the webhook secret) in every
record, whoever logs it: PTB and the bot's HTTP client (``telegram.request``) put the token
in request URLs at DEBUG, and an error's text or traceback may carry it too.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterable
from typing import IO
from urllib.parse import unquote, urlsplit

from .config import Config

MASK = "***"
# A record's own fields; anything else on it came as ``extra`` (table and chat ids).
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def secrets_of(config: Config) -> list[str]:
    """What must never be written: the token (and its secret half, which alone is enough to
    act as the bot), the database password (as written in the URL and decoded), the webhook
    secret."""
    found = [config.token]
    _, colon, key = config.token.partition(":")
    if colon and len(key) >= 8:  # a real token's half is 35 characters; a short one is no secret
        found.append(key)
    if config.database_url:
        password = urlsplit(config.database_url).password
        if password:
            found += [password, unquote(password)]
    if config.webhook_secret:
        found.append(config.webhook_secret)
    return found


class Redact(logging.Filter):
    """Masks the secrets in a record's message, its traceback and its stack, once formatted
    here (so a secret passed as an argument is caught too)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        # Longest first: the whole token before its half.
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def mask(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.mask(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.mask(record.exc_text)
        if record.stack_info:
            record.stack_info = self.mask(record.stack_info)
        for key, value in vars(record).items():
            if key not in _STANDARD and isinstance(value, str):
                setattr(record, key, self.mask(value))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the record's
    ``extra`` fields (``table``, ``chat``, ``event``, …) and, after a failure, its traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": _iso(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                line[key] = value if isinstance(value, int | float | str | bool) else str(value)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, ensure_ascii=False)


def _iso(created: float) -> str:
    millis = int(created % 1 * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created)) + f".{millis:03d}Z"


_masking: Redact | None = None  # the handler's filter, once ``setup`` ran


def say(line: str) -> None:
    """One line for the operator on stderr, outside the log's format (a start that waits),
    its secrets masked as in every record: an error's text may carry the API's URL, token
    and all."""
    text = line if _masking is None else _masking.mask(line)
    print(text, file=sys.stderr, flush=True)


def setup(config: Config, stream: IO[str] | None = None) -> logging.Handler:
    """Route every log record through one handler on ``stream`` (stderr) in the configured
    format, secrets masked; the chatty libraries kept to what an operator needs."""
    global _masking
    handler = logging.StreamHandler(stream or sys.stderr)
    _masking = Redact(secrets_of(config))
    handler.addFilter(_masking)
    handler.setFormatter(JsonFormatter() if config.log_format == "json" else _text())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(config.log_level)
    logging.captureWarnings(True)  # a library's warning goes through the filter too
    sys.excepthook = _log_uncaught  # and so does a traceback that ends the process
    # At DEBUG this logs every statement: megabytes that bury the bot's own lines (and cost
    # much of its time).
    for chatty in ("aiosqlite",):
        logging.getLogger(chatty).setLevel(
            max(logging.INFO, logging.getLevelName(config.log_level))
        )
    return handler


def _log_uncaught(kind: type[BaseException], error: BaseException, tb: object) -> None:
    logging.getLogger("bot").critical("stopped by an error", exc_info=(kind, error, tb))  # type: ignore[arg-type]


def _text() -> logging.Formatter:
    return logging.Formatter(TEXT_FORMAT)
