"""The errors the storage layer raises on purpose (anything else is a bug or a broken disk)."""

from __future__ import annotations


class StorageError(Exception):
    """Base class of the errors the storage layer raises on purpose."""


class StorageUnavailable(StorageError):
    """The database cannot be reached right now (restarting, a network fault): nothing was
    written; the same call may be made again once it answers. The store says once in its log
    that the database went away and once that it is back; callers wait, quietly."""


class StaleVersionError(StorageError):
    """``tables.save`` was given an ``expected_version`` that is not the stored one.

    Nothing was written. The caller should reload the table and refuse (or redo) the action.
    """

    def __init__(
        self,
        table_id: int | None = None,
        expected: int | None = None,
        actual: int | None = None,
    ) -> None:
        self.table_id = table_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"table {table_id}: expected version {expected}, stored version is {actual}"
        )


class TableNotFoundError(StorageError, LookupError):
    """``tables.save`` was called for a table id that does not exist."""


class ActiveTableExistsError(StorageError):
    """The chat already has an active (lobby or playing) table; a chat holds at most one."""


class ConstraintError(StorageError):
    """A write broke a constraint (e.g. one user in two seats of a table); nothing was written."""


class SeatedElsewhereError(ConstraintError):
    """A person would hold seats at two active tables; a person holds at most one."""


class SchemaError(StorageError):
    """The database's schema version is newer than this code knows, or a migration is bad."""
