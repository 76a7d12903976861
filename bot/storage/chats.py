"""``ChatRepo``, on either backend."""

from __future__ import annotations

import copy

from bot.lru import Expiring
from bot.storage import awards, ladder_rating
from bot.storage.conn import Database
from bot.storage.records import ChatRecord
from bot.storage.rows import CHAT_COLUMNS, chat_from_row, chat_values, marks

CHATS_CACHED = 1024


class Chats:
    """``cache_seconds``: how long a chat read stays good in this process (every hand and
    table shown reads its chat's title and language); as ``Users``'s."""

    def __init__(self, db: Database, *, cache_seconds: float = 0.0) -> None:
        self._db = db
        self._cache: Expiring[int, ChatRecord] = Expiring(
            CHATS_CACHED, cache_seconds, copy.deepcopy
        )

    async def get(self, chat_id: int) -> ChatRecord | None:
        cached = self._cache.get(chat_id)
        if cached is not None:
            return cached
        mark = self._cache.mark()
        async with self._db.read() as conn:
            row = await conn.fetchone(
                f"SELECT {CHAT_COLUMNS} FROM chats WHERE chat_id = ?", (chat_id,)
            )
        if row is None:
            return None
        chat = chat_from_row(row)
        self._cache.put(chat_id, chat, since=mark)
        return chat

    async def upsert(self, chat: ChatRecord) -> None:
        now = self._db.clock()
        values = (*chat_values(chat), now, now)
        self._cache.forget(chat.chat_id)
        async with self._db.write() as conn:
            await conn.execute(
                f"""
                INSERT INTO chats ({CHAT_COLUMNS}, created_at, updated_at)
                VALUES ({marks(len(values))})
                ON CONFLICT (chat_id) DO UPDATE SET
                    title = excluded.title,
                    language = excluded.language,
                    turn_timeout = excluded.turn_timeout,
                    settings = excluded.settings,
                    updated_at = excluded.updated_at
                """,
                values,
            )
        self._cache.forget(chat.chat_id)  # also what a read meanwhile may have put back

    async def migrate(self, old_chat_id: int, new_chat_id: int) -> None:
        if old_chat_id == new_chat_id:
            return
        now = self._db.clock()
        self._cache.forget(old_chat_id, new_chat_id)
        async with self._db.write() as conn:
            old = await conn.fetchone("SELECT 1 FROM chats WHERE chat_id = ?", (old_chat_id,))
            if old is not None:
                # The old row carries what the admins chose; a row already made for the new id
                # (by an update that raced the migration) only holds defaults.
                await conn.execute("DELETE FROM chats WHERE chat_id = ?", (new_chat_id,))
                await conn.execute(
                    "UPDATE chats SET chat_id = ?, updated_at = ? WHERE chat_id = ?",
                    (new_chat_id, now, old_chat_id),
                )
            await conn.execute(
                "UPDATE game_tables SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
            )
            await conn.execute(
                "UPDATE matches SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
            )
            # Who asked to hear of the next table asked it of the group, whatever its id.
            await conn.execute("DELETE FROM next_game WHERE chat_id = ?", (new_chat_id,))
            await conn.execute(
                "UPDATE next_game SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
            )
            # Deletions name messages of the old group: in the new one they would hit others.
            await conn.execute(
                "DELETE FROM outbox WHERE chat_id = ? AND kind = 'delete'", (old_chat_id,)
            )
            await conn.execute(
                "UPDATE outbox SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
            )
            await ladder_rating.move_chat(conn, old_chat_id, new_chat_id)
            await awards.move_chat(conn, old_chat_id, new_chat_id)
        self._cache.forget(old_chat_id, new_chat_id)
