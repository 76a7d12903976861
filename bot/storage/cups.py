"""``CupRepo``, on either backend: a cup for four, its players and the tables of its rounds.

Each change of a cup is one transaction with what it owes Telegram (the standings message),
and a round's table is created in the same transaction as its link to the cup
(``Tables.create``'s ``also``), so two workers never open the same round twice: the link's
primary key refuses the second.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.storage import outbox
from bot.storage.conn import Conn, Database, Row
from bot.storage.errors import ConstraintError
from bot.storage.outbox import Owed
from bot.storage.rows import opt_float, opt_int

Also = Callable[[Conn, int], Awaitable[None]]
"""More writes in a table's creating transaction, given the new table's id."""

PLAYERS = 4
ROUNDS = 3


class CupStatus(StrEnum):
    SIGNUP = "signup"
    PLAYING = "playing"
    FINISHED = "finished"


@dataclass
class CupPlayer:
    seat: int  # the order they signed up in: 0..3 (A, B, C, D)
    user_id: int
    name: str
    forfeited: bool = False


@dataclass
class CupRecord:
    id: int
    chat_id: int
    thread_id: int | None
    variant: str
    creator_id: int
    status: CupStatus = CupStatus.SIGNUP
    options: dict[str, Any] = field(default_factory=dict)
    message_id: int | None = None
    created_at: float = 0.0
    finished_at: float | None = None
    players: list[CupPlayer] = field(default_factory=list)
    rounds: dict[int, int] = field(default_factory=dict)  # round (1..3) -> table id

    def player(self, user_id: int) -> CupPlayer | None:
        return next((p for p in self.players if p.user_id == user_id), None)


class CupFullError(ConstraintError):
    """The cup has four players already (or is past its sign-up)."""


_COLUMNS = (
    "id, chat_id, thread_id, variant, options, status, creator_id, message_id, created_at, "
    "finished_at"
)


class Cups:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(self, cup: CupRecord, *, owe: Sequence[Owed] = ()) -> CupRecord:
        """A new cup with its first players; ``owe``'s cup posts get its id (``post_id``)."""
        now = self._db.clock()
        async with self._db.write() as conn:
            row = await conn.fetchone(
                "INSERT INTO cups (chat_id, thread_id, variant, options, status, creator_id, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    cup.chat_id,
                    cup.thread_id,
                    cup.variant,
                    json.dumps(cup.options, sort_keys=True),
                    cup.status.value,
                    cup.creator_id,
                    now,
                ),
            )
            assert row is not None
            cup.id = int(row["id"])
            for player in cup.players:
                await _insert_player(conn, cup.id, player)
            await outbox.owe(conn, [_for_cup(item, cup.id) for item in owe], now)
        cup.created_at = now
        return cup

    async def get(self, cup_id: int) -> CupRecord | None:
        async with self._db.read() as conn:
            return await _get(conn, cup_id)

    async def of_table(self, table_id: int) -> tuple[CupRecord, int] | None:
        """The cup a table plays a round of, and which round (None: not a cup's table)."""
        async with self._db.read() as conn:
            row = await conn.fetchone(
                "SELECT cup_id, round FROM cup_rounds WHERE table_id = ?", (table_id,)
            )
            if row is None:
                return None
            cup = await _get(conn, int(row["cup_id"]))
        return None if cup is None else (cup, int(row["round"]))

    async def stalled(self) -> list[int]:
        """The tables of playing cups whose newest match is over: each cup's next step (its
        standings, its next match or its end) is owed (a stop came between the two)."""
        async with self._db.read() as conn:
            rows = await conn.fetchall(
                "SELECT r.table_id FROM cups c "
                "JOIN cup_rounds r ON r.cup_id = c.id "
                "JOIN game_tables t ON t.id = r.table_id "
                "WHERE c.status = ? AND t.status = ? AND r.round = "
                "(SELECT MAX(x.round) FROM cup_rounds x WHERE x.cup_id = c.id)",
                (CupStatus.PLAYING.value, "finished"),
            )
        return [int(row["table_id"]) for row in rows]

    async def finished_in_chat(self, chat_id: int, limit: int = 5) -> list[CupRecord]:
        """The chat's finished cups, the newest first."""
        async with self._db.read() as conn:
            rows = await conn.fetchall(
                "SELECT id FROM cups WHERE chat_id = ? AND status = ? ORDER BY id DESC LIMIT ?",
                (chat_id, CupStatus.FINISHED.value, limit),
            )
            cups = [await _get(conn, int(row["id"])) for row in rows]
        return [cup for cup in cups if cup is not None]

    async def join(self, cup_id: int, player: CupPlayer, *, owe: Sequence[Owed] = ()) -> CupRecord:
        """Add a player in the next seat (raises ``CupFullError`` when four have signed up or
        the sign-up is over); the cup as it is now."""
        async with self._db.write() as conn:
            await _lock(conn, cup_id)
            cup = await _get(conn, cup_id)
            if cup is None or cup.status is not CupStatus.SIGNUP:
                raise CupFullError(f"cup {cup_id} takes no sign-ups")
            if len(cup.players) >= PLAYERS:
                raise CupFullError(f"cup {cup_id} is full")
            player.seat = len(cup.players)
            await _insert_player(conn, cup_id, player)
            cup.players.append(player)
            await outbox.owe(conn, [_for_cup(item, cup_id) for item in owe], self._db.clock())
        return cup

    async def set_message(self, cup_id: int, message_id: int) -> None:
        """The cup's group message, once it is sent (the first one sent stays)."""
        async with self._db.write() as conn:
            await conn.execute(
                "UPDATE cups SET message_id = ? WHERE id = ? AND message_id IS NULL",
                (message_id, cup_id),
            )

    async def link_round(
        self, conn: Conn, cup_id: int, round_no: int, table_id: int, forfeited: Sequence[int]
    ) -> None:
        """Inside ``Tables.create``'s transaction: the new table plays this round; the cup
        plays from now on; ``forfeited``: players who left the round before."""
        for user_id in forfeited:
            await conn.execute(
                "UPDATE cup_players SET forfeited = 1 WHERE cup_id = ? AND user_id = ?",
                (cup_id, user_id),
            )
        await conn.execute(
            "INSERT INTO cup_rounds (cup_id, round, table_id) VALUES (?, ?, ?)",
            (cup_id, round_no, table_id),
        )
        await conn.execute(
            "UPDATE cups SET status = ? WHERE id = ? AND status = ?",
            (CupStatus.PLAYING.value, cup_id, CupStatus.SIGNUP.value),
        )

    async def update(
        self,
        cup_id: int,
        *,
        forfeited: Sequence[int] = (),
        finished: bool = False,
        owe: Sequence[Owed] = (),
        winners: Sequence[int] = (),
    ) -> bool:
        """Mark players as forfeited, maybe finish the cup, and owe ``owe``: False (nothing
        changes) when the cup was finished already (another worker did it). ``winners``: the
        people who earn the cup's achievement (``CUP_ACHIEVEMENT``), stored in the same
        transaction, with the cup's last match as the match that earned it."""
        now = self._db.clock()
        async with self._db.write() as conn:
            await _lock(conn, cup_id)
            cup = await _get(conn, cup_id)
            if cup is None or cup.status is CupStatus.FINISHED:
                return False
            for user_id in forfeited:
                await conn.execute(
                    "UPDATE cup_players SET forfeited = 1 WHERE cup_id = ? AND user_id = ?",
                    (cup_id, user_id),
                )
            if finished:
                await conn.execute(
                    "UPDATE cups SET status = ?, finished_at = ? WHERE id = ?",
                    (CupStatus.FINISHED.value, now, cup_id),
                )
                await _award(conn, cup_id, cup.chat_id, winners, now)
            await outbox.owe(conn, [_for_cup(item, cup_id) for item in owe], now)
        return True


