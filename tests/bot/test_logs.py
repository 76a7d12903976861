"""The bot's logging: secrets masked wherever they hide in a record, JSON lines, and an error
log that names the update without its content."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from telegram import Update

from bot import logs
from bot.config import Config
from bot.telegram.handlers import _described

TOKEN = "123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
PASSWORD = "p@ss word"
URL = "postgresql://kozel:p%40ss%20word@db.example.org:5432/kozel"


def config(**env: str) -> Config:
    return Config.from_env({"KOZEL_BOT_TOKEN": TOKEN, "KOZEL_DATABASE_URL": URL, **env})


@pytest.fixture
def output() -> Iterator[io.StringIO]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    stream = io.StringIO()
    yield stream
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


def test_the_token_and_the_password_are_masked_in_messages_args_and_tracebacks(
    output: io.StringIO,
) -> None:
    logs.setup(config(KOZEL_LOG_LEVEL="DEBUG"), output)
    log = logging.getLogger("httpx")
    log.debug('HTTP Request: POST https://api.telegram.org/bot%s/getMe "200 OK"', TOKEN)
    log.debug("the secret half alone: %s", TOKEN.split(":")[1])
    logging.getLogger("bot.storage").warning("connecting with %s (%s)", URL, PASSWORD)
    try:
        raise RuntimeError(f"request to /bot{TOKEN}/sendMessage failed")
    except RuntimeError:
        logging.getLogger("telegram.ext").exception("failed")
    text = output.getvalue()
    assert "/bot***/getMe" in text and "RuntimeError: request to /bot***/sendMessage" in text
    assert TOKEN not in text and TOKEN.split(":")[1] not in text
    assert "p%40ss%20word" not in text and PASSWORD not in text
    assert "postgresql://kozel:***@db.example.org" in text


def test_json_lines_carry_extra_fields(output: io.StringIO) -> None:
    logs.setup(config(KOZEL_LOG_FORMAT="json"), output)
    logging.getLogger("bot.tables").info(
        "table %d opened", 7, extra={"event": "opened", "table": 7, "chat": -100}
    )
    logging.getLogger("bot").debug("not at INFO")
    (line,) = output.getvalue().splitlines()
    record = json.loads(line)
    assert record["message"] == "table 7 opened" and record["level"] == "INFO"
    assert (record["event"], record["table"], record["chat"]) == ("opened", 7, -100)
    assert record["time"].endswith("Z")


def test_a_failed_update_is_named_by_id_and_kind_only() -> None:
    update = Update.de_json(
        {
            "update_id": 42,
            "message": {
                "message_id": 1,
                "date": 0,
                "chat": {"id": 5, "type": "private", "first_name": "Anna"},
                "from": {"id": 5, "is_bot": False, "first_name": "Anna"},
                "text": "my secret plan",
            },
        },
        None,
    )
    assert _described(update) == "update 42 (message)"
    assert _described(None) == "NoneType"
