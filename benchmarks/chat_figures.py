"""What a match feels like in the chat: taps, group messages, pings, trick takers.

Run by hand (it is not a test)::

    .venv/bin/python benchmarks/chat_figures.py [--bot-dir DIR] [--seed N] [--json FILE]

It starts the fake Bot API (``tests/fakebot``) with Telegram's flood limits on and the real
bot with its production settings (intervals, computer delay, rate limits; the turn timer
scaled out of the way), from this checkout or from ``--bot-dir`` (e.g. ``git worktree add
/tmp/chat-before <commit>``: the same people measure an older bot). Three groups play one
whole match each, at the same time: ``street`` and ``ziege`` with four people, ``moscow``
with three (``--variants`` to choose). Every seat is a person.

A person plays at a human pace and knows what they want: on their turn they think
(``--think`` seconds), decide on a play (the engine's ``basic`` computer player, from the
seat's own view read from the bot's database: the same choices before and after), and
enact it with the buttons of their hand message: tap the cards of the play one by one
(``--tap`` seconds apart, each tap waiting for the hand to show it), then the confirm button
naming exactly that play, if one is still needed. An offered special lead is declared when
the same computer player would. The figures:

- **taps per card**: presses on hand buttons / cards played by the people;
- **group messages**: new messages the bot sent to the group, per deal and per match (the
  lobby included), with the edits and deletions beside them;
- **pings**: messages that came with a notification, per person per deal (private chats), and
  the group's per deal;
- **trick takers shown**: of all completed tricks, how many were shown in the group with
  their taker, in some version of some group message (the table's "last trick" line, or
  the deal's result), checked against the tricks replayed from the bot's database.

``--json FILE`` writes the figures. Every wait is bounded; the run stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import sqlite3
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from e2e.driver import op_of
from e2e.intent import enact, hand_of, hand_where, seat_of, stored_match
from fakebot.limits import TelegramLimits
from fakebot.models import StoredMessage, keyboard_buttons
from fakebot.process import REPO_ROOT, BotProcess
from fakebot.server import FakeTelegram
from fakebot.users import SimGroup, SimUser

from bot.i18n import get_translator
from kozel_rules.action import Action
from kozel_rules.ai import choose, interrupt
from kozel_rules.event import DealStarted, TrickTaken
from kozel_rules.match import Match

NAMES = ("Anna", "Boris", "Vera", "Gleb")
VARIANTS = {"street": 4, "ziege": 4, "moscow": 3}
MATCH_OVER = "🏆"  # the match's result, in any language


@dataclass(frozen=True)
class Phrases:
    """The lines that name a deal and its trick takers, in the groups' language (the bot's own
    catalog), and in English as older commits wrote them."""

    taker: re.Pattern[str]  # the last trick's taker
    deal: re.Pattern[str]  # the deal's number
    tricks: re.Pattern[str]  # a seat's or side's trick count
    so_far: re.Pattern[str]  # every taker of the deal so far, or of the whole deal

    @classmethod
    def of(cls, language: str) -> Phrases:
        t = get_translator(language)
        name, number, rest = r"(?:🤖 )?(\w+)", r"(\d+)", r"(.+)"
        taker = [_rx(t.gettext("Last trick taken by {name}: {trick}"), name=name, trick=rest)]
        deal = [_rx(t.gettext(m), n=number) for m in ("deal {n}", "Deal {n} is over")]
        tricks = [_rx(t.ngettext("{n} trick", "{n} tricks", k), n=number) for k in (1, 2, 5)]
        so_far = [
            _rx(t.gettext(m), names=rest)
            for m in ("Tricks so far: {names}", "Tricks in order: {names}")
        ]
        # "Anna took the last trick" and "taken by Anna:": the table before issue 22.
        taker += [r"[Tt]aken by (?:🤖 )?(\w+)", r"(\w+) took the last trick"]
        return cls(*(re.compile("|".join(p)) for p in (taker, deal, tricks, so_far)))


def _rx(template: str, **fields: str) -> str:
    """A translated template as a pattern: its text literal, each ``{field}`` a group."""
    out = re.escape(template)
    for key, pattern in fields.items():
        out = out.replace(re.escape("{" + key + "}"), pattern)
    return out


def _first(match: re.Match[str]) -> str:
    return next(g for g in match.groups() if g is not None)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0] if __doc__ else None,
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--bot-dir", type=Path, default=None, help="checkout to run the bot from")
    parser.add_argument("--seed", type=int, default=1, help="seed of the people's pace")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--think", type=float, nargs=2, default=(0.8, 2.0), metavar=("MIN", "MAX"))
    parser.add_argument("--tap", type=float, nargs=2, default=(0.2, 0.5), metavar=("MIN", "MAX"))
    parser.add_argument("--timeout", type=float, default=1800.0, help="give up after (s)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument(
        "--language", default="en", help="the people's Telegram language (the groups' too)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the work dir")
    parser.add_argument(
        "--transcripts",
        type=Path,
        default=None,
        help="write each group's messages (every version) and the first person's private "
        "chat there, to read",
    )
    args = parser.parse_args(argv)
    if args.bot_dir is not None and not (args.bot_dir / "bot" / "__main__.py").is_file():
        parser.error(f"{args.bot_dir} has no bot/__main__.py")
    return args


def read(db: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as conn:
        return list(conn.execute(sql, params).fetchall())


@dataclass(eq=False)
class Person:
    fake: FakeTelegram
    user: SimUser
    db: Path
    rng: random.Random
    think: tuple[float, float]
    tap: tuple[float, float]
    done: asyncio.Event
    presses: int = 0
    plays: int = 0
    failed: int = 0  # plays that could not be made as intended (the screen moved on)
    refusals: Counter[str] = field(default_factory=Counter)

    def hand(self) -> StoredMessage | None:
        return hand_of(self.user)

    async def run(self) -> None:
        acted: tuple[int, int] | None = None
        while not self.done.is_set():
            seq = self.fake.chat_seq(self.user)
            hand = self.hand()
            if hand is not None and (hand.message_id, hand.changed_seq) != acted:
                acted = (hand.message_id, hand.changed_seq)
                try:
                    outcome = await self._turn(hand)
                except Exception as err:  # a harness problem must not stall the match
                    traceback.print_exc()
                    self.refusals[f"harness: {type(err).__name__}: {err}"] += 1
                    outcome = "failed"
                if outcome == "failed":
                    acted = None  # look again (a person would tap again)
                    await asyncio.sleep(1.0)
                continue
            await self.fake.wait_chat(self.user, seq, timeout=1.0)

    async def _turn(self, hand: StoredMessage) -> str:
        where = hand_where(hand)
        if where is None:
            return "skip"
        table_id, ply = where
        match = stored_match(self.db, table_id)
        seat = seat_of(self.db, table_id, self.user.id)
        if match is None or seat is None or match.ply != ply or match.is_over:
            return "skip"
        rng = random.Random(f"{table_id}:{ply}:{seat}")
        if match.to_move == seat:
            intent: Action | None = choose(match, seat, level="basic", rng=rng)
        else:
            intent = interrupt(match, seat, level="basic", rng=rng)
        if intent is None:
            return "skip"
        await asyncio.sleep(self.rng.uniform(*self.think))
        made = await enact(
            self.fake,
            self.user,
            self.db,
            table_id,
            intent,
            tap_pause=lambda: self.rng.uniform(*self.tap),
        )
        self.presses += made.presses
        for answer in made.answers:
            if answer.text and not answer.text.startswith(NOT_REFUSALS):
                self.refusals[answer.text] += 1
        if made.played:
            self.plays += 1
            return "done"
        self.failed += 1
        return "failed"


# Answers that are no refusal: a play made, a selection said (English and Russian).
NOT_REFUSALS = ("Played", "Сыграно", "Selected:", "Nothing selected", "Выбрано:", "Ничего не")


@dataclass(eq=False)
class Run:
    """One group playing one match of ``variant``."""

    fake: FakeTelegram
    db: Path
    variant: str
    group: SimGroup
    people: list[Person]
    table_id: int = 0
    opened_at: float = 0.0  # /newgame
    started_at: float = 0.0  # Start
    lobby_id: int = 0
    error: str | None = None
    over: asyncio.Event = field(default_factory=asyncio.Event)

    async def play(self) -> None:
        users = [p.user for p in self.people]
        try:
            for user in users:
                mark = self.fake.mark()
                await user.start_bot()
                await self.fake.wait_for_message(user, since=mark, timeout=60)
            mark = self.fake.mark()
            self.opened_at = time.time()
            await users[0].send(self.group, f"/newgame {self.variant}")
            lobby = await self.fake.wait_for_message(
                self.group, lambda m: any(op_of(b) == "join" for b in m.buttons), since=mark
            )
            self.lobby_id = lobby.message_id
            for user in users[1:]:
                await user.press_button(
                    self.group, self.lobby_id, predicate=lambda b: op_of(b) == "join", timeout=30
                )
                await self.fake.wait_for(
                    lambda u=user: (
                        u.first_name in (self.fake.message(self.group, self.lobby_id).text or "")
                    ),
                    30,
                    what=f"{user.first_name} seated",
                )
            answer = await users[0].press_button(
                self.group, self.lobby_id, predicate=lambda b: op_of(b) == "start", timeout=30
            )
            assert not answer.show_alert, answer.text
            self.started_at = time.time()
            tasks = [asyncio.create_task(p.run()) for p in self.people]
            await self.fake.wait_for(self._over, 1800, what=f"{self.variant}: the match over")
            found = read(self.db, "SELECT id FROM game_tables ORDER BY id")
            self.table_id = max(int(str(r[0])) for r in found)  # refined in figures()
            await asyncio.sleep(15)  # let the last edits and posts go out
        except (TimeoutError, AssertionError) as exc:
            self.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        finally:
            for person in self.people:
                person.done.set()
            self.over.set()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*tasks), 5)

    def _over(self) -> bool:
        return any((m.text or "").startswith(MATCH_OVER) for m in self.fake.messages(self.group))


@dataclass
class TrickTruth:
    deal: int
    number: int  # 1-based within the deal
    taker: str


def replay_tricks(state: dict[str, object], names: list[str]) -> tuple[list[TrickTruth], int]:
    """Every completed trick of the stored match, with its taker's name; and the deals."""
    actions = list(state["actions"])  # type: ignore[call-overload]
    fresh = dict(state, actions=[])
    match = Match.from_json(fresh)
    tricks: list[TrickTruth] = []
    deal, number = 1, 0
    for text in actions:
        for event in match.apply(str(text)):
            if isinstance(event, TrickTaken):
                number += 1
                tricks.append(TrickTruth(deal, number, names[event.seat]))
            elif isinstance(event, DealStarted):
                deal, number = event.number, 0
    return tricks, len(match.deal_results)