CUP_ACHIEVEMENT = "cup_won"
"""The achievement of a cup's winner(s) (its name: ``render.achievements``)."""


async def _award(conn: Conn, cup_id: int, chat_id: int, winners: Sequence[int], now: float) -> None:
    """The cup's achievement for ``winners``, earned by its last recorded match."""
    row = await conn.fetchone(
        "SELECT m.id FROM matches m JOIN cup_rounds r ON r.table_id = m.table_id "
        "WHERE r.cup_id = ? ORDER BY r.round DESC LIMIT 1",
        (cup_id,),
    )
    if row is None or not winners:
        return
    await conn.executemany(
        "INSERT INTO achievements (chat_id, user_id, achievement, match_id, earned_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (chat_id, user_id, achievement) DO NOTHING",
        [(chat_id, user_id, CUP_ACHIEVEMENT, int(row["id"]), now) for user_id in winners],
    )


def post_id(cup_id: int) -> int:
    """The ``table_id`` a cup's group post carries in the outbox: the cup's id, negated (a
    table's ids are positive), so the post's buttons and its sent message are the cup's."""
    return -cup_id


def cup_of_post(table_id: int | None) -> int | None:
    """The cup a post is about (None: a table's post, or none)."""
    return -table_id if table_id is not None and table_id < 0 else None


def _for_cup(item: Owed, cup_id: int) -> Owed:
    if item.table_id == 0:  # a post about this cup, written before its id was known
        item.table_id = post_id(cup_id)
    return item


async def _lock(conn: Conn, cup_id: int) -> None:
    """Take the cup's row for this transaction (PostgreSQL: a row lock, held to its end), so
    that two workers' changes of one cup take turns and each reads the other's."""
    await conn.execute("UPDATE cups SET status = status WHERE id = ?", (cup_id,))


async def _insert_player(conn: Conn, cup_id: int, player: CupPlayer) -> None:
    await conn.execute(
        "INSERT INTO cup_players (cup_id, seat, user_id, name, forfeited) VALUES (?, ?, ?, ?, ?)",
        (cup_id, player.seat, player.user_id, player.name, int(player.forfeited)),
    )


async def _get(conn: Conn, cup_id: int) -> CupRecord | None:
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM cups WHERE id = ?", (cup_id,))
    if row is None:
        return None
    cup = _cup(row)
    players = await conn.fetchall(
        "SELECT seat, user_id, name, forfeited FROM cup_players WHERE cup_id = ? ORDER BY seat",
        (cup_id,),
    )
    cup.players = [
        CupPlayer(int(p["seat"]), int(p["user_id"]), str(p["name"]), bool(p["forfeited"]))
        for p in players
    ]
    rounds = await conn.fetchall(
        "SELECT round, table_id FROM cup_rounds WHERE cup_id = ? ORDER BY round", (cup_id,)
    )
    cup.rounds = {int(r["round"]): int(r["table_id"]) for r in rounds}
    return cup


def _cup(row: Row) -> CupRecord:
    return CupRecord(
        id=int(row["id"]),
        chat_id=int(row["chat_id"]),
        thread_id=opt_int(row["thread_id"]),
        variant=str(row["variant"]),
        creator_id=int(row["creator_id"]),
        status=CupStatus(str(row["status"])),
        options=dict(json.loads(str(row["options"]))),
        message_id=opt_int(row["message_id"]),
        created_at=float(row["created_at"]),
        finished_at=opt_float(row["finished_at"]),
    )
