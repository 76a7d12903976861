"""Telegram's side of a Mini App, for the browser tests: Telegram's own script served at its
real address, a native client (``window.TelegramWebviewProxy``) and Telegram Web (an iframe
parent at https://web.telegram.org that trades ``postMessage`` events with the page).

The script is ``telegram-web-app.js`` as the npm package ``@twa-dev/sdk`` vendors it (pinned
in package.json; ``npm ci`` puts it in node_modules). A local HTTPS server answers for
telegram.org and web.telegram.org; Chromium is told to resolve both to it and to accept its
self-signed certificate, so the page loads the script from the very URL Telegram documents.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import ssl
import subprocess
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "node_modules" / "@twa-dev" / "sdk"
SCRIPT = SDK / "src" / "telegram-web-apps.js"  # Telegram's telegram-web-app.js, as vendored
CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
CHROMEDRIVER = shutil.which("chromedriver")

BROWSER = Path(__file__).parent / "browser"
NATIVE_CLIENT = (BROWSER / "native_client.js").read_text()
# Telegram Web: the page in an iframe; events from it arrive as postMessage, events to it are
# posted into it; the client's own style goes in first (Telegram Web sends one).
WEB_CLIENT = (BROWSER / "web_client.html").read_text()


def need_browser() -> None:
    """Skip (fail in CI) without Chromium, its driver, Selenium or Telegram's script."""
    missing = [
        name for name, path in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)) if not path
    ]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install -e '.[test]')")
    if not SCRIPT.is_file():
        missing.append("Telegram's script (npm ci: node_modules/@twa-dev/sdk)")
    if missing:
        reason = f"no browser to test the Mini App with: {', '.join(missing)} missing"
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI installs them: .ci/run)")
        pytest.skip(reason + "; .ci/run installs chromium, chromium-driver and runs npm ci")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class TelegramOrg:
    """https://telegram.org/js/telegram-web-app.js and https://web.telegram.org/k/ on a
    local port (Chromium maps both names to it: ``host_rules``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self._runner: web.AppRunner | None = None

    @property
    def host_rules(self) -> str:
        return ",".join(
            f"MAP {host}:443 127.0.0.1:{self.port}" for host in ("telegram.org", "web.telegram.org")
        )

    def web_client_url(self, page_url: str) -> str:
        from urllib.parse import quote

        return f"https://web.telegram.org/k/#{quote(page_url, safe='')}"

    async def start(self) -> None:
        cert, key = self.folder / "cert.pem", self.folder / "key.pem"
        subprocess.run(
            [
                *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
                *("-subj", "/CN=telegram.org", "-keyout", str(key), "-out", str(cert)),
                *("-addext", "subjectAltName=DNS:telegram.org,DNS:web.telegram.org"),
            ],
            check=True,
            capture_output=True,
        )
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        app = web.Application()
        app.router.add_get("/js/telegram-web-app.js", self._script)
        app.router.add_get("/k/", self._web_client)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port, ssl_context=context).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _script(self, request: web.Request) -> web.Response:
        return web.Response(
            body=SCRIPT.read_bytes(), content_type="application/javascript", charset="utf-8"
        )

    async def _web_client(self, request: web.Request) -> web.Response:
        return web.Response(text=WEB_CLIENT, content_type="text/html")


class Browser:
    """A headless Chromium the size of a phone (390×844 CSS px), as a native Telegram client
    (``native``) or a plain browser for Telegram Web. Blocking calls: use via to_thread."""

    def __init__(self, telegram: TelegramOrg, *, native: bool) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM or ""
        for arg in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--window-size=420,900",
            f"--host-resolver-rules={telegram.host_rules}",
            "--ignore-certificate-errors",
            "--allow-running-insecure-content",  # Telegram Web (https) frames the http test page
            # The framed page in the same process as Telegram Web, so that its console is read
            # with the top page's (the driver's log holds only that process's).
            "--disable-site-isolation-trials",
            "--disable-features=IsolateOrigins,site-per-process",
        ):
            options.add_argument(arg)
        metrics = {"width": 390, "height": 844, "pixelRatio": 2}
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics})
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        options.accept_insecure_certs = True
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(20)
        if native:
            self.driver.execute_cdp_cmd(
                "Page.addScriptToEvaluateOnNewDocument", {"source": NATIVE_CLIENT}
            )
        self.logs: list[dict[str, Any]] = []

    def open(self, url: str) -> None:
        self.driver.get("about:blank")  # a new page even where only the fragment differs
        self.driver.get(url)

    def run(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def console(self) -> list[dict[str, Any]]:
        """Every console entry so far (kept: the browser hands each out once)."""
        self.logs += self.driver.get_log("browser")
        return self.logs

    def errors(self) -> list[str]:
        return [e["message"] for e in self.console() if e["level"] == "SEVERE"]

    def telegram_event(self, event: str, data: dict[str, Any]) -> None:
        """The native client tells the page something (theme_changed, viewport_changed...)."""
        self.run(
            "window.Telegram.WebView.receiveEvent(arguments[0], JSON.parse(arguments[1]))",
            event,
            json.dumps(data),
        )

    def sent(self) -> list[tuple[str, Any]]:
        """What the page told the native client, in order."""
        return [tuple(e) for e in self.run("return window.__telegram.sent")]

    def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(path))

    def close(self) -> None:
        self.driver.quit()
