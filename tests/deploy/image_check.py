"""The image as users run it: built from the Dockerfile (``deploy/image-test`` builds it with
buildah and runs this file; pytest does not collect it on its own), started as its own
unprivileged user with its own entrypoint and environment, against the fake Bot API on
127.0.0.1 (host networking). It answers ``/start`` (in Russian to a Russian, from the catalogs
compiled into the wheel), plays a whole match, passes its ``HEALTHCHECK`` while it runs and
fails it once stopped, and stops cleanly on SIGTERM, as ``docker stop`` sends it.

    KOZEL_IMAGE=localhost/kozel-bot:ci KOZEL_BUILDAH="buildah --root ..." \\
        .venv/bin/pytest tests/deploy/image_check.py
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from e2e.driver import ENV_FAST, MATCH_OVER, Table
from fakebot.process import BotProcess, free_port
from fakebot.server import FakeTelegram

pytestmark = pytest.mark.e2e

BUILDAH = shlex.split(os.environ.get("KOZEL_BUILDAH", "buildah"))
SECRET = "image-secret_for-the-tests"
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def buildah(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([*BUILDAH, *args], capture_output=True, text=True, check=False)
    if check and result.returncode != 0:
        raise AssertionError(f"buildah {' '.join(args)}: {result.stdout}{result.stderr}")
    return result


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    """The image's Docker configuration (user, entrypoint, healthcheck, ...)."""
    image = os.environ.get("KOZEL_IMAGE")
    if not image:
        pytest.fail("KOZEL_IMAGE names the image to test (deploy/image-test builds and sets it)")
    found = json.loads(buildah("inspect", "--type", "image", image).stdout)
    return dict(found["Docker"]["config"])


@pytest.fixture
def container(config: dict[str, Any]) -> Iterator[str]:
    name = buildah("from", "--pull=never", os.environ["KOZEL_IMAGE"]).stdout.strip()
    try:
        yield name
    finally:
        buildah("rm", name, check=False)


def run_in(container: str, user: str, env: Mapping[str, str]) -> list[str]:
    """The ``buildah run`` command (the container and the command follow) as the image's
    user, on the host's network, with ``env`` added to the image's environment."""
    flags = [f"--env={key}={value}" for key, value in env.items()]
    return [*BUILDAH, "run", "--isolation=chroot", "--network=host", f"--user={user}", *flags]


class ContainerBot(BotProcess):
    """The bot inside ``buildah run``: SIGTERM goes to the bot itself, as ``docker stop`` sends
    it (buildah would end its child with SIGKILL)."""

    def inner_pid(self) -> int | None:
        pending, found = [self.pid] if self.pid else [], None
        while pending:
            pid = pending.pop()
            for children in Path(f"/proc/{pid}/task").glob("*/children"):
                with contextlib.suppress(OSError):
                    pending += [int(child) for child in children.read_text().split()]
            with contextlib.suppress(OSError):
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                if b"kozel-bot" in b" ".join(argv) and b"buildah" not in argv[0]:
                    found = pid
        return found

    async def stop(self, timeout: float = 10.0) -> int | None:
        inner = self.inner_pid()
        if inner is not None and self._proc is not None:
            self._expect_exit = True
            os.kill(inner, signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._proc.wait(), timeout)
        return await super().stop(timeout)


def test_the_image_is_clean_and_runs_as_its_own_user(
    config: dict[str, Any], container: str
) -> None:
    assert config["User"] not in ("", "root", "0")
    uid = subprocess.run(
        [*run_in(container, config["User"], {}), container, "--", "id", "-u"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert uid != "0"
    root = Path(buildah("mount", container).stdout.strip())
    try:
        assert (root / "data").stat().st_uid == int(uid)  # the volume is the user's to write
        venv = root / "opt" / "kozel"
        site = next(venv.glob("lib/python3*/site-packages"))
        assert sorted(p.parent.name for p in site.glob("bot/locales/*/LC_MESSAGES")) == [
            "be", "da", "de", "ja", "ru", "uk",
        ]  # fmt: skip
        leftovers = [
            *[p for p in (root / "src", root / "app", root / "root" / ".cache") if p.exists()],
            *root.glob("**/*.egg-info"),
            *[p for p in site.iterdir() if p.name in ("build", "pip", "setuptools", "locales")],
            *(root / "var" / "lib" / "apt" / "lists").glob("*_Packages"),
        ]
        assert leftovers == []
    finally:
        buildah("umount", container, check=False)


async def test_the_image_answers_plays_a_match_and_passes_its_healthcheck(
    fake_telegram: FakeTelegram, tmp_path: Path, config: dict[str, Any], container: str
) -> None:
    fake = fake_telegram
    port = free_port()
    env = {
        **ENV_FAST,
        "KOZEL_BOT_TOKEN": fake.token,
        "KOZEL_BOT_API_URL": fake.url,
        # Webhook mode: the web server runs, so the healthcheck has /healthz to ask.
        "KOZEL_WEBHOOK_URL": f"http://127.0.0.1:{port}/telegram",
        "KOZEL_WEBHOOK_SECRET": SECRET,
        "KOZEL_LISTEN": f"127.0.0.1:{port}",
        "KOZEL_LOG_LEVEL": "INFO",
    }
    # As Docker runs it: the image's entrypoint, user, working folder and KOZEL_DB (/data).
    command = [*run_in(container, config["User"], env), container, "--", *config["Entrypoint"]]
    bot = ContainerBot(fake, tmp_path / "bot", command=command, startup_timeout=60)
    healthcheck = config["Healthcheck"]["Test"]
    assert healthcheck[0] == "CMD"
    check = [*run_in(container, config["User"], env), container, "--", *healthcheck[1:]]

    def healthy() -> subprocess.CompletedProcess[str]:
        return subprocess.run(check, capture_output=True, text=True, timeout=60, check=False)

    try:
        await bot.start()
        assert (result := healthy()).returncode == 0, result.stderr

        anna, bob = fake.add_user("Anna", "ru"), fake.add_user("Bob", "en")
        for person in (anna, bob):
            mark = fake.mark()
            await person.start_bot()
            await fake.wait_for_message(person, since=mark, timeout=20)
        assert CYRILLIC.search(fake.last_message(anna).text or "")  # the wheel's catalogs
        assert not CYRILLIC.search(fake.last_message(bob).text or "")

        group = fake.add_group("Kozel club", [bob], admins=[bob])
        table = Table(fake, group, hand_wait=20.0, press_wait=20.0)
        await table.open(bob, "moscow")
        await table.add_computer(bob, "basic")
        await table.start(bob)
        await table.play([bob], timeout=60)
        assert any(MATCH_OVER in text for text in fake.shown_texts(group))

        assert await bot.stop() == 0, bot.log_text()
        assert (result := healthy()).returncode != 0  # the check can fail: nothing answers
        assert "unhealthy" in result.stderr
    finally:
        await bot.aclose()
    assert "Traceback" not in bot.log_text(), bot.log_text()
