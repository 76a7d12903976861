"""``UserRepo``, on either backend."""

from __future__ import annotations

from bot.storage.conn import Database
from bot.storage.records import UserRecord
from bot.storage.rows import USER_COLUMNS, marks, user_from_row, user_values


class Users:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, user_id: int) -> UserRecord | None:
        async with self._db.read() as conn:
            row = await conn.fetchone(
                f"SELECT {USER_COLUMNS} FROM users WHERE user_id = ?", (user_id,)
            )
        return None if row is None else user_from_row(row)

    async def upsert(self, user: UserRecord) -> None:
        now = self._db.clock()
        values = (*user_values(user), now, now)
        async with self._db.write() as conn:
            await conn.execute(
                f"""
                INSERT INTO users ({USER_COLUMNS}, created_at, updated_at)
                VALUES ({marks(len(values))})
                ON CONFLICT (user_id) DO UPDATE SET
                    first_name = excluded.first_name,
                    username = excluded.username,
                    language_code = excluded.language_code,
                    language = COALESCE(excluded.language, users.language),
                    can_message = excluded.can_message,
                    private_chat_id = COALESCE(excluded.private_chat_id, users.private_chat_id),
                    updated_at = excluded.updated_at
                """,
                values,
            )

    async def set_language(self, user_id: int, language: str | None) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                "UPDATE users SET language = ?, updated_at = ? WHERE user_id = ?",
                (language, self._db.clock(), user_id),
            )

    async def set_can_message(self, user_id: int, can: bool) -> None:
        async with self._db.write() as conn:
            await conn.execute(
                "UPDATE users SET can_message = ?, updated_at = ? WHERE user_id = ?",
                (int(can), self._db.clock(), user_id),
            )

    async def find_by_username(self, username: str) -> UserRecord | None:
        async with self._db.read() as conn:
            row = await conn.fetchone(
                f"SELECT {USER_COLUMNS} FROM users WHERE {conn.dialect.username_is} "
                "ORDER BY updated_at DESC LIMIT 1",
                (username.removeprefix("@"),),
            )
        return None if row is None else user_from_row(row)