def figures(fake: FakeTelegram, run: Run, phrases: Phrases) -> dict[str, object]:
    db = run.db
    group_id = run.group.id
    user_ids = {p.user.id: p.user.first_name for p in run.people}
    # The table this group played.
    table = read(db, "SELECT id, match_state FROM game_tables WHERE chat_id = ?", (group_id,))
    table_id, state = int(str(table[-1][0])), json.loads(str(table[-1][1]))
    seats = read(db, "SELECT seat, name FROM seats WHERE table_id = ? ORDER BY seat", (table_id,))
    names = [str(name) for _, name in seats]
    tricks, deals = replay_tricks(state, names)
    cards = sum(
        len(str(text).split()) - 2
        for (text,) in read(
            db,
            "SELECT text FROM table_log WHERE table_id = ? AND kind = 'action' AND by = 'human'",
            (table_id,),
        )
    )
    presses = sum(p.presses for p in run.people)

    # The group from /newgame on (the lobby counts); private chats from Start on (the hello
    # of /start is no ping of the game).
    calls = [c for c in fake.calls if c.time >= run.opened_at]
    group_calls = Counter(
        c.method for c in calls if str(c.params.get("chat_id")) == str(group_id) and c.ok
    )
    group_sent = [
        c
        for c in calls
        if c.method == "sendMessage" and str(c.params.get("chat_id")) == str(group_id) and c.ok
    ]
    group_pings = sum(not c.params.get("disable_notification") for c in group_sent)
    private_pings = Counter(
        int(str(c.params.get("chat_id")))
        for c in calls
        if c.method == "sendMessage"
        and c.ok
        and c.time >= run.started_at
        and int(str(c.params.get("chat_id"))) in user_ids
        and not c.params.get("disable_notification")
    )

    # Trick takers shown: any version of any group message naming deal, trick count, taker.
    shown: set[tuple[int, int, str]] = set()
    every = list(fake.chat(group_id).messages.values())  # deleted ones too
    for message in every:
        if not message.from_bot:
            continue
        for version in message.versions:
            text = version.text
            deal = phrases.deal.search(text)
            taker = phrases.taker.search(text)
            if deal is None or taker is None:
                continue
            number = int(_first(deal))
            count = sum(int(_first(m)) for m in phrases.tricks.finditer(text))
            shown.add((number, count, _first(taker)))
            so_far = phrases.so_far.search(text)
            if so_far is not None:
                for place, name in enumerate(_first(so_far).split(" · "), start=1):
                    shown.add((number, place, name.removeprefix("🤖 ")))
    seen = sum((t.deal, t.number, t.taker) in shown for t in tricks)
    left = [m for m in every if m.from_bot and not m.deleted]
    last = left[-1].text.splitlines()[0] if left and left[-1].text else ""
    people = len(run.people)
    return {
        "variant": run.variant,
        "people": people,
        "deals": deals,
        "tricks": len(tricks),
        "cards played by people": cards,
        "hand presses": presses,
        "taps per card": round(presses / cards, 2) if cards else None,
        "plays not made as intended": sum(p.failed for p in run.people),
        "group new messages per match": len(group_sent),
        "group new messages per deal": round(len(group_sent) / deals, 2) if deals else None,
        "group edits per deal": round(group_calls["editMessageText"] / deals, 2) if deals else None,
        "group deletions per match": group_calls["deleteMessage"],
        "group messages left": len(left),
        "group's last message": last,
        "group pings per deal": round(group_pings / deals, 2) if deals else None,
        "pings per person per deal": round(sum(private_pings.values()) / people / deals, 2)
        if deals
        else None,
        "most pings of one person per deal": round(
            max(private_pings.values(), default=0) / deals, 2
        )
        if deals
        else None,
        "tricks shown with their taker": f"{seen} of {len(tricks)}"
        + (f" ({100 * seen / len(tricks):.0f} %)" if tricks else ""),
        "refusals": dict(sum((p.refusals for p in run.people), Counter())),
        "error": run.error,
    }


