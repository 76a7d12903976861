"""What one press costs the bot: CPU per press by kind, in process, without Telegram.

Run by hand (it is not a test)::

    .venv/bin/python benchmarks/load_press.py [--presses 300] [--profile KIND] [--store DIR]

Four people sit at a ``street`` table in one process (the service as production wires it,
SQLite with ``synchronous=FULL`` in a temporary folder, the tests' in-memory messenger). Then
it presses, again and again, as the load benchmark's fidgety people do, and measures the
process's CPU time (every thread: aiosqlite works in its own) per press, the outbox's
delivery of what the press owes included (rendering, the messenger's call, the booking):

- ``waiting``: a card pressed by a person whose turn it is not, from a hand of this ply;
- ``stale``: the same from a hand shown some plies ago (its buttons carry an older ply);
- ``toggle``: the person to move taps a card into the selection and out again (two presses);
- ``play``: the person to move makes a play (taps, and a confirm where one is needed).

``--profile KIND`` also prints cProfile's 30 most expensive functions (cumulative) for that
kind. Compare checkouts with ``--bot-dir`` (the code measured; this harness stays).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import importlib
import io
import pstats
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
KINDS = ("waiting", "stale", "toggle", "play")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="CPU per press of the Kozel bot, in process.")
    parser.add_argument("--presses", type=int, default=300, help="presses of each kind")
    parser.add_argument("--profile", choices=KINDS, default=None, help="cProfile this kind")
    parser.add_argument("--sort", default="cumulative", help="cProfile order (tottime: own time)")
    parser.add_argument("--bot-dir", type=Path, default=None, help="checkout to measure")
    parser.add_argument("--store", type=Path, default=None, help="folder for the database")
    return parser.parse_args(argv)


async def measure(args: argparse.Namespace, folder: Path) -> None:
    sys.path.insert(0, str(HERE / "tests" / "bot"))
    from bot.callback import Op, encode_action, encode_card
    from bot.service import moves
    from bot.storage import SqliteStorage

    fakes = importlib.import_module("service_fakes")
    storage = await SqliteStorage.open(str(folder / "kozel.sqlite3"))
    core = fakes.make_core(storage, fakes.FakeMessenger())
    people = {p.user_id: p for p in fakes.PEOPLE}
    tables = [await fakes.seat_four(core)]

    async def state(moving: int) -> tuple[Any, Any, int, Any]:
        """The running table, its match, the seat ``moving`` after the one to move, the
        person there (a new match when the last is over)."""
        fresh = await fakes.reload(core, tables[-1])
        match = core.matches.of(fresh)
        if match.is_over:
            tables.append(await fakes.seat_four(core))
            return await state(moving)
        seat = (match.to_move + moving) % 4
        return fresh, match, seat, people[fresh.seats[seat].user_id]

    async def tap(fresh: Any, person: Any, ply: int, card: Any) -> str:
        press = fakes.press(fresh, Op.TOGGLE, person, version=ply, arg=encode_card(card))
        return str((await moves.toggle(core, press)).text or "")

    async def waiting() -> int:
        fresh, match, seat, person = await state(1)
        if not match.view(seat).hand:
            return 0  # out of cards until the next deal
        await tap(fresh, person, match.ply, match.view(seat).hand[0])
        await fakes.settle(core)
        return 1

    async def stale() -> int:
        fresh, match, seat, person = await state(2)
        if not match.view(seat).hand:
            return 0
        await tap(fresh, person, max(0, match.ply - 2), match.view(seat).hand[0])
        await fakes.settle(core)
        return 1

    async def toggle() -> int:
        fresh, match, seat, person = await state(0)
        counts: dict[Any, int] = {}  # a card in the most plays: a tap on it only selects
        for action in match.view(seat).legal:
            if not action.verb.is_special:
                for card in action.cards:
                    counts[card] = counts.get(card, 0) + 1
        card = max(counts, key=lambda c: counts[c])
        if counts[card] < 2:
            return 0  # every card would be played at once
        for _ in range(2):
            await tap(fresh, person, match.ply, card)
            await fakes.settle(core)
        return 2

    async def play() -> int:
        fresh, match, seat, person = await state(0)
        action = next(a for a in match.view(seat).legal if not a.verb.is_special)
        for n, card in enumerate(action.cards, 1):
            if (await tap(fresh, person, match.ply, card)).startswith("Played"):
                await fakes.settle(core)
                return n
        press = fakes.press(fresh, Op.ACT, person, version=match.ply, arg=encode_action(action))
        answer = await moves.act(core, press)
        assert (answer.text or "").startswith("Played"), answer.text
        await fakes.settle(core)
        return len(action.cards) + 1

    cases: dict[str, Callable[[], Awaitable[int]]] = {
        "waiting": waiting,
        "stale": stale,
        "toggle": toggle,
        "play": play,
    }
    print(f"bot: {Path(sys.modules['bot'].__file__ or '?').parent}")
    print(f"{'kind':<10}{'presses':>9}{'CPU ms a press':>16}{'wall ms a press':>17}")
    for kind in KINDS:
        case = cases[kind]
        profiler = cProfile.Profile() if args.profile == kind else None
        cpu = wall = 0.0
        presses = 0
        while presses < args.presses:
            if kind != "play":
                await play()  # the table moves on between fidgets, as it does in a game
            cpu0, wall0 = time.process_time(), time.perf_counter()
            if profiler:
                profiler.enable()
            presses += await case()
            if profiler:
                profiler.disable()
            cpu += time.process_time() - cpu0
            wall += time.perf_counter() - wall0
        print(f"{kind:<10}{presses:>9}{1000 * cpu / presses:>16.2f}{1000 * wall / presses:>17.2f}")
        if profiler:
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(30)
            print(out.getvalue())
    await storage.close()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.path.insert(0, str((args.bot_dir or HERE).resolve()))
    if args.store is not None:
        args.store.mkdir(parents=True, exist_ok=True)
        asyncio.run(measure(args, args.store))
    else:
        with tempfile.TemporaryDirectory(prefix="kozel-press-") as tmp:
            asyncio.run(measure(args, Path(tmp)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
