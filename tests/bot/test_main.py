"""``kozel-bot`` says clearly what is missing or wrong, and lists its settings."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp import web
from fakebot.process import free_port
from fakebot.server import FakeTelegram

from bot.config import Config, ConfigError


def run_bot(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], env=env, capture_output=True, text=True, timeout=60
    )


def bot_env(tmp_path: Path, **settings: str) -> dict[str, str]:
    """The environment without any KOZEL_ setting of the caller's, plus ``settings``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOZEL_")}
    return {**env, "KOZEL_DB": str(tmp_path / "kozel.sqlite3"), **settings}


def closed_port() -> int:
    """A local port nothing listens on (it was free a moment ago)."""
    return free_port()


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


async def test_a_token_telegram_rejects_exits_with_code_2_and_one_clear_line(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    env = bot_env(tmp_path, KOZEL_BOT_TOKEN="123:wrong", KOZEL_BOT_API_URL=fake_telegram.url)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 2
    assert stderr.decode().strip().splitlines() == [
        "kozel-bot: Telegram rejected the token: check KOZEL_BOT_TOKEN"
    ]
    assert not stdout
    assert [call.status for call in fake_telegram.calls_to("getMe")] == [401]


@pytest.mark.waits(5)
def test_an_api_out_of_reach_is_said_once_and_the_bot_keeps_trying(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    env = bot_env(tmp_path, KOZEL_BOT_TOKEN="123:abc", KOZEL_BOT_API_URL=url)
    with subprocess.Popen(
        [sys.executable, "-m", "bot"], env=env, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stderr is not None
        first = process.stderr.readline()  # blocks until the bot has tried once
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=4)  # it keeps running, retrying
        process.send_signal(signal.SIGTERM)
        rest = process.communicate(timeout=30)[1]
    assert first.startswith(f"kozel-bot: Telegram's API at {url} cannot be reached (")
    assert first.rstrip().endswith("retrying with backoff (at most 30 s apart) until it answers")
    assert (first + rest).strip().splitlines() == [first.strip()]  # one line, no traceback
    assert process.returncode == 0


REAL_LOOKING_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"


def test_an_api_url_with_a_mistyped_scheme_exits_2_in_one_line_without_the_token(
    tmp_path: Path,
) -> None:
    env = bot_env(
        tmp_path,
        KOZEL_BOT_TOKEN=REAL_LOOKING_TOKEN,
        KOZEL_BOT_API_URL=f"htp://127.0.0.1:{closed_port()}",
        KOZEL_LOG_LEVEL="DEBUG",
    )
    result = run_bot(env=env)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "kozel-bot: KOZEL_BOT_API_URL must start with https:// or http://, not 'htp'"
    ]
    secret_half = REAL_LOOKING_TOKEN.partition(":")[2]
    assert secret_half not in result.stdout + result.stderr


@pytest.mark.waits(4)
async def test_an_api_url_that_redirects_forever_is_said_once_without_the_token(
    tmp_path: Path,
) -> None:
    """A URL that answers every call with a redirect to itself (a proxy's mistake): the bot
    follows none (the token would go wherever it points), says once that Telegram cannot be
    reached, keeps trying, and no stream shows the token, even at DEBUG."""
    seen: list[str] = []

    async def redirect(request: web.Request) -> web.Response:
        seen.append(request.path)
        raise web.HTTPFound(location=str(request.url))

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", redirect)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    url = f"http://127.0.0.1:{port}"
    env = bot_env(
        tmp_path, KOZEL_BOT_TOKEN=REAL_LOOKING_TOKEN, KOZEL_BOT_API_URL=url, KOZEL_LOG_LEVEL="DEBUG"
    )
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert process.stderr is not None
        said_at_first = b""
        while b"cannot be reached" not in said_at_first:  # its start may be slow under load
            said_at_first += await asyncio.wait_for(process.stderr.readline(), timeout=60)
        await asyncio.sleep(3.5)  # a few more tries, 1 s and 2 s apart
        assert process.returncode is None  # it keeps trying
        process.send_signal(signal.SIGTERM)
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
        stderr = said_at_first + stderr
    finally:
        await runner.cleanup()
    out = (stdout + stderr).decode()
    secret_half = REAL_LOOKING_TOKEN.partition(":")[2]
    assert secret_half not in out
    assert "/bot***/getMe" in out  # the DEBUG lines name the call, masked
    said = [line for line in out.splitlines() if "cannot be reached" in line]
    assert len(said) == 1, out[-2000:]
    assert said[0].startswith(f"kozel-bot: Telegram's API at {url} cannot be reached (")
    assert "redirected (302)" in said[0]
    # Not followed: one request per try, never to where the redirect pointed.
    assert 2 <= len(seen) <= 8, seen  # followed, each try would be 10 (aiohttp stops there)
    assert process.returncode == 0
