"""The owner's ``/status``: the bot's figures in a few lines (``service.status`` gathers them)."""

from __future__ import annotations

from html import escape

from ..i18n import Translator
from ..screen import Screen
from ..storage.facts import Snapshot


def status_screen(
    t: Translator,
    facts: Snapshot | None,
    *,
    workers: int | None,
    down: list[str],
    flood_answers: int,
    streams: int,
    oldest_wait: float,
) -> Screen:
    lines = [t._("📊 <b>The bot now</b>")]
    if facts is None:
        lines.append(t._("⚠️ The database did not answer in time."))
    else:
        lines += [
            t._("Tables waiting to start: {count}", count=facts.tables.get("lobby", 0)),
            t._("Matches being played: {count}", count=facts.tables.get("playing", 0)),
            t._("People at the tables: {count}", count=facts.players),
            t._("Matches finished today (UTC): {count}", count=facts.matches),
            _waiting(t, facts.outbox, oldest_wait),
        ]
    lines.append(
        t._("Flood answers (429) from Telegram in the last hour: {count}", count=flood_answers)
    )
    if workers is not None:
        lines.append(t._("Bot processes running: {count}", count=workers))
    lines.append(t._("Mini App pages open here: {count}", count=streams))
    if down:
        lines.append(t._("⚠️ Waiting to start again: {tasks}", tasks=escape(", ".join(down))))
    else:
        lines.append(t._("Every background task runs."))
    return Screen("\n".join(lines))


def _waiting(t: Translator, count: int, oldest_wait: float) -> str:
    if not count:
        return t._("Messages waiting to be sent: {count}", count=count)
    return t._(
        "Messages waiting to be sent: {count} (the oldest for {seconds} s)",
        count=count,
        seconds=round(oldest_wait),
    )
