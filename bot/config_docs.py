"""The settings, described: ``kozel-bot --help`` and docs/operating.md's table, from each
setting's ``Spec`` and default (``bot.config`` hands them over, in ``Config``'s order)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from .config_checks import Spec

# Read by ``bot.i18n`` itself: its catalog tools run without a bot (nor a token).
ELSEWHERE = (
    Spec(
        "KOZEL_LOCALES",
        "folder of the gettext catalogs (read by `bot.i18n`)",
        shown="the installed package's catalogs (a checkout: its `locales/`)",
    ),
)


def _rows(settings: Sequence[tuple[Spec, object]]) -> list[tuple[Spec, str]]:
    """Every setting with its default as shown."""
    rows = [(spec, _shown(spec, default)) for spec, default in settings]
    return rows + [(spec, spec.shown or "—") for spec in ELSEWHERE]


def _shown(spec: Spec, default: object) -> str:
    if spec.shown is not None:
        return spec.shown
    if default is None or default == "":
        return "—"
    if isinstance(default, float):
        return f"`{default:g}`"
    return f"`{default}`"


def help_text(settings: Sequence[tuple[Spec, object]]) -> str:
    """What ``kozel-bot --help`` prints."""
    lines = [
        "kozel-bot — the Kozel card game bot for Telegram group chats.",
        "",
        "Settings (environment variables):",
    ]
    for spec, default in _rows(settings):
        allowed = f"; {spec.allowed()}" if spec.allowed() else ""
        default = default.replace("—", "unset")
        text = f"{spec.help} (default: {default}{allowed})".replace("`", "")
        lines.append(f"  {spec.env}")
        lines += textwrap.wrap(text, 92, initial_indent="      ", subsequent_indent="      ")
    return "\n".join(lines) + "\n"


def markdown_table(settings: Sequence[tuple[Spec, object]]) -> str:
    """docs/operating.md's settings table (``python -m bot.config --markdown``)."""
    lines = ["| variable | meaning | default | allowed |", "|---|---|---|---|"]
    lines += [
        f"| `{spec.env}` | {spec.help} | {default} | {spec.allowed()} |"
        for spec, default in _rows(settings)
    ]
    return "\n".join(lines) + "\n"
