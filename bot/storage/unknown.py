"""Rows this release does not know: a newer release may store a kind, a priority or a status
that this one has no name for (stored enums only grow: CONTRIBUTING.md). Such a row is left
where it is, untouched, for a worker that knows it; this one says so once per value, and goes
on with the rows it knows."""

from __future__ import annotations

import logging

log = logging.getLogger("bot.storage")

_told: set[tuple[str, str]] = set()


def skipped(what: str, value: object) -> None:
    """A row of ``what`` with ``value`` was left for a newer release (said once per value)."""
    key = (what, repr(value))
    if key in _told:
        return
    _told.add(key)
    log.warning("%s %r is not known to this release: left for a worker of a newer one", what, value)


def forget() -> None:
    """Say everything once more (tests: each starts afresh)."""
    _told.clear()


def sql_list(values: tuple[str, ...] | tuple[int, ...]) -> str:
    """``('a', 'b')`` as SQL literals for ``IN (...)``: the values are this code's own enums'."""
    return ", ".join(
        str(v) if isinstance(v, int) else "'" + v.replace("'", "''") + "'" for v in values
    )
