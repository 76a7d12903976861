"""Running the real bot (``python -m bot``) as a subprocess against a FakeTelegram."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from .server import TEST_TOKEN, FakeTelegram

__all__ = ["REPO_ROOT", "BotProcess", "free_port"]

REPO_ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A local TCP port nothing listens on (it was free a moment ago): for ``KOZEL_LISTEN``."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class BotProcess:
    """The bot process: environment, log file, readiness, stop/kill/restart.

    The database path stays the same across restarts, so crash-recovery tests can
    ``kill()`` and ``start()`` again.  While the process runs, its unexpected exit makes
    every ``FakeTelegram.wait_for`` fail at once instead of timing out.
    """

    def __init__(
        self,
        server: FakeTelegram,
        workdir: Path,
        *,
        token: str = TEST_TOKEN,
        env: Mapping[str, str] | None = None,
        command: Sequence[str] | None = None,
        startup_timeout: float = 20.0,
        cwd: Path | None = None,
        database_url: str | None = None,
    ) -> None:
        """``cwd``: the checkout to run (default: this one); it comes first on PYTHONPATH,
        so another checkout's ``bot`` package (an older commit, say) can be measured.
        ``database_url``: a PostgreSQL database to use instead of the SQLite file."""
        self.server = server
        self.workdir = workdir
        self.token = token
        self.db_path = workdir / "kozel.sqlite3"
        self.database_url = database_url
        self.db: Path | str = database_url or self.db_path
        """The bot's store: the PostgreSQL URL, or the SQLite file (see ``e2e.driver.rows``)."""
        self.log_path = workdir / "bot.log"
        self.extra_env = dict(env or {})
        self.command = list(command or [sys.executable, "-m", "bot"])
        self.startup_timeout = startup_timeout
        self.cwd = cwd or REPO_ROOT
        self._proc: asyncio.subprocess.Process | None = None
        self._log: IO[bytes] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._expect_exit = False
        self.starts = 0

    # ------------------------------------------------------------------ state

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode if self._proc else None

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KOZEL_")}
        python_path = [str(self.cwd)]
        if env.get("PYTHONPATH"):
            python_path.append(env["PYTHONPATH"])
        no_proxy = ",".join(filter(None, ["127.0.0.1,localhost", env.get("NO_PROXY")]))
        env.update(
            KOZEL_BOT_TOKEN=self.token,
            KOZEL_BOT_API_URL=self.server.url,
            KOZEL_DB=str(self.db_path),
            # INFO: DEBUG logs every request and update whole (a tenth of the bot's CPU in
            # a match). A test that reads a debug line asks for it; to see every call of a
            # failing test, run it with KOZEL_TEST_LOG_LEVEL=DEBUG.
            KOZEL_LOG_LEVEL=os.environ.get("KOZEL_TEST_LOG_LEVEL", "INFO"),
            # A killed bot's lease on the database expires soon: crash tests restart at once.
            KOZEL_LEASE_SECONDS="2",
            KOZEL_LEASE_RENEW="0.5",
            PYTHONPATH=os.pathsep.join(python_path),
            PYTHONUNBUFFERED="1",
            NO_PROXY=no_proxy,
            no_proxy=no_proxy,
        )
        if self.database_url:
            env["KOZEL_DATABASE_URL"] = self.database_url
        env.update(self.extra_env)
        return env

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    # ------------------------------------------------------------------ control

    async def start(self, *, until_polling: bool = True) -> None:
        """Spawn the bot and wait until it takes updates: its first getUpdates request, or
        (webhook mode) its setWebhook that the fake accepted; with ``until_polling`` False
        return once it is spawned (a bot that is expected to wait)."""
        if self._proc is not None:
            if self._proc.returncode is None and not self._expect_exit:
                raise RuntimeError("bot process already running")
            await self._proc.wait()  # reap a killed process
            await self._finish()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.server.clear_failure()
        polls_before = self.server.received_count("getUpdates")
        hooks_before = self._webhooks_set()
        self._log = self.log_path.open("ab")
        self._log.write(f"==== start #{self.starts + 1}: {self.command}\n".encode())
        self._log.flush()
        self._expect_exit = False
        self._proc = await asyncio.create_subprocess_exec(
            *self.command,
            cwd=self.cwd,
            env=self.environment(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=self._log,
            stderr=asyncio.subprocess.STDOUT,
        )
        self.starts += 1
        self._watcher = asyncio.create_task(self._watch(self._proc))
        if not until_polling:
            return
        try:
            await self.server.wait_for(
                lambda: (
                    self.server.received_count("getUpdates") > polls_before
                    or self._webhooks_set() > hooks_before
                ),
                self.startup_timeout,
                what="the bot to start polling (getUpdates) or set its webhook",
            )
        except (TimeoutError, RuntimeError) as exc:
            await self.stop()
            log = self.log_text()
            raise RuntimeError(f"bot did not start: {exc}\n--- bot log ---\n{log}") from None

    def _webhooks_set(self) -> int:
        return sum(1 for call in self.server.calls_to("setWebhook") if call.status == 200)

    async def _watch(self, proc: asyncio.subprocess.Process) -> None:
        code = await proc.wait()
        if not self._expect_exit:
            self.server.report_failure(f"bot process {proc.pid} exited unexpectedly with {code}")

    async def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, wait up to ``timeout`` seconds (then SIGKILL); returns the exit code."""
        proc = self._proc
        if proc is None:
            return None
        self._expect_exit = True
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), timeout)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        await self._finish()
        return proc.returncode

    def kill(self) -> None:
        """SIGKILL, like a crash; ``start()`` again to test recovery."""
        if self._proc is not None and self._proc.returncode is None:
            self._expect_exit = True
            self._proc.kill()

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    async def aclose(self) -> None:
        """Teardown: stop if still running and release everything."""
        if self._proc is not None:
            self._expect_exit = True
            if self._proc.returncode is None:
                await self.stop(timeout=5.0)
            else:
                await self._proc.wait()
                await self._finish()

    async def _finish(self) -> None:
        if self._watcher is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
            self._watcher = None
        if self._log is not None:
            self._log.close()
            self._log = None
