"""What an operator reads about a table: one INFO line per event of its life (opened, started,
a deal ended, the match ended, abandoned or cancelled, a player timed out or went away) and
the counters behind ``/metrics``, both told once a save is committed.

Every change of a table is a ``Tables.create`` or ``Tables.save`` with the log lines it writes,
so this is the one place that sees them all. Lines carry ids (table, chat, seat), never names
or texts: a log is read by people who are not the players.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot import metrics
from bot.storage.records import Actor, LogEntry, LogKind, TableRecord

log = logging.getLogger("bot.tables")

# Closing reasons the service writes in English for itself (others are a translated text).
_ABANDONED = "match abandoned"
_LOBBY_CLOSED = {"lobby expired": "expired", "lobby cannot be shown": "unshowable"}
_NOT_PLAYED = {"give", "return"}  # ziege's exchange moves cards between partners only


def opened(table: TableRecord) -> None:
    metrics.LOBBIES.labels("opened").inc()
    _say(table, "opened", variant=table.variant)


def saved(table: TableRecord, entries: Sequence[LogEntry]) -> None:
    """A committed save of ``table`` with its log lines."""
    for entry in entries:
        if entry.kind is LogKind.ACTION:
            _moved(table, entry)
        elif entry.kind is LogKind.START:
            metrics.MATCHES.labels("started").inc()
            _say(table, "started", variant=table.variant, seats=len(table.seats))
        elif entry.kind is LogKind.DEAL:
            _say(table, "deal ended", deal=(entry.data or {}).get("number"))
        elif entry.kind is LogKind.MATCH:
            metrics.MATCHES.labels("finished").inc()
            _say(table, "match ended")
        elif entry.kind is LogKind.CANCEL:
            _closed(table, entry)
        elif entry.kind is LogKind.UNREACHABLE:
            _say(table, "player went away", seat=entry.seat, why="private chat unreachable")
        elif entry.kind is LogKind.KICK:
            _say(table, "player removed", seat=entry.seat)
        elif entry.kind is LogKind.BACK:
            _say(table, "player back", seat=entry.seat)


def _moved(table: TableRecord, entry: LogEntry) -> None:
    metrics.MOVES.labels(str(entry.by)).inc()
    parts = entry.text.split()  # "<seat> <verb> <cards…>"
    if len(parts) > 2 and parts[1] not in _NOT_PLAYED:
        metrics.CARDS.inc(len(parts) - 2)
    if entry.by is Actor.TIMER and entry.seat is not None:
        seat = table.seats[entry.seat] if entry.seat < len(table.seats) else None
        _say(table, "player timed out", seat=entry.seat)
        if seat is not None and seat.away:
            _say(table, "player went away", seat=entry.seat, why="timed out again")


def _closed(table: TableRecord, entry: LogEntry) -> None:
    if table.match_state is None:  # a lobby
        how = _LOBBY_CLOSED.get(entry.text, "cancelled")
        metrics.LOBBIES.labels(how).inc()
        _say(table, f"lobby {how}")
    elif entry.text == _ABANDONED:
        metrics.MATCHES.labels("abandoned").inc()
        _say(table, "match abandoned")
    else:
        metrics.MATCHES.labels("cancelled").inc()
        _say(table, "match cancelled")


def _say(table: TableRecord, event: str, **ids: object) -> None:
    """``table 12 chat -100123: started variant=street seats=4``; as JSON, the same fields."""
    shown = [f"{key}={value}" for key, value in ids.items() if value is not None]
    extra = {"event": event, "table": table.id, "chat": table.chat_id}
    if table.thread_id is not None:
        extra["topic"] = table.thread_id
    extra.update({key: value for key, value in ids.items() if value is not None})
    log.info(
        "table %d chat %d: %s%s",
        table.id,
        table.chat_id,
        event,
        "".join(f" {item}" for item in shown),
        extra=extra,
    )
