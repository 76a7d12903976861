"""Whole matches read as the players read them: the words, the taps, the refusals, the group.

People play through the real bot and the fake Bot API; what they decide comes from their own
seat (the engine, from the bot's database), what they do is tapping the buttons of their
hand. Each test then reads the transcript: every version of every message the bot showed.
"""

from __future__ import annotations

import re

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import StoredMessage
from fakebot.server import FakeTelegram
from fakebot.users import SimUser

from bot.i18n import get_translator
from bot.render.refusals import RULE_TEXTS, Refused, refusal_text
from kozel_rules.action import Action, Verb
from kozel_rules.card import Card
from kozel_rules.errors import Rule
from kozel_rules.match import Match
from kozel_rules.view import Phase

from .driver import ENV_FAST, Table, op_of, rows
from .intent import enact, hand_where, keys_of, play_match, press, stored_match, tricks_taken

pytestmark = pytest.mark.e2e

EN = get_translator("en")
POINT_CARD = 4  # A, 10, K


async def seated_table(
    fake: FakeTelegram,
    bot_process: BotProcessFactory,
    names: tuple[str, ...],
    variant: str,
    *,
    language: str = "en",
    title: str = "Kozel club",
    computers: int = 0,
) -> tuple[Table, list[SimUser], object]:
    """A started table: ``names`` seated (the first opened it), then ``computers``."""
    bot = bot_process(env=ENV_FAST)
    await bot.start()
    users = [fake.add_user(name, language) for name in names]
    group = fake.add_group(title, users, admins=users[:1])
    table = Table(fake, group)
    for user in users:
        await table.start_private(user)
    await table.open(users[0], variant)
    for user in users[1:]:
        await table.join(user)
    for _ in range(computers):
        await table.add_computer(users[0], "random")
    await table.start(users[0])
    return table, users, bot


def everything_shown(fake: FakeTelegram, table: Table, users: list[SimUser]) -> list[str]:
    """Every text and button label the group and the people were shown, and every answer
    to a press."""
    texts = fake.shown_texts(table.group, from_bot_only=True)
    for user in users:
        texts += fake.shown_texts(user, from_bot_only=True)
    texts += [a.text for a in fake.callback_answers if a.text]
    return texts


# ------------------------------------------------------------------ the words

CARD_RU = re.compile(r"(?:10|[6-9]|[ВДКТ])[♠♥♦♣]")
LINK = re.compile(r"https?://\S+|/[a-z]+(?:@\w+)?")


