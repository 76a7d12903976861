"""``LadderRepo``, on either backend: a transaction per call around ``ladder_rating`` and
``ladder_queries``."""

from __future__ import annotations

from collections.abc import Sequence

from bot.storage import awards, outbox
from bot.storage import ladder_queries as queries
from bot.storage import ladder_rating as rating
from bot.storage.awards import Awarder
from bot.storage.conn import Conn, Database
from bot.storage.outbox import Owed
from bot.storage.records import (
    HistoryPage,
    LadderBoard,
    LadderMatch,
    MatchRecord,
    PlayerCard,
    PlayerResult,
    Rater,
    SeasonRecord,
    Standing,
)


class Ladder:
    batch = 200
    """Matches rated per transaction when catching up (``update``), so a big backlog (a
    database upgraded from version 1) never holds the storage for long; recording a match
    catches up at most this many of the chat's older ones first (any rest, and then the new
    match, wait for ``update``, keeping the order)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def record_in(
        self,
        conn: Conn,
        match: MatchRecord,
        rate: Rater | None,
        award: Awarder | None = None,
    ) -> tuple[int, Sequence[Owed] | None]:
        """``record`` inside the caller's write transaction (a table save's); with ``award``,
        award the match's achievements too (a new match only) and return what it owes."""
        match_id, fresh = await rating.insert_match(conn, match)
        owe = None
        if fresh:
            owe = await awards.record_in(conn, match, match_id, award, self._db.clock())
        if rate is not None:
            await rating.apply_pending(conn, rate, match.chat_id, self.batch)
        return match_id, owe

    async def record(
        self, match: MatchRecord, *, rate: Rater | None = None, award: Awarder | None = None
    ) -> int:
        async with self._db.write() as conn:
            match_id, owe = await self.record_in(conn, match, rate, award)
            if owe:
                await outbox.owe(conn, owe, self._db.clock())
            return match_id

    async def update(self, rate: Rater, chat_id: int | None = None) -> int:
        async with self._db.read() as conn:
            if not await queries.has_pending(conn, chat_id):
                return 0
        total = 0
        while True:  # one transaction per batch: other work runs in between
            async with self._db.write() as conn:
                done = await rating.apply_pending(conn, rate, chat_id, self.batch)
            total += done
            if done < self.batch:
                return total

    async def season(self, chat_id: int, season: int | None = None) -> SeasonRecord:
        async with self._db.read() as conn:
            if season is None:
                return await queries.current_season(conn, chat_id)
            return await queries.season_record(conn, chat_id, season)

    async def start_season(
        self, chat_id: int, *, after: int, by: int | None = None
    ) -> SeasonRecord | None:
        now = self._db.clock()
        async with self._db.write() as conn:
            current = await queries.current_season(conn, chat_id)
            if current.season != after:
                return None
            record = SeasonRecord(chat_id, after + 1, now, by)
            # A reset that raced this one (PostgreSQL runs writers side by side) started it.
            started = await conn.execute(
                "INSERT INTO ladder_seasons (chat_id, season, started_at, started_by) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (record.chat_id, record.season, record.started_at, record.started_by),
            )
            return record if started else None

    async def top(self, chat_id: int, season: int, variant: str, limit: int = 10) -> list[Standing]:
        async with self._db.read() as conn:
            return await queries.top(conn, chat_id, season, variant, limit)

    async def standing(
        self, chat_id: int, season: int, variant: str, player: str
    ) -> tuple[int, Standing] | None:
        async with self._db.read() as conn:
            return await queries.standing(conn, chat_id, season, variant, player)

    async def size(self, chat_id: int, season: int, variant: str) -> int:
        async with self._db.read() as conn:
            return await queries.count_lines(conn, chat_id, season, variant)

    async def player_standings(self, player: str, chat_id: int | None = None) -> list[Standing]:
        async with self._db.read() as conn:
            return await queries.player_lines(conn, player, chat_id)

    async def player_results(
        self, chat_id: int, season: int, player: str, limit: int = 10
    ) -> list[PlayerResult]:
        async with self._db.read() as conn:
            return await queries.player_results(conn, chat_id, season, player, limit)

    async def history(
        self,
        *,
        chat_id: int | None = None,
        season: int | None = None,
        variant: str | None = None,
        user_id: int | None = None,
        limit: int = 10,
    ) -> list[LadderMatch]:
        async with self._db.read() as conn:
            return await queries.history(
                conn, chat_id=chat_id, season=season, variant=variant, user_id=user_id, limit=limit
            )

    async def board(
        self,
        chat_id: int,
        *,
        season: int | None,
        variant: str,
        player: str,
        limit: int = 10,
    ) -> LadderBoard:
        async with self._db.read() as conn:
            return await queries.board(conn, chat_id, season, variant, player, limit)

    async def card(self, chat_id: int, player: str, *, results: int = 10) -> PlayerCard:
        async with self._db.read() as conn:
            return await queries.card(conn, chat_id, player, results)

    async def history_page(
        self, chat_id: int, *, season: int | None, variant: str | None, limit: int = 10
    ) -> HistoryPage:
        async with self._db.read() as conn:
            return await queries.history_page(conn, chat_id, season, variant, limit)
