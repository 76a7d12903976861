"""Benchmark of the ladder commands on a big database: ``python -m benchmarks.ladder``.

Fills a fresh SQLite file with a realistic ladder: one chat with ``--matches`` finished matches
(default 10,000) among ``--players`` people (default 30, of them 3 computer levels), in the three
variants (moscow with 2, 3 and 4 players), over ``--seasons`` seasons, plus ``--other-chats``
smaller chats that share some of the players. Then it times the use cases behind /top, /stats,
/history, /achievements and /pairs (the full service call: storage queries and rendering, as the
bot runs them), and the recording of one more match with its rating (and its achievements).
Prints the median, 95th percentile and maximum.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# Run as ``python -m benchmarks.ladder`` or ``python benchmarks/ladder.py``.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.screen import Screen
from bot.service import awards, ladder
from bot.service.core import Core
from bot.service.ladder import StatsTarget
from bot.service.ports import ChatInfo, Person
from bot.service.rating import rate
from bot.service.running_settings import Settings
from bot.storage import (
    Awarding,
    ChatRecord,
    MatchPlayerRecord,
    MatchRecord,
    PlayerPast,
    SqliteStorage,
    UserRecord,
)
from kozel_rules.ai import LEVELS
from kozel_rules.variant import Variant, get_variant

TARGET_MS = 5.0
VARIANT_WEIGHTS = {"street": 4, "ziege": 3, "moscow": 3}  # the workload: matches of each
PLAYER_WEIGHTS = {2: 2, 3: 3, 4: 5}  # how many players a table has, where a variant allows more
BENCH_CHAT = -1_001_000_000_001


@dataclass(frozen=True)
class Player:
    user_id: int | None
    ai_level: str | None
    name: str
    skill: float
    activity: float


class _Quiet:
    """Messenger and scheduler stand-ins: the ladder commands only answer."""

    async def send(
        self, chat_id: int, screen: Screen, *, notify: bool = True, thread_id: int | None = None
    ) -> int:
        return 0

    async def edit(self, chat_id: int, message_id: int, screen: Screen) -> None:
        return None

    async def delete(self, chat_id: int, message_id: int) -> None:
        return None

    def wake_by(self, at: float) -> None:
        return None


def make_players(rng: random.Random, people: int, first_id: int) -> list[Player]:
    players = [
        Player(
            user_id=first_id + i,
            ai_level=None,
            name=f"Player {first_id + i}",
            skill=rng.gauss(0, 1),
            activity=rng.paretovariate(1.5),
        )
        for i in range(people)
    ]
    # The computer levels from the weakest to the strongest, however many there are.
    skills = [-1.0 + 2.0 * i / max(1, len(LEVELS) - 1) for i in range(len(LEVELS))]
    players += [
        Player(None, level, level, skill, 3.0) for level, skill in zip(LEVELS, skills, strict=True)
    ]
    return players


def make_match(
    rng: random.Random, table_id: int, chat_id: int, pool: Sequence[Player], finished_at: float
) -> MatchRecord:
    name = rng.choices(list(VARIANT_WEIGHTS), weights=list(VARIANT_WEIGHTS.values()))[0]
    variant = get_variant(name)
    n = max(variant.player_counts)
    if len(variant.player_counts) > 1:
        n = rng.choices(list(PLAYER_WEIGHTS), weights=list(PLAYER_WEIGHTS.values()))[0]
    chosen = _seat_players(rng, pool, n)
    sides = variant.sides_for(n)
    side_of = [seat % sides for seat in range(n)]
    strength = [
        sum(p.skill for seat, p in enumerate(chosen) if side_of[seat] == side) + rng.gauss(0, 1.2)
        for side in range(sides)
    ]
    order = sorted(range(sides), key=lambda side: -strength[side])  # winner first
    losers = list(reversed(order[1:]))  # the first one out first
    points = {order[0]: rng.randrange(0, 11, 2)}
    for place, side in enumerate(order[1:], start=1):
        points[side] = 12 + 2 * rng.randrange(0, 3) - (2 if place > 1 else 0)
    deals = rng.randint(3, 10)
    eggs = rng.random() < 0.08
    players = [
        _player_record(rng, variant, seat, who, side_of[seat], order, points, deals, eggs)
        for seat, who in enumerate(chosen)
    ]
    return MatchRecord(
        table_id=table_id,
        chat_id=chat_id,
        variant=variant.name,
        players=n,
        started_at=finished_at - rng.uniform(600, 3600),
        finished_at=finished_at,
        deals=deals,
        goat_with_eggs=eggs,
        result={
            "defeat_points": [points[side] for side in range(sides)],
            "winners": [order[0]],
            "losers": losers,
            "goat": order[1],
            "goat_with_eggs": eggs,
            "deals": deals,
        },
        players_list=players,
    )


def _seat_players(rng: random.Random, pool: Sequence[Player], n: int) -> list[Player]:
    """``n`` players of the pool, people by their activity; now and then a computer."""
    people = [p for p in pool if p.user_id is not None]
    chosen: list[Player] = []
    while len(chosen) < n:
        if rng.random() < 0.15:  # a computer fills the seat
            chosen.append(rng.choice([p for p in pool if p.ai_level is not None]))
            continue
        pick = rng.choices(people, weights=[p.activity for p in people])[0]
        if pick not in chosen:
            chosen.append(pick)
    return chosen


def _player_record(
    rng: random.Random,
    variant: Variant,
    seat: int,
    who: Player,
    side: int,
    order: Sequence[int],
    points: dict[int, int],
    deals: int,
    eggs: bool,
) -> MatchPlayerRecord:
    won = side == order[0]
    lost_deals = min(deals, rng.randint(1, deals) if not won else rng.randint(0, deals // 2))
    return MatchPlayerRecord(
        seat=seat,
        side=side,
        user_id=who.user_id,
        name=who.name,
        ai_level=who.ai_level,
        won=won,
        goat=side == order[1],
        defeat_points=points[side],
        deals_won=deals - lost_deals,
        deals_lost=lost_deals,
        eggs=int(eggs),
        queens_caught=int(variant.queen_catch is not None and rng.random() < 0.1),
        tricks=rng.randint(5, 40),
        card_points=rng.randint(100, 600),
    )


async def fill(
    storage: SqliteStorage,
    *,
    rng: random.Random,
    matches: int,
    players: int,
    seasons: int,
    other_chats: int,
    other_matches: int,
) -> list[Player]:
    """Record every match (unrated, as a version-1 database would hold them)."""
    pool = make_players(rng, players - len(LEVELS), first_id=1000)
    for player in pool:
        if player.user_id is not None:
            await storage.users.upsert(
                UserRecord(player.user_id, player.name, username=f"player{player.user_id}")
            )
    await storage.chats.upsert(ChatRecord(BENCH_CHAT, "Benchmark club"))
    chats = [(BENCH_CHAT, matches, pool)]
    for number in range(other_chats):
        chat_id = BENCH_CHAT - 1 - number
        await storage.chats.upsert(ChatRecord(chat_id, f"Other club {number + 1}"))
        shared = rng.sample([p for p in pool if p.user_id is not None], 8)
        locals_ = make_players(rng, 12, first_id=10_000 + 100 * number)[:12]
        chats.append((chat_id, other_matches, shared + locals_ + pool[-len(LEVELS) :]))
    table_id = 0
    clock = 1_700_000_000.0
    for chat_id, count, members in chats:
        season_every = max(1, count // max(1, seasons))
        for index in range(count):
            if chat_id == BENCH_CHAT and index and index % season_every == 0:
                current = await storage.ladder.season(chat_id)
                if current.season < seasons:
                    await storage.ladder.start_season(chat_id, after=current.season, by=1000)
            table_id += 1
            clock += rng.uniform(60, 3600)
            await storage.ladder.record(make_match(rng, table_id, chat_id, members, clock))
    return pool


async def timed(repeat: int, call: Callable[[], Awaitable[object]]) -> list[float]:
    await call()  # warm the caches once
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        await call()
        times.append((time.perf_counter() - start) * 1000)
    return times


def row(name: str, times: list[float], *, judged: bool = True) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    verdict = ("ok" if p95 < TARGET_MS else "SLOW") if judged else "(a write: not a command)"
    return f"{name:<34} {statistics.median(ordered):8.2f} {p95:8.2f} {ordered[-1]:8.2f}   {verdict}"


async def run(args: argparse.Namespace) -> int:
    directory = args.dir or tempfile.mkdtemp(prefix="ladder_bench_")
    path = os.path.join(directory, "ladder_bench.sqlite3")
    if os.path.exists(path):
        print(f"{path} exists; give another --dir", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    storage = await SqliteStorage.open(path, synchronous="NORMAL")
    try:
        start = time.perf_counter()
        pool = await fill(
            storage,
            rng=rng,
            matches=args.matches,
            players=args.players,
            seasons=args.seasons,
            other_chats=args.other_chats,
            other_matches=args.other_matches,
        )
        filled = time.perf_counter() - start
        total = args.matches + args.other_chats * args.other_matches
        start = time.perf_counter()
        rated = await storage.ladder.update(rate)
        rating = time.perf_counter() - start
    finally:
        await storage.close()
    size = os.path.getsize(path) / 1e6
    print(f"database: {path} ({size:.1f} MB)")
    print(
        f"recorded {total:,} matches ({args.matches:,} in the benchmark chat, "
        f"{args.seasons} seasons; {args.other_chats} other chats) in {filled:.1f} s"
    )
    print(
        f"rated {rated:,} matches into the ladders in {rating:.1f} s "
        f"({1e6 * rating / max(1, rated):.0f} µs per match, two scopes each)"
    )

    # The bot's own settings from here on: synchronous=FULL, as the bot opens it.
    storage = await SqliteStorage.open(path)
    try:
        core = Core(storage, _Quiet(), _Quiet(), Settings())
        group = ChatInfo(BENCH_CHAT, "Benchmark club", is_private=False)
        people = [p for p in pool if p.user_id is not None]
        busiest = max(people, key=lambda p: p.activity)
        casual = min(people, key=lambda p: p.activity)

        def person(p: Player) -> Person:
            assert p.user_id is not None
            return Person(p.user_id, p.name, f"player{p.user_id}", "en")

        private = ChatInfo(int(busiest.user_id or 0), busiest.name, is_private=True)
        cases: list[tuple[str, Callable[[], Awaitable[object]]]] = [
            ("/top", lambda: ladder.top(core, group, person(casual), [])),
            ("/top street", lambda: ladder.top(core, group, person(casual), ["street"])),
            ("/top s1 (a closed season)", lambda: ladder.top(core, group, person(casual), ["s1"])),
            (
                "/stats (the caller)",
                lambda: ladder.stats(core, group, person(busiest), StatsTarget()),
            ),
            (
                "/stats @username",
                lambda: ladder.stats(
                    core, group, person(casual), StatsTarget(username=f"player{busiest.user_id}")
                ),
            ),
            (
                "/stats in private (all chats)",
                lambda: ladder.stats(core, private, person(busiest), StatsTarget()),
            ),
            ("/history", lambda: ladder.history(core, group, person(casual), [])),
            (
                "/history moscow s2",
                lambda: ladder.history(core, group, person(casual), ["moscow", "s2"]),
            ),
            ("/history in private", lambda: ladder.history(core, private, person(busiest), [])),
            ("/achievements", lambda: awards.achievements(core, group, person(casual))),
            ("/pairs", lambda: awards.pairs(core, group, person(casual))),
        ]
        print()
        print(f"{'use case (service call + render), ms':<34} {'median':>8} {'p95':>8} {'max':>8}")
        results = []
        for name, call in cases:
            times = await timed(args.repeat, call)
            results.append(times)
            print(row(name, times))

        def award(match_id: int, pasts: Mapping[int, PlayerPast]) -> Awarding:
            return Awarding([(user, "first_match") for user in pasts], ())

        # Turn about, so that the machine's load weighs on both alike.
        table_id = 10_000_000
        record_times: list[float] = []
        award_times: list[float] = []
        for turn in range(100):
            table_id += 1
            record = make_match(rng, table_id, BENCH_CHAT, pool, time.time())
            start = time.perf_counter()
            if turn % 2:
                await storage.ladder.record(record, rate=rate, award=award)
                award_times.append((time.perf_counter() - start) * 1000)
            else:
                await ladder.record(core, record)
                record_times.append((time.perf_counter() - start) * 1000)
        print(row("record + rate one match (fsync)", record_times, judged=False))
        print(row("... and award its achievements", award_times, judged=False))
    finally:
        await storage.close()
    slow = [times for times in results if sorted(times)[int(0.95 * len(times))] >= TARGET_MS]
    print()
    print(
        f"target: every command under {TARGET_MS:g} ms at the 95th percentile — "
        + ("met" if not slow else f"missed by {len(slow)}")
    )
    if not args.dir:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
        os.rmdir(directory)
    return 0 if not slow else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.ladder",
        description="Fill a ladder database and time the /top, /stats and /history use cases.",
    )
    parser.add_argument("--matches", type=int, default=10_000, help="matches in the main chat")
    parser.add_argument("--players", type=int, default=30, help="players in the main chat")
    parser.add_argument("--seasons", type=int, default=3, help="seasons in the main chat")
    parser.add_argument("--other-chats", type=int, default=5, help="other chats")
    parser.add_argument("--other-matches", type=int, default=1_000, help="matches per other chat")
    parser.add_argument("--repeat", type=int, default=300, help="timed runs per use case")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", help="keep the database in this directory")
    args = parser.parse_args(argv)
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
