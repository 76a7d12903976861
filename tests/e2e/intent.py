"""A person who knows what they want to play and does it with the hand's buttons.

The play is decided from the seat's own view (read from the bot's database, as the engine
keeps it), then made the way a person makes it: tap the cards of the play one by one, each
tap waiting for the hand to show it, then press the button naming exactly that play if one
is still needed. Buttons are recognised by their callback data, never by their words, so
this works in every language. The e2e tests and ``benchmarks/chat_figures.py`` use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from fakebot.models import Button, CallbackAnswer, StoredMessage
from fakebot.server import FakeTelegram
from fakebot.users import SimUser

from bot.callback import CallbackDataError, Op, decode_action, decode_card, parse
from kozel_rules.action import Action
from kozel_rules.ai import choose, interrupt
from kozel_rules.card import Card
from kozel_rules.event import DealStarted, TrickTaken
from kozel_rules.match import Match

from .driver import rows

HAND_OPS = {Op.TOGGLE, Op.ACT, Op.CLEAR}


def stored_match(db: Path | str, table_id: int) -> Match | None:
    """The match as the bot's database holds it now."""
    found = rows(db, "SELECT match_state FROM game_tables WHERE id = ?", (table_id,))
    if not found or found[0][0] is None:
        return None
    return Match.from_json(json.loads(str(found[0][0])))


def seat_of(db: Path | str, table_id: int, user_id: int) -> int | None:
    found = rows(
        db, "SELECT seat FROM seats WHERE table_id = ? AND user_id = ?", (table_id, user_id)
    )
    return int(str(found[0][0])) if found else None


def hand_where(message: StoredMessage) -> tuple[int, int] | None:
    """The (table, ply) a hand message's buttons were made for (None: not a hand)."""
    for button in message.buttons:
        with contextlib.suppress(CallbackDataError):
            cb = parse(button.callback_data)
            if cb.op in HAND_OPS:
                return cb.table, cb.version
    return None


def hand_of(user: SimUser) -> StoredMessage | None:
    """The user's latest hand message (with card buttons)."""
    for message in reversed(user.private_chat.messages.values()):
        if message.from_bot and not message.deleted and hand_where(message) is not None:
            return message
    return None


@dataclass
class Keys:
    """A hand's buttons by what they do."""

    cards: dict[Card, Button] = field(default_factory=dict)
    chosen: set[Card] = field(default_factory=set)
    acts: list[tuple[Action, Button]] = field(default_factory=list)
    clear: Button | None = None

    def act(self, action: Action) -> Button | None:
        for known, button in self.acts:
            if same(known, action):
                return button
        return None


def keys_of(message: StoredMessage, seat: int) -> Keys:
    keys = Keys()
    for button in message.buttons:
        try:
            cb = parse(button.callback_data)
            if cb.op is Op.ACT:
                keys.acts.append((decode_action(seat, cb.arg), button))
            elif cb.op is Op.TOGGLE:
                card = decode_card(cb.arg)
                keys.cards[card] = button
                if button.text.startswith("✅"):
                    keys.chosen.add(card)
            elif cb.op is Op.CLEAR:
                keys.clear = button
        except CallbackDataError:
            continue
    return keys


def same(a: Action, b: Action) -> bool:
    return a.verb is b.verb and set(a.cards) == set(b.cards)


@dataclass
class Enacted:
    """What making a play took: the presses, their answers, and whether it was made."""

    presses: int = 0
    answers: list[CallbackAnswer] = field(default_factory=list)
    played: bool = False


async def press(user: SimUser, message: StoredMessage, button: Button) -> CallbackAnswer:
    assert button.callback_data is not None
    return await user.press(user, message.message_id, button.callback_data, timeout=20)