def transcript(fake: FakeTelegram, chat: int) -> str:
    """Every message of a chat, every version, with its buttons, in order."""
    out = []
    for message in fake.chat(chat).messages.values():  # deleted ones too
        who = "bot" if message.from_bot else "user"
        for number, version in enumerate(message.versions):
            mark = "new" if number == 0 else f"edit {number}"
            out.append(f"--- #{message.message_id} {who} {mark} {version.at:.1f}")
            out.append(version.text)
            buttons = keyboard_buttons(version.reply_markup)
            if buttons:
                out.append("[" + "] [".join(b.text for b in buttons) + "]")
        if message.deleted:
            out.append(f"--- #{message.message_id} deleted")
    return "\n".join(out) + "\n"


def stall_note(run: Run) -> str:
    """What each person's hand says and what the bot's database says, when play stalls."""
    lines = []
    table = read(
        run.db, "SELECT id, match_state FROM game_tables WHERE chat_id = ?", (run.group.id,)
    )
    if table and table[-1][1]:
        match = Match.from_json(json.loads(str(table[-1][1])))
        lines.append(f"  db: ply {match.ply}, to move {match.to_move}, phase {match.phase}")
    for person in run.people:
        hand = person.hand()
        where = hand_where(hand) if hand else None
        first = (hand.text or "").splitlines() if hand else []
        turn = [line for line in first if "👉" in line]
        lines.append(f"  {person.user.first_name}: {where} {turn[:1]}")
    return "\n".join(lines)


