"""Plays Kozel through the bot's real messages, the way people do: read the hand, tap cards.

A ``Table`` knows a group and its simulated users. Players only use what they see: the
buttons on their private hand message (card toggles, confirm buttons, special leads).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import json
import random
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import Button, StoredMessage, Topic
from fakebot.process import BotProcess
from fakebot.server import FakeTelegram
from fakebot.users import SimGroup, SimUser

from . import pgread

HAND_DATA = re.compile(r"^v1:\d+:\d+:(tog|act|cnf|clr|back)")
TURN_MARK = "👉"
TOGGLED = ("Selected:", "Nothing selected")  # the answers to a tap that selects
SLOW_DOWN = "Not so fast"  # the answer to a press over the person's fair share
SLOW_DOWN_PAUSE = 0.3  # seconds a player told to slow down waits before pressing again
MATCH_OVER = "🏆"  # the match's result, in any language
# A hand's first line names the variant: "🐐 Street Kozel · <the group's title>".
VARIANT_NAMES = ("Classic Kozel (Ziege)", "Street Kozel", "Moscow Kozel")
HAND_TITLES = tuple(f"🐐 {name} ·" for name in VARIANT_NAMES)
ENV_FAST = {
    "KOZEL_AI_DELAY": "0",
    "KOZEL_TABLE_INTERVAL": "0",
    "KOZEL_HAND_INTERVAL": "0",
    # The fake server has no flood limits of its own (429s are injected where tested).
    "KOZEL_RATE_LIMIT": "1000",
    "KOZEL_GROUP_RATE_LIMIT": "1000",
    "KOZEL_PRIVATE_RATE_LIMIT": "1000",
    # The strong and expert computers search a tenth of a move's default (same code, about
    # a seventh of the time): a match's checks do not need their strength.
    "KOZEL_AI_BUDGET": "2000",
    # The driver taps at machine speed, far above a person's fair share.
    "KOZEL_PRESS_RATE": "1000",
    "KOZEL_PRESS_BURST": "1000",
    # Nothing balances the tests' webhook workers by health checks (the Caddy test does).
    "KOZEL_DRAIN_SECONDS": "0",
}


def is_hand(message: StoredMessage) -> bool:
    return any(b.callback_data and HAND_DATA.match(b.callback_data) for b in message.buttons) or (
        message.text is not None and message.text.startswith(HAND_TITLES)
    )


def op_of(button: Button) -> str:
    data = button.callback_data or ""
    return data.split(":")[3] if data.count(":") >= 3 else ""


@dataclass
class Table:
    server: FakeTelegram
    group: SimGroup
    rng: random.Random = field(default_factory=lambda: random.Random(1))
    special_rate: float = 0.5  # how often a player declares a special lead it is offered
    presses: int = 0
    pause: float = 0.0  # seconds a player looks at a new screen before acting (0: none)
    lobby_id: int = 0
    topic: Topic | None = None  # the forum topic the table is opened in
    hand_wait: float = 5.0  # how long a player waits for their hand to show a tap
    press_wait: float = 10.0  # ... and for the answer to a press
    slowed: int = 0  # presses the bot refused as over the person's fair share
    echoes_missed: int = 0  # taps whose hand did not show them within ``hand_wait``
    _acted: dict[int, tuple[int, int]] = field(default_factory=dict)

    @property
    def thread_id(self) -> int | None:
        return self.topic.thread_id if self.topic else None

    def here(self, message: StoredMessage) -> bool:
        """Whether a group message is in this table's topic (or outside topics)."""
        return message.thread_id == self.thread_id

    # ------------------------------------------------------------ lobby

    async def start_private(self, user: SimUser) -> None:
        """Press Start in the bot's private chat and wait for its hello."""
        mark = self.server.mark()
        await user.start_bot()
        await self.server.wait_for_message(user, since=mark)

    async def open(self, creator: SimUser, variant: str) -> StoredMessage:
        mark = self.server.mark()
        await creator.send(self.group, f"/newgame {variant}", topic=self.topic)
        lobby = await self.server.wait_for_message(
            self.group,
            lambda m: self.here(m) and any(op_of(b) == "join" for b in m.buttons),
            since=mark,
        )
        self.lobby_id = lobby.message_id
        return lobby

    def lobby(self) -> StoredMessage:
        return self.server.message(self.group, self.lobby_id)

    def lobby_text(self) -> str:
        return self.lobby().text or ""

    async def press_lobby(self, user: SimUser, contains: str) -> str:
        lobby = self.lobby()
        mark = self.server.mark()
        answer = await user.press_button(self.group, lobby.message_id, contains=contains)
        if (answer.text and "joined" in answer.text) or contains in ("🤖", "Start"):
            await self.server.wait_for_message(self.group, since=mark, timeout=5)
        return answer.text or ""

    async def join(self, user: SimUser) -> None:
        """Join, taking the deep link through the private chat when the bot asks for it."""
        lobby = self.lobby()
        answer = await user.press_button(
            self.group, lobby.message_id, predicate=lambda b: op_of(b) == "join"
        )
        if answer.url:
            assert "start=" in answer.url, answer.url
            payload = answer.url.split("start=", 1)[1]
            mark = self.server.mark()
            await user.start_bot(payload)
            reply = await self.server.wait_for_message(user, since=mark)
            assert any(op_of(b) == "leave" for b in reply.buttons), reply.text  # seated
        await self.server.wait_for(
            lambda: user.first_name in (self.lobby().text or ""), what=f"{user.first_name} seated"
        )

    async def add_computer(self, creator: SimUser, level: str = "strong") -> None:
        before = (self.lobby().text or "").count("🤖")
        lobby = self.lobby()
        await creator.press_button(
            self.group,
            lobby.message_id,
            predicate=lambda b: op_of(b) == "bot" and (b.callback_data or "").endswith(level),
        )
        await self.server.wait_for(
            lambda: (self.lobby().text or "").count("🤖") > before, what="computer seated"
        )

    async def start(self, creator: SimUser) -> None:
        lobby = self.lobby()
        mark = self.server.mark()
        answer = await creator.press_button(
            self.group, lobby.message_id, predicate=lambda b: op_of(b) == "start"
        )
        assert not answer.show_alert, answer.text
        # The lobby message becomes the table of the first deal.
        await self.server.wait_for_message(
            self.group,
            lambda m: (
                self.here(m)
                and m.text is not None
                and m.text.startswith("🐐")
                and not any(op_of(b) == "join" for b in m.buttons)
            ),
            since=mark,
            timeout=10,
        )

    # ------------------------------------------------------------ playing

    def hand(self, user: SimUser) -> StoredMessage | None:
        hands = [m for m in self.server.messages(user) if is_hand(m)]
        return hands[-1] if hands else None

    def group_text(self) -> str:
        """Everything the group was ever shown by the bot, all versions."""
        return "\n".join(self.server.shown_texts(self.group, from_bot_only=True))

    def match_over(self) -> bool:
        return any(
            self.here(m) and (m.text or "").startswith(MATCH_OVER)
            for m in self.server.messages(self.group)
        )

    async def play(
        self,
        humans: list[SimUser],
        *,
        until: Callable[[], bool] | None = None,
        timeout: float = 240.0,
        max_presses: int = 20_000,
    ) -> None:
        """Every human plays whenever their hand says it is their turn, until ``until``."""
        done = until or self.match_over
        while not done():
            # Marked before the hands are looked at: a hand that changes while this pass is
            # pressing (say, the next player's turn arrives while a stale press is answered)
            # ends the wait below at once instead of at the next unrelated call (often the
            # bot's next long poll, 10 s later).
            start = self.server.mark()
            moved = False
            for user in humans:
                if self.pause:
                    await asyncio.sleep(self.pause)
                message = self.hand(user)
                if message is None:
                    continue
                # Like a person: act on a screen once, then wait for it to change.
                seen = (message.message_id, message.changed_seq)
                if self._acted.get(user.id) == seen:
                    continue
                self._acted[user.id] = seen
                if await self._special(user, message) or (
                    TURN_MARK in (message.text or "") and await self._move(user, message)
                ):
                    moved = True
            assert self.presses < max_presses, "too many presses: the match does not end"
            if not moved:
                await self.server.wait_for(
                    lambda start=start: done() or self.server.mark() > start,
                    timeout=timeout,
                    what="the table to move on",
                )

    async def _press(self, user: SimUser, message: StoredMessage, button: Button) -> str:
        assert button.callback_data is not None
        while True:
            self.presses += 1
            answer = await user.press(
                user, message.message_id, button.callback_data, timeout=self.press_wait
            )
            if not (answer.text or "").startswith(SLOW_DOWN):
                return answer.text or ""
            # Over their fair share: like a person told so, wait a moment and press again.
            self.slowed += 1
            await asyncio.sleep(SLOW_DOWN_PAUSE)

    async def _special(self, user: SimUser, message: StoredMessage) -> bool:
        specials = [b for b in message.buttons if op_of(b) == "act" and is_special(b)]
        if not specials or self.rng.random() >= self.special_rate:
            return False
        text = await self._press(user, message, self.rng.choice(specials))
        return text.startswith("Played")

    async def _move(self, user: SimUser, message: StoredMessage) -> bool:
        """Toggle playable cards until confirm buttons appear, then press one of them."""
        for _ in range(12):
            confirms = [b for b in message.buttons if op_of(b) == "act" and not is_special(b)]
            free = [
                b
                for b in message.buttons
                if op_of(b) == "tog" and not b.text.startswith(("(", "✅"))
            ]
            if confirms and (not free or self.rng.random() < 0.6):
                text = await self._press(user, message, self.rng.choice(confirms))
                return text.startswith("Played")
            self.rng.shuffle(free)
            mark = self.server.mark()
            shows: Callable[[StoredMessage], bool] = is_hand
            for card in free:
                text = await self._press(user, message, card)
                if text.startswith("Played"):
                    return True  # a one-tap play (ziege)
                if not text or text.startswith(TOGGLED):
                    # Toggled: wait for a hand that shows it (or that moved on), not just any
                    # new hand: one sent meanwhile (after a restart, say) may not show it yet.
                    shows = functools.partial(_shows_toggled, card=card.text)
                    break
                if "out of date" in text or "not your turn" in text.lower():
                    return False
            else:
                clear = [b for b in message.buttons if op_of(b) == "clr"]
                if not clear:
                    return False
                await self._press(user, message, clear[0])
            try:
                message = await self.server.wait_for_message(
                    user, shows, since=mark, timeout=self.hand_wait
                )
            except TimeoutError:
                # The tap undid a choice the hand did not show yet (the bot was restarted
                # between the choice and its edit): look at the hand as it is now.
                self.echoes_missed += 1
                current = self.hand(user)
                if current is None:
                    raise
                message = current
            if TURN_MARK not in (message.text or ""):
                return False
        return False


