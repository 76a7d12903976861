"""``SignupRepo``, on either backend: who asked to hear of a chat's next table (``/nextgame``).

A sign-up is per chat and forum topic (thread 0: no topic) and is used up by the next table
that opens there: ``take`` deletes it and owes its message in one transaction, so however many
workers open tables, each sign-up brings one message at most.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.storage import outbox
from bot.storage.conn import Database
from bot.storage.outbox import Owed


class Signups:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def toggle(self, chat_id: int, thread_id: int | None, user_id: int) -> bool:
        """Sign the user up, or take their sign-up back: True if they are signed up now."""
        key = (chat_id, thread_id or 0, user_id)
        async with self._db.write() as conn:
            taken = await conn.execute(
                "DELETE FROM next_game WHERE chat_id = ? AND thread_id = ? AND user_id = ?", key
            )
            if taken:
                return False
            await conn.execute(
                "INSERT INTO next_game (chat_id, thread_id, user_id, created_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (*key, self._db.clock()),
            )
            return True

    async def of(self, chat_id: int, thread_id: int | None) -> list[int]:
        """The users signed up in the chat (topic), the earliest first."""
        async with self._db.read() as conn:
            rows = await conn.fetchall(
                "SELECT user_id FROM next_game WHERE chat_id = ? AND thread_id = ? "
                "ORDER BY created_at, user_id",
                (chat_id, thread_id or 0),
            )
        return [int(row["user_id"]) for row in rows]

    async def take(
        self, chat_id: int, thread_id: int | None, owed: Mapping[int, Sequence[Owed]]
    ) -> list[int]:
        """Use up the sign-ups of the users in ``owed``, owing each one's rows only if their
        sign-up was still there (another worker may have used it a moment ago); returns the
        users whose sign-up this call used."""
        used = []
        async with self._db.write() as conn:
            for user_id, rows in owed.items():
                taken = await conn.execute(
                    "DELETE FROM next_game WHERE chat_id = ? AND thread_id = ? AND user_id = ?",
                    (chat_id, thread_id or 0, user_id),
                )
                if taken:
                    used.append(user_id)
                    await outbox.owe(conn, rows, self._db.clock())
        return used