async def next_hand(
    server: FakeTelegram, user: SimUser, before: tuple[int, int], timeout: float
) -> StoredMessage | None:
    """The user's hand once it differs from ``before`` (message id, changed_seq)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seq = server.chat_seq(user)
        current = hand_of(user)
        if current is not None and (current.message_id, current.changed_seq) != before:
            return current
        await server.wait_chat(user, seq, timeout=min(1.0, deadline - time.monotonic()))
    return None


async def enact(
    server: FakeTelegram,
    user: SimUser,
    db: Path | str,
    table_id: int,
    intent: Action,
    *,
    tap_pause: Callable[[], float] | None = None,
    hand_wait: float = 20.0,
) -> Enacted:
    """Make ``intent`` with the hand's buttons: tap its cards, then confirm it if needed.
    Played means the bot's database moved on (whatever the answers say, in any language)."""
    done = Enacted()
    start = stored_match(db, table_id)
    ply = start.ply if start is not None else -1
    for _ in range(12):
        hand = hand_of(user)
        if hand is None:
            return done
        keys = keys_of(hand, intent.seat)
        wanted = set(intent.cards)
        confirm = keys.act(intent)
        if confirm is not None and (intent.verb.is_special or keys.chosen == wanted):
            target = confirm
        else:
            wrong = sorted(keys.chosen - wanted)
            missing = [c for c in intent.cards if c not in keys.chosen]
            card = wrong[0] if wrong else (missing[0] if missing else None)
            if card is None or card not in keys.cards:
                return done
            target = keys.cards[card]
        before = (hand.message_id, hand.changed_seq)
        done.presses += 1
        try:
            answer = await press(user, hand, target)
        except AssertionError:  # the button is gone: the hand changed under the thumb
            return done
        done.answers.append(answer)
        now = stored_match(db, table_id)
        if now is not None and now.ply != ply:
            done.played = True
            return done
        if answer.show_alert:
            return done
        if await next_hand(server, user, before, hand_wait) is None:
            return done
        if tap_pause is not None:
            await asyncio.sleep(tap_pause())
    return done


# ------------------------------------------------------------------ whole matches

Decide = Callable[[SimUser, StoredMessage, Match, int], Awaitable[bool]]


async def play_match(
    server: FakeTelegram,
    db: Path | str,
    users: list[SimUser],
    over: Callable[[], bool],
    *,
    level: str = "random",
    decide: Decide | None = None,
    timeout: float = 240.0,
) -> None:
    """Every user plays whenever their hand is theirs to act on, until ``over()``: their
    own ``decide`` first (True: it acted), else the computer level's choice, enacted."""

    async def person(user: SimUser) -> None:
        acted: tuple[int, int] | None = None
        while not over():
            seq = server.chat_seq(user)
            hand = hand_of(user)
            where = hand_where(hand) if hand is not None else None
            if hand is None or where is None or (hand.message_id, hand.changed_seq) == acted:
                await server.wait_chat(user, seq, timeout=1.0)
                continue
            acted = (hand.message_id, hand.changed_seq)
            table_id, ply = where
            match = stored_match(db, table_id)
            seat = seat_of(db, table_id, user.id)
            if match is None or seat is None or match.ply != ply or match.is_over:
                continue
            if decide is not None and await decide(user, hand, match, seat):
                continue
            rng = random.Random(f"{table_id}:{ply}:{seat}")
            if match.to_move == seat:
                intent: Action | None = choose(match, seat, level=level, rng=rng)
            else:
                intent = interrupt(match, seat, level=level, rng=rng)
            if intent is not None:
                made = await enact(server, user, db, table_id, intent)
                if not made.played:
                    acted = None  # look again, a moment later
                    await asyncio.sleep(0.2)

    await asyncio.wait_for(asyncio.gather(*(person(u) for u in users)), timeout)


@dataclass(frozen=True)
class Taken:
    deal: int
    number: int  # 1-based within the deal
    seat: int


def tricks_taken(match: Match) -> list[Taken]:
    """Every completed trick of a stored match, replayed: deal, number, taker."""
    record = match.to_json()
    fresh = Match.from_json({**record, "actions": []})
    taken: list[Taken] = []
    deal, number = 1, 0
    for text in record["actions"]:
        for event in fresh.apply(str(text)):
            if isinstance(event, TrickTaken):
                number += 1
                taken.append(Taken(deal, number, event.seat))
            elif isinstance(event, DealStarted):
                deal, number = event.number, 0
    return taken
