"""Achievements, partnerships and waits: what a chat's people have earned (stored for ever,
awarded in the transaction that records a match), who plays well together and who was waited
for (running totals kept up in that same transaction).

Which achievements a match earns is the service's business: it hands in an ``Awarder``, which
this module feeds each person's past in the chat and whose answer it stores, as the ladder
does with its ``Rater``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.storage.conn import Conn, Database
from bot.storage.outbox import Owed
from bot.storage.records import ALL_VARIANTS, MatchRecord, player_key
from bot.storage.rows import marks

RECENT = 10
"""How many of a person's latest matches their past holds (streaks look no further)."""


@dataclass(frozen=True)
class PlayerPast:
    """A person's earlier matches in one chat, before the match being recorded."""

    matches: int = 0
    wins: int = 0
    goats: int = 0
    recent: tuple[tuple[bool, bool], ...] = ()
    """(won, goat) of the latest matches, newest first (at most ``RECENT``)."""
    partners: Mapping[int, int] = field(default_factory=dict)
    """This match's partner (a person) -> four-player matches together before."""
    earned: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Awarding:
    """An awarder's answer: what each person earned, and what the match owes Telegram now that
    that is known (it replaces what the save was given)."""

    awards: Sequence[tuple[int, str]]
    """(user id, achievement id)."""
    owe: Sequence[Owed]


class Awarder(Protocol):
    def __call__(self, match_id: int, pasts: Mapping[int, PlayerPast]) -> Awarding: ...


@dataclass(frozen=True)
class Earned:
    user_id: int
    name: str
    """The person's name as Telegram last told it (else as in their latest match)."""
    achievement: str
    earned_at: float


@dataclass(frozen=True)
class PairLine:
    """Two partners of the chat's four-player matches (the lower user id first)."""

    low: int
    high: int
    low_name: str
    high_name: str
    matches: int
    wins: int
    defeat_points: int
    """Defeat points their side took, all matches together."""


def _partners(match: MatchRecord) -> dict[int, int]:
    """Person -> their partner (a person) in a four-player match of two sides."""
    if match.players != 4 or len({p.side for p in match.players_list}) != 2:
        return {}
    found = {}
    for p in match.players_list:
        for other in match.players_list:
            same_side = other.side == p.side and other.seat != p.seat
            if same_side and p.user_id is not None and other.user_id is not None:
                found[p.user_id] = other.user_id
    return found


async def pasts(conn: Conn, match: MatchRecord, before: int) -> dict[int, PlayerPast]:
    """Each person's past in the match's chat, matches before ``before`` (a match id) only:
    counts from the ladder's lines (every season) and the matches not rated yet, the latest
    results, and the matches together with this match's partner (``pair_lines``, caught up
    to ``before``)."""
    chat_id = match.chat_id
    partner_of = _partners(match)
    found = {}
    for user_id in sorted({p.user_id for p in match.players_list if p.user_id is not None}):
        rated = await conn.fetchone(
            "SELECT COALESCE(SUM(matches), 0) AS n, COALESCE(SUM(wins), 0) AS wins, "
            "COALESCE(SUM(goats), 0) AS goats FROM ladder_standings "
            "WHERE chat_id = ? AND player = ? AND variant = ?",
            (chat_id, player_key(user_id, None), ALL_VARIANTS),
        )
        unrated = await conn.fetchone(
            "SELECT COUNT(*) AS n, COALESCE(SUM(p.won), 0) AS wins, "
            "COALESCE(SUM(p.goat), 0) AS goats FROM matches m "
            "JOIN match_players p ON p.match_id = m.id "
            "WHERE m.chat_id = ? AND m.in_ladder = 0 AND m.id < ? AND p.user_id = ?",
            (chat_id, before, user_id),
        )
        recent = await conn.fetchall(
            "SELECT p.won, p.goat FROM match_players p JOIN matches m ON m.id = p.match_id "
            "WHERE p.user_id = ? AND m.chat_id = ? AND p.match_id < ? "
            "ORDER BY p.match_id DESC LIMIT ?",
            (user_id, chat_id, before, RECENT),
        )
        partners: dict[int, int] = {}
        partner = partner_of.get(user_id)
        if partner is not None:
            low, high = sorted((user_id, partner))
            row = await conn.fetchone(
                "SELECT matches FROM pair_lines WHERE chat_id = ? AND low_user = ? "
                "AND high_user = ?",
                (chat_id, low, high),
            )
            partners[partner] = int(row["matches"]) if row else 0
        earned = await conn.fetchall(
            "SELECT achievement FROM achievements WHERE chat_id = ? AND user_id = ?",
            (chat_id, user_id),
        )
        assert rated is not None and unrated is not None
        found[user_id] = PlayerPast(
            matches=int(rated["n"]) + int(unrated["n"]),
            wins=int(rated["wins"]) + int(unrated["wins"]),
            goats=int(rated["goats"]) + int(unrated["goats"]),
            recent=tuple((bool(r["won"]), bool(r["goat"])) for r in recent),
            partners=partners,
            earned=frozenset(str(r["achievement"]) for r in earned),
        )
    return found


