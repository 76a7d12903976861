"""What a change owes Telegram beyond fresh table and hand messages, kept until it is sent.

One ``Owed`` is made by the use case that commits a change and handed to ``feed.publish``;
the table's message worker takes it (``Ledger.take_table``) when it next renders.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kozel_rules.event import Event

from ..screen import Screen


@dataclass(frozen=True)
class Change:
    """A committed change of a running match, as the feed needs to know it."""

    events: Sequence[Event] = ()  # what the engine said (deal and match ends)
    actor: int | None = None  # the seat that moved, if a seat did
    started: bool = False  # the match has just begun
    note: str | None = None  # a line for the table message ("Bob is back")


@dataclass
class Owed:
    posts: list[Screen] = field(default_factory=list)  # deal and match results, in order
    repost: bool = False  # the table message moves to the bottom of the chat
    note: str | None = None  # a line on the table message, shown until the next note
    notify: set[int] = field(default_factory=set)  # seats to tell that it is their turn


@dataclass
class _Pending:
    posts: list[Screen] = field(default_factory=list)
    repost: bool = False
    notify: set[int] = field(default_factory=set)


class Ledger:
    """Owed messages per table, in the order the changes were committed."""

    def __init__(self) -> None:
        self._pending: dict[int, _Pending] = {}
        self._notes: dict[int, str] = {}

    def add(self, table_id: int, owed: Owed) -> None:
        pending = self._pending.setdefault(table_id, _Pending())
        pending.posts += owed.posts
        pending.repost = pending.repost or owed.repost
        pending.notify |= owed.notify
        if owed.note:
            self._notes[table_id] = owed.note

    def note(self, table_id: int) -> str | None:
        return self._notes.get(table_id)

    def take_table(self, table_id: int) -> tuple[list[Screen], bool]:
        """The posts due before the table message, and whether it moves to the bottom."""
        pending = self._pending.get(table_id)
        if pending is None:
            return [], False
        posts, repost = pending.posts, pending.repost
        pending.posts, pending.repost = [], False
        return posts, repost

    def take_notify(self, table_id: int, seat: int) -> bool:
        pending = self._pending.get(table_id)
        if pending is None or seat not in pending.notify:
            return False
        pending.notify.discard(seat)
        return True
