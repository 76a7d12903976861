"""A database the bot cannot use stops it at start with one line naming the cause and the
setting, and exit code 2, as a wrong setting does (run as the operator runs it: a process)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from fakebot.server import TEST_TOKEN, FakeTelegram
from test_main import bot_env, closed_port

PASSWORD = "not-to-be-shown"


async def start(env: dict[str, str], *, as_user: Sequence[str] = ()) -> tuple[int, list[str]]:
    """Run the bot until it exits; its exit code and what it said (stdout and stderr)."""
    process = await asyncio.create_subprocess_exec(
        *as_user,
        sys.executable,
        "-m",
        "bot",
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, output.decode().strip().splitlines()


def telegram(fake: FakeTelegram, tmp_path: Path, **settings: str) -> dict[str, str]:
    return bot_env(tmp_path, KOZEL_BOT_TOKEN=TEST_TOKEN, KOZEL_BOT_API_URL=fake.url, **settings)


async def test_postgresql_out_of_reach_is_one_line_naming_host_and_port(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    port = closed_port()
    url = f"postgresql://kozel:{PASSWORD}@127.0.0.1:{port}/kozel"
    code, lines = await start(telegram(fake_telegram, tmp_path, KOZEL_DATABASE_URL=url))
    assert code == 2
    assert len(lines) <= 3, lines
    assert lines[0].startswith(f"kozel-bot: cannot connect to PostgreSQL at 127.0.0.1:{port}: ")
    assert "KOZEL_DATABASE_URL" in lines[0]
    assert PASSWORD not in "\n".join(lines)


@pytest.fixture
def read_only_folder() -> Iterator[tuple[Path, list[str]]]:
    """A folder the bot's user may read but not write (a root-owned bind mount), and how to run
    as that user: as root, the bot runs as ``nobody`` (root may write anywhere)."""
    root = Path(tempfile.mkdtemp(prefix="kozel-ro-"))
    folder = root / "data"
    folder.mkdir()
    as_user: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: cannot run the bot as another user")
        as_user = ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups", "--"]
    root.chmod(0o755)
    folder.chmod(0o555)
    try:
        yield folder, as_user
    finally:
        folder.chmod(0o755)
        shutil.rmtree(root, ignore_errors=True)


async def test_a_sqlite_folder_not_writable_is_one_line_naming_the_path_and_kozel_db(
    fake_telegram: FakeTelegram, tmp_path: Path, read_only_folder: tuple[Path, list[str]]
) -> None:
    folder, as_user = read_only_folder
    path = folder / "kozel.sqlite3"
    env = telegram(fake_telegram, tmp_path, KOZEL_DB=str(path), HOME=str(folder))
    code, lines = await start(env, as_user=as_user)
    assert code == 2
    assert len(lines) <= 3, lines
    assert lines[0].startswith(f"kozel-bot: cannot open the SQLite database {path}: ")
    assert "KOZEL_DB" in lines[0] and "writable" in lines[0]


async def test_a_schema_newer_than_the_code_is_one_line(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    path = tmp_path / "newer.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 999")
    code, lines = await start(telegram(fake_telegram, tmp_path, KOZEL_DB=str(path)))
    assert code == 2
    assert len(lines) <= 3, lines
    assert lines[0].startswith("kozel-bot: database schema version 999 is newer than this code")
    assert "KOZEL_DB" in lines[0]
