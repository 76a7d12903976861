"""Simulated people for the load benchmark: each reads their own hand, thinks, and taps.

They play the way the e2e driver's ``Table`` does (toggle playable cards until the confirm
buttons appear, then confirm one; declare an offered special lead now and then), but every
person is an independent task on their own clock, with a think time before each play and a
short gap between the taps of one play, and they never read anything but their own chat.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from dataclasses import dataclass, field

from e2e.driver import HAND_DATA, TOGGLED, TURN_MARK, is_hand, is_special, op_of
from fakebot.models import Button, MessageVersion, StoredMessage, keyboard_buttons
from fakebot.server import FakeTelegram
from fakebot.users import SimGroup, SimUser

__all__ = ["MATCH_OVER", "Pace", "Person", "TableRun", "is_hand_version", "played"]

MATCH_OVER = "The match is over!"
STALE = re.compile(r"out of date|not your turn", re.IGNORECASE)


def played(text: str | None) -> bool:
    """Whether a callback answer says the press made a play."""
    return bool(text) and str(text).startswith("Played")


def plays(hint: str, button: Button) -> bool:
    """Whether a tap's answer says that a confirm button drawn before the choice plays it
    ("— ⚔️ beats, 🂠 discards face down", "— the button below plays it")."""
    glyph = button.text.split(" ", 1)[0]
    if "below plays" in hint:
        return glyph != "🂠"
    return "—" in hint and glyph in hint


def is_hand_version(version: MessageVersion) -> bool:
    """A version of a private hand message (the same test as the driver's ``is_hand``)."""
    return version.text.startswith("🐐 Kozel ·") or any(
        b.callback_data and HAND_DATA.match(b.callback_data)
        for b in keyboard_buttons(version.reply_markup)
    )


@dataclass(frozen=True)
class Pace:
    think: tuple[float, float] = (0.8, 2.0)  # before a play, seconds (uniform)
    tap: tuple[float, float] = (0.2, 0.5)  # between the taps of one play
    special_rate: float = 0.5  # how often an offered special lead is declared
    press_timeout: float = 20.0  # a press the bot does not answer by then is unanswered
    fidget: float = 0.0  # extra presses a second on live buttons, while waiting or thinking
    screen_timeout: float = 30.0  # how long a tap waits for the hand to show it


@dataclass(eq=False)
class Person:
    fake: FakeTelegram
    user: SimUser
    rng: random.Random
    pace: Pace
    stop: asyncio.Event
    presses: int = 0
    plays: int = 0
    unanswered: int = 0
    stale: int = 0  # presses on a screen that had changed (button gone, "out of date")
    fidgets: int = 0  # presses made only to fidget
    moving: bool = False  # in the middle of a play's taps: no fidgeting now
    toggled: str | None = None  # a card fidgeted into the selection, to take out again

    async def fidget(self) -> None:
        """Press a live button of the hand about ``pace.fidget`` times a second (exponential
        gaps) until ``stop``: while it is another's turn a (greyed) card; on one's own turn,
        before the play's taps begin, toggle a card in and out of the selection."""
        rate = self.pace.fidget
        if rate <= 0:
            return
        while await self._pause_for(self.rng.expovariate(rate)):
            hand = self.hand()
            if self.moving or hand is None:
                continue
            cards = [b for b in hand.buttons if op_of(b) == "tog"]
            if not cards:
                continue
            mine = TURN_MARK in (hand.text or "")
            button = None
            if mine and self.toggled is not None:
                button = next((b for b in cards if b.callback_data == self.toggled), None)
                self.toggled = None
            elif mine:
                free = [b for b in cards if not b.text.startswith(("(", "✅"))]
                if free:
                    button = self.rng.choice(free)
                    self.toggled = button.callback_data
            else:
                self.toggled = None
                button = self.rng.choice(cards)
            if button is None:
                continue
            self.fidgets += 1
            self._count(await self._press(hand, button))

    async def _pause_for(self, seconds: float) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), seconds)
        return not self.stop.is_set()

    def hand(self) -> StoredMessage | None:
        for message in reversed(self.user.private_chat.messages.values()):
            if message.from_bot and not message.deleted and is_hand(message):
                return message
        return None

    async def run(self) -> None:
        """Act on every new screen of the hand once, until ``stop``."""
        acted: tuple[int, int] | None = None
        while not self.stop.is_set():
            seq = self.fake.chat_seq(self.user)
            hand = self.hand()
            if hand is not None and (hand.message_id, hand.changed_seq) != acted:
                await self._act(hand)
                latest = self.hand()
                acted = (latest.message_id, latest.changed_seq) if latest else None
                continue
            await self.fake.wait_chat(self.user, seq, timeout=1.0)

    async def _act(self, hand: StoredMessage) -> None:
        specials = [b for b in hand.buttons if op_of(b) == "act" and is_special(b)]
        declare = bool(specials) and self.rng.random() < self.pace.special_rate
        if not declare and TURN_MARK not in (hand.text or ""):
            return
        if not await self._pause(self.pace.think):
            return
        current = self.hand()
        if current is None or current.message_id != hand.message_id:
            return
        if declare:
            specials = [b for b in current.buttons if op_of(b) == "act" and is_special(b)]
            if specials:
                self._count(await self._press(current, self.rng.choice(specials)))
                return
        if TURN_MARK in (current.text or ""):
            self.moving = True
            try:
                await self._move(self.hand() or current)
            finally:
                self.moving = False

    async def _move(self, hand: StoredMessage) -> None:
        """Toggle playable cards until the choice plays, then press a confirm button: one
        drawn with the choice, or one drawn before it once the tap's answer says the choice
        plays (a person reads the answer; the hand's edit may wait when the bot is busy)."""
        chosen: set[str] = set()  # cards this play toggled in (the hand may not show them)
        hint = ""  # the last tap's answer: what the choice does
        for _ in range(12):
            if self.stop.is_set():
                return
            confirms = [b for b in hand.buttons if op_of(b) == "act" and not is_special(b)]
            early = [b for b in hand.buttons if op_of(b) == "cnf" and plays(hint, b)]
            free = [
                b
                for b in hand.buttons
                if op_of(b) == "tog"
                and not b.text.startswith(("(", "✅"))
                and b.callback_data not in chosen
            ]
            # Messages change in place: note the screen before tapping, not after.
            before = (hand.message_id, hand.changed_seq)
            ready = confirms or early
            if ready and (not free or self.rng.random() < 0.6):
                text = await self._press(hand, self.rng.choice(ready))
                self._count(text)
                if played(text) or text is None or not early:
                    return
                hint = text  # refused: the choice stays; tap on from it
            else:
                outcome = await self._tap_one(hand, free, chosen)
                if outcome is None:
                    return
                hint = outcome
            if hint and any(op_of(b) == "cnf" for b in hand.buttons):
                # The answer said the choice: no need to wait for the hand to show it.
                if not await self._pause(self.pace.tap):
                    return
                hand = self.hand() or hand
                continue
            updated = await self._next_screen(before)
            if updated is None or TURN_MARK not in (updated.text or ""):
                return
            if not await self._pause(self.pace.tap):
                return
            hand = self.hand() or updated
            chosen.clear()

    async def _tap_one(
        self, hand: StoredMessage, free: list[Button], chosen: set[str]
    ) -> str | None:
        """Tap free cards until one is taken into the choice: its answer. When none is, the
        choice is taken back: "" after the clear button (the hand will show it), else the
        last answer. None: stop this play (a card played alone, a stale hand)."""
        self.rng.shuffle(free)
        for card in free:
            text = await self._press(hand, card)
            if text is None or STALE.search(text):
                return None
            if played(text):
                self._count(text)  # a one-tap play
                return None
            if not text or text.startswith(TOGGLED):
                chosen.add(str(card.callback_data))
                return text
        # No card joins the choice: take it back (the clear button, or each chosen card).
        clear = [b for b in hand.buttons if op_of(b) == "clr"]
        undo = clear[:1] or [b for b in hand.buttons if b.callback_data in chosen]
        text: str | None = ""
        for button in undo:
            text = await self._press(hand, button)
            if text is None:
                return None
        chosen.clear()
        return "" if clear else text

    async def _next_screen(self, before: tuple[int, int]) -> StoredMessage | None:
        """The hand once it differs from ``before`` (message id, changed_seq), or None if
        that takes longer than the screen timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.pace.screen_timeout
        while not self.stop.is_set():
            seq = self.fake.chat_seq(self.user)
            current = self.hand()
            if current is not None and (current.message_id, current.changed_seq) != before:
                return current
            remaining = deadline - loop.time()
            if remaining <= 0:
                return None
            await self.fake.wait_chat(self.user, seq, timeout=min(remaining, 1.0))
        return None

    async def _press(self, hand: StoredMessage, button: Button) -> str | None:
        """Press; the answer's text ("" if none), or None if unanswered or stale."""
        assert button.callback_data is not None
        self.presses += 1
        try:
            answer = await self.user.press(
                self.user,
                hand.message_id,
                button.callback_data,
                timeout=self.pace.press_timeout,
            )
        except TimeoutError:
            self.unanswered += 1
            return None
        except AssertionError:  # the button or the message is gone: the screen changed
            self.stale += 1
            return None
        text = answer.text or ""
        if STALE.search(text):
            self.stale += 1
        return text

    def _count(self, text: str | None) -> None:
        if played(text):
            self.plays += 1

    async def _pause(self, bounds: tuple[float, float]) -> bool:
        """Sleep a random time within ``bounds``; False if ``stop`` came meanwhile."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), self.rng.uniform(*bounds))
        return not self.stop.is_set()


@dataclass(eq=False)
class TableRun:
    """One group of four people: open a ``street`` table, seat everybody, start, play; when
    a match ends, the creator opens the next one."""

    fake: FakeTelegram
    index: int
    group: SimGroup
    people: list[Person]
    stop: asyncio.Event
    variant: str = "street"
    step_timeout: float = 120.0
    started: asyncio.Event = field(default_factory=asyncio.Event)
    matches_started: int = 0
    matches_over: int = 0
    error: str | None = None
    lobby_id: int = 0

    @property
    def users(self) -> list[SimUser]:
        return [p.user for p in self.people]

    async def run(self, setup_slots: asyncio.Semaphore) -> None:
        try:
            creator = self.users[0]
            async with setup_slots:
                mark = self.fake.mark()
                await creator.start_bot()
                await self.fake.wait_for_message(creator, since=mark, timeout=self.step_timeout)
                await self._open_and_start()
            self.started.set()
            while not self.stop.is_set():
                await self._wait_match_over()
                if self.stop.is_set():
                    break
                self.matches_over += 1
                await self._open_and_start()
        except (TimeoutError, AssertionError, RuntimeError) as exc:
            self.error = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
        finally:
            self.started.set()  # failed tables do not hold the warm-up

    def _match_posts(self) -> int:
        return sum(MATCH_OVER in (m.text or "") for m in self.fake.messages(self.group))

    async def _wait_match_over(self) -> None:
        before = self.matches_over
        while not self.stop.is_set() and self._match_posts() <= before:
            seq = self.fake.chat_seq(self.group)
            await self.fake.wait_chat(self.group, seq, timeout=1.0)

    async def _open_and_start(self) -> None:
        creator, timeout = self.users[0], self.step_timeout
        mark = self.fake.mark()
        await creator.send(self.group, f"/newgame {self.variant}")
        lobby = await self.fake.wait_for_message(
            self.group,
            lambda m: any(b.text.endswith("Join") for b in m.buttons),
            since=mark,
            timeout=timeout,
        )
        self.lobby_id = lobby.message_id
        for user in self.users[1:]:
            await self._join(user)
        mark = self.fake.mark()
        answer = await creator.press_button(
            self.group, self.lobby_id, contains="Start", timeout=timeout
        )
        if answer.show_alert:
            raise AssertionError(f"Start refused: {answer.text}")

        def dealt() -> bool:
            return all((h := p.hand()) is not None and h.changed_seq > mark for p in self.people)

        await self.fake.wait_for(dealt, timeout, what=f"table {self.index}: hands dealt")
        self.matches_started += 1

    async def _join(self, user: SimUser) -> None:
        timeout = self.step_timeout
        answer = await user.press_button(
            self.group, self.lobby_id, contains="Join", timeout=timeout
        )
        if answer.url:
            if "start=" not in answer.url:
                raise AssertionError(f"join link without a payload: {answer.url}")
            mark = self.fake.mark()
            await user.start_bot(answer.url.split("start=", 1)[1])
            await self.fake.wait_for_message(user, since=mark, timeout=timeout)

        def seated() -> bool:
            lobby = self.group.messages.get(self.lobby_id)
            return lobby is not None and user.first_name in (lobby.text or "")

        await self.fake.wait_for(seated, timeout, what=f"{user.first_name} seated")