async def report(runs: list[Run], began: float) -> None:
    """A line every 30 s: deals finished and plays made, per group."""
    last: dict[str, int] = {}
    while True:
        await asyncio.sleep(30)
        for run in runs:
            plays = sum(p.plays for p in run.people)
            if last.get(run.variant) == plays and not run.over.is_set():
                print(f"{run.variant} stalls:\n{stall_note(run)}", flush=True)
            last[run.variant] = plays
        parts = []
        for run in runs:
            try:
                deals = read(
                    run.db,
                    "SELECT count(*) FROM table_log l JOIN game_tables g ON g.id = l.table_id "
                    "WHERE g.chat_id = ? AND l.kind = 'deal'",
                    (run.group.id,),
                )[0][0]
            except sqlite3.Error as err:
                deals = f"({err})"
            plays = sum(p.plays for p in run.people)
            failed = sum(p.failed for p in run.people)
            presses = sum(p.presses for p in run.people)
            trouble = sum(n for p in run.people for k, n in p.refusals.items() if "harness" in k)
            failed = f"{failed} ({trouble} harness)" if trouble else failed
            parts.append(
                f"{run.variant}: {deals} deals, {plays} plays, {presses} presses, {failed} failed"
            )
        print(f"{time.time() - began:4.0f} s  " + "; ".join(parts), flush=True)


