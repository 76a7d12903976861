"""``kozel-bot`` says clearly what is missing, and lists its settings."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bot.config import Config, ConfigError


def run_bot(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_without_a_token_it_exits_with_code_2_and_one_clear_line() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOZEL_")}
    result = run_bot(env=env)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "kozel-bot: KOZEL_BOT_TOKEN is not set: get a token from @BotFather and export it"
    ]


def test_help_lists_the_settings() -> None:
    result = run_bot("--help", env=dict(os.environ))
    assert result.returncode == 0
    for name in ("KOZEL_BOT_TOKEN", "KOZEL_DB", "KOZEL_BOT_API_URL", "KOZEL_LOG_LEVEL"):
        assert name in result.stdout


def test_defaults() -> None:
    config = Config.from_env({"KOZEL_BOT_TOKEN": "1:x"})
    assert config.db == "kozel.sqlite3"
    assert config.api_url == "https://api.telegram.org"
    assert config.log_level == "INFO"


def test_a_bad_log_level_is_refused() -> None:
    with pytest.raises(ConfigError):
        Config.from_env({"KOZEL_BOT_TOKEN": "1:x", "KOZEL_LOG_LEVEL": "LOUD"})
