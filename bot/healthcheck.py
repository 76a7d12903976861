"""``python -m bot.healthcheck``: the Docker HEALTHCHECK, 0 when the bot is healthy, 1 when not.

With a web server (webhook mode or the Mini App) it asks ``GET /healthz`` on ``KOZEL_LISTEN``.
Polling without a web server has no endpoint to ask: then it answers 0, and a crashed bot is
noticed by Docker as an exited container instead.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

from .config import Config, ConfigError

TIMEOUT = 4.0


def check(env: dict[str, str] | None = None) -> int:
    try:
        config = Config.from_env(env)
    except ConfigError as err:
        print(f"unhealthy: {err}", file=sys.stderr)
        return 1
    if not config.web_server:
        return 0
    host = config.listen_host
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"  # listening everywhere: ask over loopback
    if ":" in host:
        host = f"[{host}]"
    url = f"http://{host}:{config.listen_port}/healthz"
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
        with opener.open(url, timeout=TIMEOUT) as response:
            return 0 if response.status == 200 else 1
    except (urllib.error.URLError, OSError) as err:
        print(f"unhealthy: {url}: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(check())
