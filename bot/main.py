"""``kozel-bot``: read the environment, run the bot (long polling, or a webhook)."""

from __future__ import annotations

import logging
import sys

from .config import Config, ConfigError, help_text


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        print(help_text(), end="")
        return 0
    if args:
        print(f"kozel-bot: unknown argument {args[0]!r} (see kozel-bot --help)", file=sys.stderr)
        return 2
    try:
        config = Config.from_env()
    except ConfigError as err:
        print(f"kozel-bot: {err}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # httpx logs every request at INFO; keep it for DEBUG runs only.
    logging.getLogger("httpx").setLevel(
        logging.DEBUG if config.log_level == "DEBUG" else logging.WARNING
    )
    # At DEBUG these two log every statement and every step of every request: megabytes that
    # bury the bot's own lines (and cost much of its time).
    for chatty in ("aiosqlite", "httpcore"):
        logging.getLogger(chatty).setLevel(
            max(logging.INFO, logging.getLevelName(config.log_level))
        )
    from .telegram.app import (
        run,  # imported late so --help and config errors need no Telegram stack
    )

    return run(config)
