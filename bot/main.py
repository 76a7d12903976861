"""``kozel-bot``: read the environment, run the bot (long polling, or a webhook)."""

from __future__ import annotations

import gc
import sys

from . import logs
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
    logs.setup(config)  # secrets masked in every record from here on
    # The Telegram stack is imported late, so --help and config errors need none of it. Its
    # modules are a few hundred thousand objects that live as long as the process: collecting
    # them while importing is wasted, and frozen they are never traversed again, not even at
    # exit (together a third of the CPU of a start and stop).
    gc.disable()
    try:
        from .telegram.app import run

        gc.freeze()
    finally:
        gc.enable()
    return run(config)