async def main(args: argparse.Namespace, workdir: Path) -> int:
    bot_dir = (args.bot_dir or REPO_ROOT).resolve()
    env = {
        "KOZEL_RATE_LIMIT": "30",
        "KOZEL_GROUP_RATE_LIMIT": "20",
        "KOZEL_TIMEOUT_SCALE": "1000",
        "PYTHONPATH": str(bot_dir),
    }
    async with FakeTelegram(limits=TelegramLimits()) as fake:
        bot = BotProcess(fake, workdir, env=env, cwd=bot_dir, startup_timeout=60)
        await bot.start()
        assert isinstance(bot.db, Path)
        runs = []
        for index, variant in enumerate(args.variants):
            users = [fake.add_user(name, args.language) for name in NAMES[: VARIANTS[variant]]]
            group = fake.add_group(f"Kozel club {index + 1}", users, admins=users[:1])
            people = [
                Person(
                    fake,
                    user,
                    bot.db,
                    random.Random(f"{args.seed}:{variant}:{seat}"),
                    tuple(args.think),  # type: ignore[arg-type]
                    tuple(args.tap),  # type: ignore[arg-type]
                    asyncio.Event(),
                )
                for seat, user in enumerate(users)
            ]
            runs.append(Run(fake, bot.db, variant, group, people))
        began = time.time()
        progress = asyncio.create_task(report(runs, began))
        try:
            await asyncio.wait_for(asyncio.gather(*(r.play() for r in runs)), args.timeout)
        finally:
            progress.cancel()
            await bot.stop(timeout=20)
        results = [figures(fake, r, Phrases.of(args.language)) for r in runs]
        if args.transcripts:
            args.transcripts.mkdir(parents=True, exist_ok=True)
            for run in runs:
                chats = [("group", run.group.id), ("private", run.people[0].user.id)]
                for kind, chat in chats:
                    path = args.transcripts / f"{run.variant}-{kind}.txt"
                    path.write_text(transcript(fake, chat), encoding="utf-8")
    print(f"bot: {bot_dir}; {time.time() - began:.0f} s; pace think {args.think}, tap {args.tap}")
    keys = list(results[0])
    width = max(len(k) for k in keys)
    for key in keys:
        print(f"{key:<{width}}  " + " | ".join(str(r[key]) for r in results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    return 0 if all(r["error"] is None for r in results) else 1


if __name__ == "__main__":
    arguments = parse_args()
    with tempfile.TemporaryDirectory(prefix="chat-figures-") as tmp:
        work = Path(tmp)
        code = asyncio.run(main(arguments, work))
        if arguments.keep:
            print(f"work dir kept: {work}")
    sys.exit(code)