async def test_a_match_in_russian_shows_no_english_word(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """Names, cards (in Russian letters), links and commands aside, not one Latin letter:
    the group's table and results, the hands, the buttons, the answers to presses."""
    table, users, bot = await seated_table(
        fake_telegram,
        bot_process,
        ("Анна", "Борис"),
        "street goat=6",
        language="ru",
        title="Клуб",
        computers=2,
    )
    await play_match(fake_telegram, bot.db, users, table.match_over)  # type: ignore[attr-defined]
    texts = everything_shown(fake_telegram, table, users)
    assert any("🏁" in text for text in texts) and any("🤖" in text for text in texts)
    english = []
    for text in texts:
        bare = LINK.sub("", CARD_RU.sub("", text))
        words = re.findall(r"[A-Za-z][A-Za-z']*", bare)
        if words:
            english.append(f"{words} in {text!r}")
    assert english == []


async def test_a_match_in_english_leaves_no_placeholder_and_names_every_trick(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """Moscow with three people: no ``{placeholder}`` anywhere; every version of the group's
    table names who took the last trick (the right one), each deal's result names its last
    trick and every taker in order; the placings and the goat (the first one out) close the
    match."""
    table, users, bot = await seated_table(
        fake_telegram, bot_process, ("Anna", "Boris", "Vera"), "moscow goat=6"
    )
    db = bot.db  # type: ignore[attr-defined]
    await play_match(fake_telegram, db, users, table.match_over)
    texts = everything_shown(fake_telegram, table, users)
    assert [t for t in texts if "{" in t or "}" in t] == []

    # The group's table (its hands end without card buttons: each player has had one hand
    # message since the first hand rings, and none was sent anew on a turn).
    table_id = int(
        str(rows(db, "SELECT id FROM game_tables WHERE chat_id = ?", (table.group.id,))[0][0])
    )
    match = stored_match(db, table_id)
    assert match is not None and match.result is not None
    names = [u.first_name for u in users]  # seats in the order they joined
    taken = {(t.deal, t.number): names[t.seat] for t in tricks_taken(match)}
    checked = 0
    for message in fake_telegram.messages(table.group):
        for version in message.versions:
            text = version.text
            deal = re.search(r"· deal (\d+)\n", text)
            if deal is None:
                continue
            count = sum(int(n) for n in re.findall(r"· (\d+) tricks?\b", text))
            said = re.search(r"Last trick taken by (\w+):", text)
            if count == 0:
                assert said is None, text
                continue
            assert said is not None, f"no taker shown after trick {count}:\n{text}"
            number = int(deal.group(1))
            assert said.group(1) == taken[(number, count)], text
            so_far = re.search(r"Tricks so far: (.+)", text)
            if count > 1:  # every taker of the deal so far, in order
                assert so_far is not None, text
                assert so_far.group(1).split(" · ") == [
                    taken[(number, k)] for k in range(1, count + 1)
                ], text
            checked += 1
    assert checked > 0
    results = [m.text or "" for m in fake_telegram.messages(table.group)]
    deal_results = [t for t in results if t.startswith("🏁")]
    assert len(deal_results) == len(match.deal_results)
    for text, deal in zip(deal_results, match.deal_results, strict=True):
        last = max(n for (d, n) in taken if d == deal.number)
        assert f"Last trick taken by {taken[(deal.number, last)]}:" in text, text
        # Every taker of the deal, whatever edits of its table the group was shown.
        in_order = " · ".join(taken[(deal.number, k)] for k in range(1, last + 1))
        assert f"Tricks in order: {in_order}\n" in text, text
    final = results[-1]
    assert final.startswith("🏆")
    goats = [names[side] for side in match.result.goats]  # with three players, side = seat
    assert all(goat in final.split("The goat")[1] for goat in goats), final
    first_out = next(r.out for r in match.deal_results if r.out)
    assert set(match.result.goats) == set(first_out)
    assert "🥇" in final


# ------------------------------------------------------------------ the taps


class Seen:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def all(self, kinds: tuple[str, ...], times: int = 2) -> bool:
        return all(self.counts.get(k, 0) >= times for k in kinds)


def turn_line(message: StoredMessage) -> str:
    return next((line for line in (message.text or "").splitlines() if "👉" in line), "")


TAP_CASES = ("beat", "discard", "lead", "confirm")


async def test_taps_do_what_they_say(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """Street with four people. A card that can beat an opponent's card beats with one tap;
    a card alone in its suit is led with one tap; a card without points that cannot beat goes
    face down with one tap; an A, 10 or K that cannot beat is chosen first, the prompt says
    what the red button does, and that button throws it face down."""
    table, users, bot = await seated_table(
        fake_telegram, bot_process, ("Anna", "Boris", "Vera", "Gleb"), "street"
    )
    db = bot.db  # type: ignore[attr-defined]
    seen = Seen()

    async def decide(user: SimUser, hand: StoredMessage, match: Match, seat: int) -> bool:
        if match.to_move != seat:
            return False
        view = match.view(seat)
        table_id = hand_where(hand)
        assert table_id is not None
        legal = [a for a in view.legal if not a.verb.is_special]
        keys = keys_of(hand, seat)
        if view.phase == Phase.LEAD:
            alone = [
                a.cards[0]
                for a in legal
                if len(a.cards) == 1 and sum(c.suit is a.cards[0].suit for c in view.hand) == 1
            ]
            if not alone:
                return False
            card = alone[0]
            button = keys.cards[card]
            assert button.style == "primary", button
            made = await enact(
                fake_telegram, user, db, table_id[0], Action.make(seat, "lead", [card])
            )
            assert made.played and made.presses == 1, made
            seen.add("lead")
            return True
        trick = view.trick
        if view.phase != Phase.RESPOND or trick is None or trick.plays[0].count != 1:
            return False
        top = trick.top_seat
        partner_top = top is not None and view.sides[top] == view.sides[seat]
        beats = [a for a in legal if a.verb is Verb.BEAT]
        for action in beats:
            assert keys.cards[action.cards[0]].style == "success"
        if beats and not partner_top:
            made = await enact(fake_telegram, user, db, table_id[0], beats[0])
            assert made.played and made.presses == 1, made
            seen.add("beat")
            return True
        beating = {a.cards[0] for a in beats}
        dead = [c for c in view.hand if c not in beating]
        points = [c for c in dead if c.points >= POINT_CARD]
        if points:
            card = points[0]
            mark = fake_telegram.mark()
            answer = await press(user, hand, keys.cards[card])
            assert (answer.text or "").startswith("Selected:") and not answer.show_alert  # chosen
            assert stored_match(db, table_id[0]).ply == match.ply  # type: ignore[union-attr]
            shown = await fake_telegram.wait_for_message(
                user, lambda m: any(b.text.startswith("✅") for b in m.buttons), since=mark
            )
            discard = [b for b in shown.buttons if op_of(b) == "act" and "🂠" in b.text]
            assert len(discard) == 1 and discard[0].style == "danger", shown.buttons
            assert "cannot beat" in turn_line(shown) and "🂠" in turn_line(shown), shown.text
            await press(user, shown, discard[0])
            after = stored_match(db, table_id[0])
            assert after is not None and after.ply == match.ply + 1
            assert after.history[-1] == str(Action.make(seat, "discard", [card]))
            seen.add("confirm")
            return True
        if dead:
            action = Action.make(seat, "discard", [dead[0]])
            made = await enact(fake_telegram, user, db, table_id[0], action)
            assert made.played and made.presses == 1, made
            seen.add("discard")
            return True
        return False

    def done() -> bool:
        return table.match_over() or seen.all(TAP_CASES)

    await play_match(fake_telegram, db, users, done, decide=decide)
    assert all(seen.counts.get(k, 0) >= 1 for k in TAP_CASES), seen.counts


# ------------------------------------------------------------------ the refusals

RULE_WORDS = {EN._(text) for text in RULE_TEXTS.values()}


async def test_every_refusal_names_its_rule(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """Classic Kozel with four people: a tap on a card in brackets is refused with the rule
    that keeps it out (follow suit, play a trump, no trump leads ...), never with "cannot be
    played now"; a tap out of turn says whose turn it is not."""
    table, users, bot = await seated_table(
        fake_telegram, bot_process, ("Anna", "Boris", "Vera", "Gleb"), "ziege"
    )
    db = bot.db  # type: ignore[attr-defined]
    said: list[str] = []
    waited: list[str] = []

    async def decide(user: SimUser, hand: StoredMessage, match: Match, seat: int) -> bool:
        keys = keys_of(hand, seat)
        if match.to_move != seat:
            if keys.cards:
                answer = await press(user, hand, next(iter(keys.cards.values())))
                # Stale only if the turn came meanwhile: then the hand is shown anew.
                gentle = {refusal_text(EN, Refused.NOT_YET), refusal_text(EN, Refused.STALE)}
                assert answer.text in gentle and not answer.show_alert, answer.text
                waited.append(answer.text or "")
            return False
        out = [c for c, b in keys.cards.items() if b.text.startswith("(")]
        if not out:
            return False
        card: Card = out[0]
        answer = await press(user, hand, keys.cards[card])
        assert answer.show_alert and answer.text in RULE_WORDS, answer.text
        assert answer.text == EN._(RULE_TEXTS[match.why_not(seat, card) or Rule.ILLEGAL])
        said.append(answer.text)
        return False  # then play as usual

    def done() -> bool:
        return table.match_over() or len(said) >= 6

    await play_match(fake_telegram, db, users, done, decide=decide)
    assert len(said) >= 3, said
    assert not any("cannot be played" in text for text in said)
    assert refusal_text(EN, Refused.NOT_YET) in waited


# ------------------------------------------------------------------ the turn timer


async def test_the_hand_shows_the_time_left_when_the_turn_timer_runs_short(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    """A 22 s turn timer (60 s scaled): 20 s before it runs out the hand is edited in place,
    without a sound, to say how many seconds are left."""
    bot = bot_process(env={**ENV_FAST, "KOZEL_TIMEOUT_SCALE": "0.37"})
    await bot.start()
    anna = fake_telegram.add_user("Anna")
    group = fake_telegram.add_group("Kozel club", [anna], admins=[anna])
    table = Table(fake_telegram, group)
    await table.start_private(anna)
    await table.open(anna, "street")
    for _ in range(3):
        await table.add_computer(anna, "random")
    await table.start(anna)
    turn = await fake_telegram.wait_for_message(
        anna, lambda m: "👉" in (m.text or ""), new=False, timeout=30
    )
    sends = len(fake_telegram.calls_to("sendMessage"))
    hurried = await fake_telegram.wait_for_message(
        anna, lambda m: "⏳" in (m.text or ""), new=False, timeout=15
    )
    assert hurried.message_id == turn.message_id  # an edit of the same hand: no sound
    assert len(fake_telegram.calls_to("sendMessage")) == sends
    left = re.search(r"⏳ (\d+) seconds? left to move\.", hurried.text or "")
    assert left is not None and 1 <= int(left.group(1)) <= 20, hurried.text