async def record_in(
    conn: Conn, match: MatchRecord, match_id: int, award: Awarder | None, now: float
) -> Sequence[Owed] | None:
    """A match freshly recorded: add its waits and its pairs to the running totals and, with
    ``award``, award its achievements (from the past before it); returns what it owes."""
    await conn.executemany(
        "INSERT INTO player_waits (chat_id, user_id, timeouts, stand_in_deals) "
        "VALUES (?, ?, ?, ?) ON CONFLICT (chat_id, user_id) DO UPDATE SET "
        "timeouts = player_waits.timeouts + excluded.timeouts, "
        "stand_in_deals = player_waits.stand_in_deals + excluded.stand_in_deals",
        [
            (match.chat_id, p.user_id, p.timeouts, p.stand_in_deals)
            for p in match.players_list
            if p.user_id is not None
        ],
    )
    if award is None:
        await catch_up(conn, match.chat_id)
        return None
    await catch_up(conn, match.chat_id, before=match_id)
    awarding = award(match_id, await pasts(conn, match, match_id))
    await conn.executemany(
        "INSERT INTO achievements (chat_id, user_id, achievement, match_id, earned_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (chat_id, user_id, achievement) DO NOTHING",
        [(match.chat_id, user_id, name, match_id, now) for user_id, name in awarding.awards],
    )
    await catch_up(conn, match.chat_id)
    return awarding.owe


_ADD_PAIRS = """
INSERT INTO pair_lines (chat_id, low_user, high_user, matches, wins, defeat_points)
SELECT m.chat_id, a.user_id, b.user_id, COUNT(*), SUM(a.won), SUM(a.defeat_points)
FROM matches m
JOIN match_players a ON a.match_id = m.id
JOIN match_players b ON b.match_id = m.id AND b.side = a.side AND b.user_id > a.user_id
WHERE m.id IN ({ids}) AND m.players = 4 AND a.user_id IS NOT NULL
GROUP BY m.chat_id, a.user_id, b.user_id
ON CONFLICT (chat_id, low_user, high_user) DO UPDATE SET
    matches = pair_lines.matches + excluded.matches,
    wins = pair_lines.wins + excluded.wins,
    defeat_points = pair_lines.defeat_points + excluded.defeat_points
"""
CHUNK = 500
"""Match ids per statement when catching up."""


async def catch_up(conn: Conn, chat_id: int, *, before: int | None = None) -> int:
    """Add the chat's matches not yet in ``pair_lines`` (ids below ``before``, if given) to
    it; returns how many. Marking first and adding what was marked counts each match once,
    also when two writers catch up the same chat at once (PostgreSQL)."""
    bound = "" if before is None else " AND id < ?"
    params: tuple[int, ...] = (chat_id,) if before is None else (chat_id, before)
    rows = await conn.fetchall(
        f"UPDATE matches SET in_pairs = 1 WHERE chat_id = ? AND in_pairs = 0{bound} "
        "RETURNING id, players",
        params,
    )
    ids = [int(r["id"]) for r in rows if int(r["players"]) == 4]
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        await conn.execute(_ADD_PAIRS.format(ids=marks(len(chunk))), chunk)
    return len(rows)


async def move_chat(conn: Conn, old_chat_id: int, new_chat_id: int) -> None:
    """After ``matches`` moved to ``new_chat_id``: the achievements and waits go with them,
    and the chat's pairs are counted again from its matches."""
    await conn.execute(
        "INSERT INTO achievements (chat_id, user_id, achievement, match_id, earned_at) "
        "SELECT ?, user_id, achievement, match_id, earned_at FROM achievements "
        "WHERE chat_id = ? ON CONFLICT (chat_id, user_id, achievement) DO NOTHING",
        (new_chat_id, old_chat_id),
    )
    await conn.execute(
        "INSERT INTO player_waits (chat_id, user_id, timeouts, stand_in_deals) "
        "SELECT ?, user_id, timeouts, stand_in_deals FROM player_waits WHERE chat_id = ? "
        "ON CONFLICT (chat_id, user_id) DO UPDATE SET "
        "timeouts = player_waits.timeouts + excluded.timeouts, "
        "stand_in_deals = player_waits.stand_in_deals + excluded.stand_in_deals",
        (new_chat_id, old_chat_id),
    )
    for table in ("achievements", "player_waits", "pair_lines"):
        await conn.execute(f"DELETE FROM {table} WHERE chat_id = ?", (old_chat_id,))
    await conn.execute("DELETE FROM pair_lines WHERE chat_id = ?", (new_chat_id,))
    await conn.execute("UPDATE matches SET in_pairs = 0 WHERE chat_id = ?", (new_chat_id,))