def _shows_toggled(message: StoredMessage, *, card: str) -> bool:
    if not is_hand(message):
        return False
    return TURN_MARK not in (message.text or "") or any(
        b.text == f"✅{card}" for b in message.buttons
    )


def is_special(button: Button) -> bool:
    return "Molodka" in button.text or "Moscow" in button.text


async def open_table(
    fake: FakeTelegram,
    bot_process: BotProcessFactory,
    names: tuple[str, ...],
    variant: str,
    *,
    seated: int,
    env: dict[str, str] | None = None,
) -> tuple[Table, list[SimUser], BotProcess]:
    """A running bot, a group of ``names`` (the first opens the table and is its admin),
    everybody's private chat started, and the first ``seated`` people at the table."""
    bot = bot_process(env=env or ENV_FAST)
    await bot.start()
    users = [fake.add_user(name) for name in names]
    group = fake.add_group("Kozel club", users, admins=users[:1])
    table = Table(fake, group)
    for user in users:
        await table.start_private(user)
    await table.open(users[0], variant)
    for user in users[1:seated]:
        await table.join(user)
    return table, users, bot


# ------------------------------------------------------------------ the bot's database

# Parametrizes a test over both backends of the bot it starts (``bot_process``).
BOTH_BACKENDS = pytest.mark.parametrize("bot_database", ["sqlite", "postgres"], indirect=True)


