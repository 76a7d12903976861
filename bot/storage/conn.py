"""What the repositories need from a database, whichever backend it is.

The repositories (``users``, ``chats``, ``tables``, ``outbox``, ``ladder*``) write their SQL once,
with ``?`` marks, in the part of SQL that SQLite and PostgreSQL share. A backend hands them a
``Database`` whose transactions yield a ``Conn``: it runs that SQL (PostgreSQL's turns the marks
into ``$1, $2, ...``) and names, in its ``Dialect``, the few fragments the two spell differently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

Clock = Callable[[], float]


class Row(Protocol):
    """A result row, read by column name or by position (``sqlite3.Row``, ``asyncpg.Record``)."""

    def __getitem__(self, key: int | str, /) -> Any: ...


@dataclass(frozen=True)
class Dialect:
    name: str
    username_is: str
    """A condition: column ``username`` equals the one parameter, ignoring ASCII case."""
    for_update: str
    """Appended to a SELECT of rows the transaction goes on to change: another transaction
    wanting them waits until this one ends (nothing on SQLite, where one writer runs at a
    time anyway)."""
    skip_locked: str
    notify_table: str
    """A statement telling every process listening that a table changed (its id the one
    parameter), delivered when the transaction commits; empty where nobody can listen."""
    """Appended to a SELECT of rows to claim: rows another transaction holds are skipped, not
    waited for, so workers claiming at once each get other rows."""
    lazy_commit: str = ""
    """A statement that lets the transaction's commit return before it is on disk, for
    writes cheap to lose (a seat's chosen cards); empty where there is none."""


class Conn(Protocol):
    """A connection inside a transaction the ``Database`` opened."""

    @property
    def dialect(self) -> Dialect: ...

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; returns how many rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...


class Database(Protocol):
    """Transactions on one store: every repository call is one ``read`` or ``write``."""

    @property
    def clock(self) -> Clock:
        """Epoch seconds for the times the store writes (tests pass their own)."""
        ...

    @property
    def is_closed(self) -> bool: ...

    def read(self) -> AbstractAsyncContextManager[Conn]:
        """A read transaction: every query in it sees one snapshot."""
        ...

    def write(self) -> AbstractAsyncContextManager[Conn]:
        """A write transaction; a broken constraint comes out as a ``StorageError``."""
        ...

    async def close(self) -> None: ...
