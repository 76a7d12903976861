"""``python -m kozel_rules arena`` and ``python -m kozel_rules play``.

``kozel_rules.__main__`` registers these subcommands with :func:`add_subcommands`; each
parser gets a ``run`` default that takes the parsed arguments and returns the exit code.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from ..errors import RecordError
from ..match import Match
from ..options import Options
from ..variant import VARIANTS, get_variant
from . import LEVELS
from .arena import ArenaResult, Contestant, run_arena, run_deals
from .play import TextGame
from .search import Budget
from .seer import SEERS


def _budget(text: str) -> Budget:
    try:
        return Budget.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _players(args: argparse.Namespace) -> int | None:
    v = get_variant(args.variant)
    players: int = args.players if args.players is not None else max(v.player_counts)
    if players not in v.player_counts:
        counts = ", ".join(map(str, v.player_counts))
        print(f"{v.name} is played by {counts} players", file=sys.stderr)
        return None
    return players


def _options(args: argparse.Namespace) -> Options | None:
    """``--options`` for the variant, or ``None`` (told on stderr) when it is wrong."""
    try:
        return Options.parse(args.options or "", args.variant)
    except RecordError as e:
        print(f"--options: {e}", file=sys.stderr)
        return None


def run_arena_command(args: argparse.Namespace) -> int:
    players = _players(args)
    options = _options(args)
    if players is None or options is None:
        return 2
    a = Contestant(args.a, args.a_budget or args.budget)
    b = Contestant(args.b, args.b_budget or args.budget)
    start = time.perf_counter()
    if args.deals is not None:
        deals = run_deals(
            args.variant, players, a, b, args.deals, seed=args.seed, jobs=args.jobs, options=options
        )
        for line in deals.lines():
            print(line)
        print(f"  ({time.perf_counter() - start:.0f} s)")
        return 0

    def progress(r: ArenaResult) -> None:
        if args.progress:
            print(
                f"  ... {len(r.matches)} matches, A won {r.a_wins} "
                f"({time.perf_counter() - start:.0f} s)",
                file=sys.stderr,
                flush=True,
            )

    result = run_arena(
        args.variant,
        players,
        a,
        b,
        args.matches,
        seed=args.seed,
        progress=progress,
        jobs=args.jobs,
        options=options,
    )
    for line in result.lines():
        print(line)
    print(f"  ({time.perf_counter() - start:.0f} s)")
    return 0


def run_play_command(args: argparse.Namespace) -> int:
    players = _players(args)
    options = _options(args)
    if players is None or options is None:
        return 2
    if not 0 <= args.seat < players:
        print(f"--seat must be 0..{players - 1}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    match = Match.new(args.variant, players=players, seed=seed, options=options)
    game = TextGame(
        match, args.seat, args.level, rng=random.Random(f"{seed}/computer"), budget=args.budget
    )
    return game.run()


OPTIONS_HELP = (
    "house rules as key=value words joined by commas: goat_at=6|8|10|12, eggs=plain|double, "
    "ziege_scoring=flat|tiers (ziege only); e.g. 'goat_at=6,eggs=double' (default: none)"
)


def add_subcommands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena`` and ``play`` to the ``python -m kozel_rules`` subcommands."""
    ap = sub.add_parser(
        "arena",
        help="whole matches between two kinds of computer player, sides swapped evenly",
        description=(
            "Play whole matches of A against B and print A's win rate with a 95%% Wilson "
            "interval and the move times of each kind. With 4 players A and B are teams; "
            "with 2, one each; with 3, one A against two B (A wins if it is the last one "
            "in; the arena also reports how often A outlasts a B). Every deal sequence is "
            "played in every seating (2 or 3 rotations)."
        ),
    )
    ap.add_argument("--variant", required=True, choices=sorted(VARIANTS))
    ap.add_argument("--players", type=int, help="number of players (default: the most)")
    kinds = LEVELS + SEERS
    seers = "; seer, seer-hands: measuring sticks that see the hidden cards (ai/seer.py)"
    ap.add_argument("--a", required=True, choices=kinds, help="level of player A" + seers)
    ap.add_argument("--b", required=True, choices=kinds, help="level of player B")
    ap.add_argument("--matches", type=int, default=100, help="matches to play (default 100)")
    ap.add_argument("--seed", default="0", help="arena seed (default 0)")
    ap.add_argument(
        "--budget",
        type=_budget,
        help="strong's and expert's budget per move: work (card-plays; defaults: strong "
        "20000, expert 30000), '150ms' (a time limit), or both: '4800,200ms'",
    )
    ap.add_argument("--a-budget", type=_budget, help="budget of A only")
    ap.add_argument("--b-budget", type=_budget, help="budget of B only")
    ap.add_argument(
        "--deals",
        type=int,
        help="the quick paired measure instead of matches: the first deal of this many deal "
        "sequences, each in every seating; prints A's mean match win chance after the deal "
        "(less an equal share), card-point margin and deals won, with standard errors",
    )
    ap.add_argument("--options", help=OPTIONS_HELP)
    ap.add_argument("--progress", action="store_true", help="progress lines on stderr")
    ap.add_argument(
        "--jobs", type=int, default=1, help="worker processes (default 1; results are the same)"
    )
    ap.set_defaults(run=run_arena_command)

    pp = sub.add_parser(
        "play",
        help="play a whole match in the terminal against computer players",
        description="Play a match against computer players: moves are listed with numbers; "
        "type a number (q quits).",
    )
    pp.add_argument("--variant", default="street", choices=sorted(VARIANTS))
    pp.add_argument("--players", type=int, help="number of players (default: the most)")
    pp.add_argument("--level", default="strong", choices=LEVELS, help="computer players' level")
    pp.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    pp.add_argument("--seed", type=int, help="match seed (default: random)")
    pp.add_argument("--budget", type=_budget, help="strong's or expert's budget per move")
    pp.add_argument("--options", help=OPTIONS_HELP)
    pp.set_defaults(run=run_play_command)


__all__ = ["add_subcommands", "run_arena_command", "run_play_command"]
