"""Command line: ``python -m kozel_rules replay FILE|-``, ``bench``, and the computer players'
``arena`` and ``play`` (``kozel_rules.ai.cli``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .ai.cli import add_subcommands as add_ai_subcommands
from .bench import CASES, bench_match, bench_playouts
from .replay import replay
from .variant import VARIANTS


def _replay(path: str) -> int:
    if path == "-":
        text = sys.stdin.read()
    else:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"not JSON: {e}", file=sys.stderr)
        return 2
    # A scenario vector wraps the record; accept both.
    if isinstance(record, dict) and isinstance(record.get("record"), dict):
        record = record["record"]
    result = replay(record)
    json.dump(result, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")
    return 0


def _bench(seconds: float, variant: str | None, players: int | None, match: bool) -> int:
    cases = [
        (v, p)
        for v, p in CASES
        if (variant is None or v == variant) and (players is None or p == players)
    ]
    if not cases:
        print("no such variant/players case", file=sys.stderr)
        return 2
    header = f"{'variant':8} {'players':>7} {'deals/s (playout)':>18}"
    if match:
        header += f" {'deals/s (Match.apply)':>22}"
    print(header)
    for v, p in cases:
        r = bench_playouts(v, p, seconds)
        line = f"{v:8} {p:>7} {r.rate:>18,.0f}"
        if match:
            line += f" {bench_match(v, p, seconds).rate:>22,.0f}"
        print(line, flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kozel_rules", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("replay", help="replay a game record (JSON) and print the result")
    rp.add_argument("file", help="a record or scenario JSON file, or - for stdin")
    bp = sub.add_parser("bench", help="deals per second of random legal play, one core")
    bp.add_argument("--seconds", type=float, default=2.0, help="time per case (default 2)")
    bp.add_argument("--variant", choices=sorted(VARIANTS), help="only this variant")
    bp.add_argument("--players", type=int, help="only this player count")
    bp.add_argument("--match", action="store_true", help="also time the checked API (Match.apply)")
    add_ai_subcommands(sub)  # arena, play: the computer players' commands
    args = parser.parse_args(argv)
    if hasattr(args, "run"):
        return int(args.run(args))
    if args.command == "replay":
        return _replay(args.file)
    return _bench(args.seconds, args.variant, args.players, args.match)


if __name__ == "__main__":
    sys.exit(main())
