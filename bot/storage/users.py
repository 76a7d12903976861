"""``UserRepo``, on either backend."""

from __future__ import annotations

from dataclasses import replace

from bot.lru import Expiring
from bot.storage.conn import Database
from bot.storage.records import UserRecord
from bot.storage.rows import USER_COLUMNS, marks, user_from_row, user_values

USERS_CACHED = 4096


class Users:
    """``cache_seconds``: how long a user read stays good in this process (every press
    reads its presser). Every write here forgets it; another process's writes are seen once
    it is that old (0: no cache)."""

    def __init__(self, db: Database, *, cache_seconds: float = 0.0) -> None:
        self._db = db
        self._cache: Expiring[int, UserRecord] = Expiring(USERS_CACHED, cache_seconds, replace)

    async def get(self, user_id: int) -> UserRecord | None:
        cached = self._cache.get(user_id)
        if cached is not None:
            return cached
        mark = self._cache.mark()
        async with self._db.read() as conn:
            row = await conn.fetchone(
                f"SELECT {USER_COLUMNS} FROM users WHERE user_id = ?", (user_id,)
            )
        if row is None:
            return None
        user = user_from_row(row)
        self._cache.put(user_id, user, since=mark)
        return user

    async def upsert(self, user: UserRecord) -> None:
        now = self._db.clock()
        values = (*user_values(user), now, now)
        self._cache.forget(user.user_id)
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
        self._cache.forget(user.user_id)  # also what a read meanwhile may have put back

    async def set_language(self, user_id: int, language: str | None) -> None:
        self._cache.forget(user_id)
        async with self._db.write() as conn:
            await conn.execute(
                "UPDATE users SET language = ?, updated_at = ? WHERE user_id = ?",
                (language, self._db.clock(), user_id),
            )
        self._cache.forget(user_id)

    async def set_can_message(self, user_id: int, can: bool) -> None:
        self._cache.forget(user_id)
        async with self._db.write() as conn:
            await conn.execute(
                "UPDATE users SET can_message = ?, updated_at = ? WHERE user_id = ?",
                (int(can), self._db.clock(), user_id),
            )
        self._cache.forget(user_id)

    async def find_by_username(self, username: str) -> UserRecord | None:
        async with self._db.read() as conn:
            row = await conn.fetchone(
                f"SELECT {USER_COLUMNS} FROM users WHERE {conn.dialect.username_is} "
                "ORDER BY updated_at DESC LIMIT 1",
                (username.removeprefix("@"),),
            )
        return None if row is None else user_from_row(row)
