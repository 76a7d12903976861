"""A throwaway PostgreSQL cluster for the tests: ``initdb`` and ``pg_ctl`` in a temporary folder.

The server listens on a unix socket in that folder only (no TCP port to collide with), trusts
every local connection, and skips fsync (the data is thrown away). ``initdb`` refuses to run as
root, so under root (as in CI) the cluster belongs to the unprivileged user ``nobody``.
Each test gets a fresh database copied from a template that already holds the schema.
"""

from __future__ import annotations

import asyncio
import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import asyncpg

from bot.storage import PostgresStorage

SUPERUSER = "postgres"
TEMPLATE = "kozel_template"
UNPRIVILEGED = "nobody"


def find_bindir() -> Path | None:
    """Where ``initdb`` and ``pg_ctl`` are: ``KOZEL_PG_BINDIR``, Debian's versioned folders
    (the newest), or the PATH."""
    candidates = [os.environ.get("KOZEL_PG_BINDIR", "")]
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0,
        reverse=True,
    )
    initdb = shutil.which("initdb")
    candidates.append(str(Path(initdb).parent) if initdb else "")
    for folder in filter(None, candidates):
        if all((Path(folder) / tool).is_file() for tool in ("initdb", "pg_ctl", "postgres")):
            return Path(folder)
    return None


def required() -> bool:
    """CI must run the PostgreSQL tests: it sets ``KOZEL_REQUIRE_POSTGRES=1`` (and ``CI``)."""
    return os.environ.get("KOZEL_REQUIRE_POSTGRES") == "1" or os.environ.get("CI") == "true"


class PgCluster:
    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        # Short and outside pytest's root-only folders: the socket path must stay under ~100
        # characters and be reachable by the cluster's owner.
        self.root = Path(tempfile.mkdtemp(prefix="kozel-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self._names = itertools.count(1)
        self._strategy = ""
        self._as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.root, UNPRIVILEGED)
            self._as_user = ["setpriv", "--reuid", UNPRIVILEGED, "--regid", "nogroup"]
            self._as_user += ["--clear-groups", "--"]

    def _run(self, *command: str) -> None:
        result = subprocess.run(
            [*self._as_user, *command],
            cwd=self.root,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "LC_ALL": "C"},
        )
        if result.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(
                f"{command[0]} failed ({result.returncode}): {result.stdout}{result.stderr}{log}"
            )

    def start(self) -> None:
        bindir = self.bindir
        self._run(
            str(bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            SUPERUSER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        )
        self.start_server()
        # On a thread of its own: the first test to ask may already be in an event loop.
        with ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, self._make_template()).result()

    def start_server(self) -> None:
        """Start the server on the cluster's data (again, after ``stop_server``)."""
        options = (
            f"-k {self.root} -c listen_addresses='' -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=400"
        )
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
            "-o", options, "start",
        )  # fmt: skip

    def stop_server(self) -> None:
        """Stop the server as a restart does (``-m fast``: every session is cut, nothing is
        lost); ``start_server`` brings it back with the same databases."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.root}"

    async def _admin(self) -> asyncpg.Connection:
        return await asyncpg.connect(self.url("postgres"))

    async def _make_template(self) -> None:
        conn = await self._admin()
        try:
            if conn.get_server_version().major >= 15:  # copying files is quicker here
                self._strategy = " STRATEGY FILE_COPY"
            await conn.execute(f"CREATE DATABASE {TEMPLATE}")
        finally:
            await conn.close()
        store = await PostgresStorage.open(self.url(TEMPLATE))  # the schema, migrated once
        await store.close()

    async def create_database(self, *, empty: bool = False) -> str:
        """A new database (with the schema, or ``empty``); returns its URL."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        template = "template0" if empty else TEMPLATE
        conn = await self._admin()
        try:
            await conn.execute(f"CREATE DATABASE {name} TEMPLATE {template}{self._strategy}")
        finally:
            await conn.close()
        return self.url(name)

    async def drop_database(self, url: str) -> None:
        name = url.split("?")[0].rsplit("/", 1)[-1]
        conn = await self._admin()
        try:
            await conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        finally:
            await conn.close()
