"""The settings table: one place for every setting, docs/operating.md's copy in step with it,
nonsense values refused in one line, secrets never shown."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import Config, ConfigError, help_text, markdown_table
from bot.service.running_settings import Settings

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456:AAHsecret-token-value"
HOOK_SECRET = "hook-secret_0123"
PASSWORD = "pg-pass-word"
SECRETS = (TOKEN, HOOK_SECRET, PASSWORD)


def test_the_operating_page_settings_table_is_the_one_in_the_code() -> None:
    page = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    table = markdown_table()
    assert table in page, "docs/operating.md's table is stale: python -m bot.config --markdown"
    printed = subprocess.run(
        [sys.executable, "-m", "bot.config", "--markdown"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert printed.stdout == table


def test_help_and_the_table_name_every_setting_with_its_default() -> None:
    table_rows = markdown_table().splitlines()[2:]
    for name, default in (
        ("KOZEL_LOBBY_EXPIRY", "1800"),
        ("KOZEL_IDLE_MATCH", "86400"),
        ("KOZEL_AI_DELAY", "1.2"),
        ("KOZEL_PRESS_BURST", "20"),
        ("KOZEL_LISTEN", "0.0.0.0:8080"),
    ):
        assert f"{name}\n" in help_text()
        (row,) = [row for row in table_rows if row.startswith(f"| `{name}` |")]
        assert f"`{default}`" in row
    config = Config.from_env({"KOZEL_BOT_TOKEN": "1:x"})
    assert (config.lobby_expiry, config.idle_match, config.ai_delay) == (1800, 86400, 1.2)
    assert (config.press_rate, config.press_burst, config.listen_port) == (4, 20, 8080)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("KOZEL_RATE_LIMIT", "-5", "KOZEL_RATE_LIMIT must be a number above 0, not '-5'"),
        ("KOZEL_AI_DELAY", "-1", "KOZEL_AI_DELAY must be a number at least 0, not '-1'"),
        ("KOZEL_PRESS_BURST", "0", "KOZEL_PRESS_BURST must be a whole number at least 1, not '0'"),
        ("KOZEL_PRESS_BURST", "2.5", "KOZEL_PRESS_BURST must be a whole number at least 1"),
        ("KOZEL_TIMEOUT_SCALE", "0", "KOZEL_TIMEOUT_SCALE must be a number above 0"),
        ("KOZEL_LOBBY_EXPIRY", "nan", "KOZEL_LOBBY_EXPIRY must be a number above 0"),
        ("KOZEL_IDLE_MATCH", "inf", "KOZEL_IDLE_MATCH must be a number above 0"),
        ("KOZEL_GROUP_RATE_LIMIT", "fast", "KOZEL_GROUP_RATE_LIMIT must be a number above 0"),
        ("KOZEL_LEASE_RENEW", "40", "KOZEL_LEASE_RENEW must be above 0 and below"),
        ("KOZEL_AI_BUDGET", "fast", "KOZEL_AI_BUDGET must be card-plays (20000), a time"),
        ("KOZEL_AI_BUDGET", "-5", "KOZEL_AI_BUDGET must be card-plays (20000), a time"),
    ],
)
def test_a_value_out_of_its_range_is_refused_with_the_range(
    name: str, value: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        Config.from_env({"KOZEL_BOT_TOKEN": "1:x", name: value})


def test_the_bot_refuses_a_nonsense_value_in_one_line_with_exit_code_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOZEL_")}
    env.update(KOZEL_BOT_TOKEN="1:x", KOZEL_DB=str(tmp_path / "k.sqlite3"), KOZEL_RATE_LIMIT="-5")
    result = subprocess.run(
        [sys.executable, "-m", "bot"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "kozel-bot: KOZEL_RATE_LIMIT must be a number above 0, not '-5'"
    ]


def test_secrets_never_show_in_a_repr_str_or_log_line(caplog: pytest.LogCaptureFixture) -> None:
    config = Config.from_env(
        {
            "KOZEL_BOT_TOKEN": TOKEN,
            "KOZEL_DATABASE_URL": f"postgresql://kozel:{PASSWORD}@db.example.org:5432/kozel",
            "KOZEL_WEBHOOK_URL": "https://bot.example.org/hook",
            "KOZEL_WEBHOOK_SECRET": HOOK_SECRET,
        }
    )
    settings = Settings.of(config, bot_username="kozel_bot")
    assert (config.token, config.webhook_secret) == (TOKEN, HOOK_SECRET)  # there, not shown
    assert settings.database_url == config.database_url and PASSWORD in settings.database_url
    with caplog.at_level(logging.INFO):
        logging.getLogger("test").info(
            "config %s, %r; settings %s, %r", *[config] * 2, *[settings] * 2
        )
    shown = [repr(config), str(config), f"{config}", repr(settings), str(settings), caplog.text]
    for text in shown:
        for secret in SECRETS:
            assert secret not in text, text
    assert "postgresql://kozel:***@db.example.org:5432/kozel" in repr(config)
    assert "token='***'" in repr(settings) and "bot_username='kozel_bot'" in repr(settings)


def test_the_service_settings_are_the_config_as_read() -> None:
    config = Config.from_env(
        {"KOZEL_BOT_TOKEN": "1:x", "KOZEL_LOBBY_EXPIRY": "60", "KOZEL_AI_DELAY": "0.5"}
    )
    settings = Settings.of(config, bot_username="club_bot")
    assert (settings.lobby_expiry, settings.ai_delay) == (60, 0.5)
    assert settings.bot_username == "club_bot"
    assert settings.idle_match == Settings().idle_match == config.idle_match