def rows(db: Path | str, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
    """Read the bot's store (``BotProcess.db``: a SQLite file or a PostgreSQL URL) over a
    connection of our own, as another process would; SQL with ``?`` marks."""
    if isinstance(db, str) and db.startswith("postgresql://"):
        return pgread.fetch(db, sql, params)
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return list(conn.execute(sql, tuple(params)).fetchall())


def table_log(db: Path | str) -> list[tuple[str, int | None, str]]:
    found = rows(db, "SELECT kind, ply, text FROM table_log ORDER BY id")
    return [(str(k), None if p is None else int(str(p)), str(t)) for k, p, t in found]


def actions(db: Path | str) -> list[tuple[int, str, str]]:
    """Every committed action: (seat, action text, who acted: human/computer/timeout)."""
    found = rows(db, "SELECT seat, text, by FROM table_log WHERE kind = 'action' ORDER BY id")
    return [(int(str(seat)), str(text), str(by)) for seat, text, by in found]


def current_ply(db: Path | str) -> int:
    """How many actions the bot has committed (its database is the truth)."""
    return sum(1 for kind, _, _ in table_log(db) if kind == "action")


CARD = re.compile(r"(?<![0-9A-Za-z])(10|[6-9JQKA])([♠♥♦♣])")
FACE_UP_VERBS = {"lead", "beat", "play", "molodka", "moscow"}


def face_up_cards_by_deal(db: Path | str) -> dict[int, set[str]]:
    """Cards every seat saw face up, per deal, from the bot's own log of actions."""
    deal = 1
    seen: dict[int, set[str]] = {1: set()}
    for kind, _, text in table_log(db):
        if kind == "deal":
            deal += 1
            seen[deal] = set()
        elif kind == "action":
            _, verb, *cards = text.split()
            if verb in FACE_UP_VERBS:
                seen[deal].update(cards)
    return seen


def leaked_cards(texts: list[str], db: Path | str) -> list[str]:
    """Cards a group message showed that nobody had played face up in that deal.

    The shown trump card is public and is skipped; everything else must have been played
    face up in the deal the message talks about (no hand card, no face-down card).
    """
    seen = face_up_cards_by_deal(db)
    problems = []
    for text in texts:
        deal_match = re.search(r"[Dd]eal (\d+)", text)
        cards = {"".join(m) for m in CARD.findall(re.sub(r"trump card shown: \S+", "", text))}
        if not cards:
            continue
        if deal_match is None:
            problems.append(f"cards outside a deal: {sorted(cards)} in {text!r}")
            continue
        extra = cards - seen.get(int(deal_match.group(1)), set())
        if extra:
            problems.append(f"{sorted(extra)} in {text!r}")
    return problems


async def forged_newgame(fake: FakeTelegram, group: SimGroup, user: SimUser) -> bytes:
    """The body of a webhook post Telegram never sent: ``/newgame street`` from ``user``,
    modelled on a real update (``/help``) that the bot answers first."""
    mark = fake.mark()
    await user.send(group, "/help")
    await fake.wait_for_message(group, since=mark)
    forged = copy.deepcopy(fake.update_log[-1])
    forged["update_id"] += 1000
    forged["message"]["message_id"] += 1000
    forged["message"]["text"] = "/newgame street"
    forged["message"]["entities"] = [{"type": "bot_command", "offset": 0, "length": 8}]
    return json.dumps(forged).encode()
