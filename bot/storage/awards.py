"""Achievements and partnerships: what a chat's people have earned (stored for ever, awarded in
the transaction that records a match) and who plays well together (read from the matches).

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
from bot.storage.records import MatchRecord

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
    """Partner (a person) -> four-player matches together."""
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
    """The person's name in their latest match in the chat."""
    achievement: str
    earned_at: float


@dataclass(frozen=True)
class PairLine:
    """Two partners of the chat's four-player matches."""

    first: int
    second: int
    first_name: str
    second_name: str
    matches: int
    wins: int
    defeat_points: int
    """Defeat points their side took, all matches together."""


async def pasts(
    conn: Conn, chat_id: int, user_ids: Sequence[int], before: int
) -> dict[int, PlayerPast]:
    """Each person's past in the chat, matches before ``before`` (a match id) only."""
    found = {}
    for user_id in sorted(set(user_ids)):
        own = "FROM match_players p JOIN matches m ON m.id = p.match_id " + (
            "WHERE m.chat_id = ? AND p.user_id = ? AND m.id < ?"
        )
        params = (chat_id, user_id, before)
        counts = await conn.fetchone(
            f"SELECT COUNT(*) AS n, COALESCE(SUM(p.won), 0) AS wins, "
            f"COALESCE(SUM(p.goat), 0) AS goats {own}",
            params,
        )
        recent = await conn.fetchall(
            f"SELECT p.won, p.goat {own} ORDER BY m.id DESC LIMIT ?", (*params, RECENT)
        )
        partners = await conn.fetchall(
            "SELECT o.user_id, COUNT(*) AS n FROM match_players p "
            "JOIN matches m ON m.id = p.match_id "
            "JOIN match_players o ON o.match_id = p.match_id AND o.side = p.side "
            "AND o.seat <> p.seat "
            "WHERE m.chat_id = ? AND p.user_id = ? AND m.id < ? AND m.players = 4 "
            "AND o.user_id IS NOT NULL GROUP BY o.user_id",
            params,
        )
        earned = await conn.fetchall(
            "SELECT achievement FROM achievements WHERE chat_id = ? AND user_id = ?",
            (chat_id, user_id),
        )
        assert counts is not None
        found[user_id] = PlayerPast(
            matches=int(counts["n"]),
            wins=int(counts["wins"]),
            goats=int(counts["goats"]),
            recent=tuple((bool(r["won"]), bool(r["goat"])) for r in recent),
            partners={int(r["user_id"]): int(r["n"]) for r in partners},
            earned=frozenset(str(r["achievement"]) for r in earned),
        )
    return found


async def award_in(
    conn: Conn, match: MatchRecord, match_id: int, award: Awarder, now: float
) -> Sequence[Owed]:
    """Award a freshly recorded match's achievements; returns what the match owes."""
    people = [p.user_id for p in match.players_list if p.user_id is not None]
    found = await pasts(conn, match.chat_id, people, match_id)
    awarding = award(match_id, found)
    await conn.executemany(
        "INSERT INTO achievements (chat_id, user_id, achievement, match_id, earned_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (chat_id, user_id, achievement) DO NOTHING",
        [(match.chat_id, user_id, name, match_id, now) for user_id, name in awarding.awards],
    )
    return awarding.owe


async def move_chat(conn: Conn, old_chat_id: int, new_chat_id: int) -> None:
    """A group became a supergroup: its achievements go with it."""
    await conn.execute(
        "INSERT INTO achievements (chat_id, user_id, achievement, match_id, earned_at) "
        "SELECT ?, user_id, achievement, match_id, earned_at FROM achievements "
        "WHERE chat_id = ? ON CONFLICT (chat_id, user_id, achievement) DO NOTHING",
        (new_chat_id, old_chat_id),
    )
    await conn.execute("DELETE FROM achievements WHERE chat_id = ?", (old_chat_id,))


_NAME = (
    "(SELECT p.name FROM match_players p JOIN matches m ON m.id = p.match_id "
    "WHERE m.chat_id = a.chat_id AND p.user_id = a.user_id ORDER BY m.id DESC LIMIT 1)"
)

_PAIRS = """
SELECT a.user_id AS first, b.user_id AS second, COUNT(*) AS matches,
       COALESCE(SUM(a.won), 0) AS wins, COALESCE(SUM(a.defeat_points), 0) AS points,
       MAX(m.id) AS latest
FROM matches m
JOIN match_players a ON a.match_id = m.id
JOIN match_players b ON b.match_id = m.id AND b.side = a.side AND b.seat > a.seat
WHERE m.chat_id = ? AND m.players = 4 AND a.user_id IS NOT NULL AND b.user_id IS NOT NULL
  AND a.user_id <> b.user_id
GROUP BY a.user_id, b.user_id
"""


# Each person's name in their latest match of the chat.
_LATEST_NAMES = """
SELECT p.user_id, p.name FROM match_players p
JOIN (SELECT q.user_id, MAX(q.match_id) AS latest FROM match_players q
      JOIN matches m ON m.id = q.match_id
      WHERE m.chat_id = ? AND q.user_id IS NOT NULL GROUP BY q.user_id) last
  ON last.user_id = p.user_id AND last.latest = p.match_id
"""


class Awards:
    """The reads of achievements and partnerships (the writes run inside a table save)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def earned(self, chat_id: int, user_id: int | None = None) -> list[Earned]:
        """The chat's achievements (or one person's), oldest first."""
        sql = (
            f"SELECT a.user_id, a.achievement, a.earned_at, {_NAME} AS name "
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

    async def waits(self, chat_id: int, user_id: int) -> tuple[int, int]:
        """(turns timed out, deals played by a stand-in) of the person's matches in the chat
        (counted since schema 11: older matches count 0)."""
        async with self._db.read() as conn:
            row = await conn.fetchone(
                "SELECT COALESCE(SUM(p.timeouts), 0) AS timeouts, "
                "COALESCE(SUM(p.stand_in_deals), 0) AS stood_in "
                "FROM match_players p JOIN matches m ON m.id = p.match_id "
                "WHERE m.chat_id = ? AND p.user_id = ?",
                (chat_id, user_id),
            )
        assert row is not None
        return int(row["timeouts"]), int(row["stood_in"])

    async def pairs(self, chat_id: int, *, user_id: int | None = None) -> list[PairLine]:
        """Every partnership of the chat's four-player matches (or one person's), unsorted;
        a pair is the same whichever seat each took."""
        async with self._db.read() as conn:
            rows = await conn.fetchall(_PAIRS, (chat_id,))
            names = await conn.fetchall(_LATEST_NAMES, (chat_id,))
        latest = {int(r["user_id"]): str(r["name"]) for r in names}
        merged: dict[tuple[int, int], PairLine] = {}
        for r in rows:
            a, b = sorted((int(r["first"]), int(r["second"])))
            if user_id is not None and user_id not in (a, b):
                continue
            old = merged.get((a, b))
            line = PairLine(
                a,
                b,
                latest.get(a, ""),
                latest.get(b, ""),
                int(r["matches"]),
                int(r["wins"]),
                int(r["points"]),
            )
            if old is not None:
                line = PairLine(
                    a,
                    b,
                    line.first_name,
                    line.second_name,
                    old.matches + line.matches,
                    old.wins + line.wins,
                    old.defeat_points + line.defeat_points,
                )
            merged[(a, b)] = line
        return list(merged.values())