def _name(user: str) -> str:
    """The person's name: as Telegram last told it, else as in their latest match."""
    return (
        f"COALESCE((SELECT u.first_name FROM users u WHERE u.user_id = {user}), "
        f"(SELECT p.name FROM match_players p WHERE p.user_id = {user} "
        "ORDER BY p.match_id DESC LIMIT 1), '')"
    )


class Awards:
    """The reads of achievements and partnerships (the writes run inside a table save)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def earned(self, chat_id: int, user_id: int | None = None) -> list[Earned]:
        """The chat's achievements (or one person's), oldest first."""
        sql = (
            f"SELECT a.user_id, a.achievement, a.earned_at, {_name('a.user_id')} AS name "
            "FROM achievements a WHERE a.chat_id = ?"
        )
        params: tuple[int, ...] = (chat_id,)
        if user_id is not None:
            sql += " AND a.user_id = ?"
            params += (user_id,)
        async with self._db.read() as conn:
            rows = await conn.fetchall(sql + " ORDER BY a.earned_at, a.user_id", params)
        return [
            Earned(
                int(r["user_id"]),
                str(r["name"] or ""),
                str(r["achievement"]),
                float(r["earned_at"]),
            )
            for r in rows
        ]

    async def count(self, user_id: int) -> int:
        """The person's achievements, every chat together."""
        async with self._db.read() as conn:
            row = await conn.fetchone(
                "SELECT COUNT(*) AS n FROM achievements WHERE user_id = ?", (user_id,)
            )
        return int(row["n"]) if row else 0

    async def of_table(self, table_id: int) -> list[tuple[int, str]]:
        """(user id, achievement) earned by the table's match (none before it is recorded)."""
        async with self._db.read() as conn:
            rows = await conn.fetchall(
                "SELECT a.user_id, a.achievement FROM achievements a "
                "JOIN matches m ON m.id = a.match_id AND m.chat_id = a.chat_id "
                "WHERE m.table_id = ?",
                (table_id,),
            )
        return [(int(r["user_id"]), str(r["achievement"])) for r in rows]

    async def waits(self, chat_id: int, user_id: int) -> tuple[int, int]:
        """(turns timed out, deals played by a stand-in) of the person's matches in the chat
        (counted since schema 11: older matches count 0)."""
        async with self._db.read() as conn:
            row = await conn.fetchone(
                "SELECT timeouts, stand_in_deals FROM player_waits "
                "WHERE chat_id = ? AND user_id = ?",
                (chat_id, user_id),
            )
        return (int(row["timeouts"]), int(row["stand_in_deals"])) if row else (0, 0)

    async def pairs(
        self, chat_id: int, *, user_id: int | None = None, least: int = 1
    ) -> list[PairLine]:
        """The partnerships of the chat's four-player matches with at least ``least`` matches
        together (or one person's), unsorted; a pair is the same whichever seat each took.
        Matches not counted yet (recorded by an older release, or before) are counted first."""
        async with self._db.read() as conn:
            pending = await conn.fetchone(
                "SELECT 1 FROM matches WHERE chat_id = ? AND in_pairs = 0 LIMIT 1", (chat_id,)
            )
        if pending is not None:
            async with self._db.write() as conn:
                await catch_up(conn, chat_id)
        sql = (
            "SELECT l.low_user, l.high_user, l.matches, l.wins, l.defeat_points, "
            f"{_name('l.low_user')} AS low_name, {_name('l.high_user')} AS high_name "
            "FROM pair_lines l WHERE l.chat_id = ? AND l.matches >= ?"
        )
        params: tuple[int, ...] = (chat_id, least)
        if user_id is not None:
            sql += " AND (l.low_user = ? OR l.high_user = ?)"
            params += (user_id, user_id)
        async with self._db.read() as conn:
            rows = await conn.fetchall(sql, params)
        return [
            PairLine(
                int(r["low_user"]),
                int(r["high_user"]),
                str(r["low_name"]),
                str(r["high_name"]),
                int(r["matches"]),
                int(r["wins"]),
                int(r["defeat_points"]),
            )
            for r in rows
        ]
