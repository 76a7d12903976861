"""The coach in process: "How did I play?" after a deal, answered in the player's private
chat from the stored record; stale, forged, foreign and repeated presses change nothing."""

from __future__ import annotations

import os
import re
import time
from concurrent.futures.process import BrokenProcessPool

import pytest
from service_fakes import (
    PEOPLE,
    FakeMessenger,
    fire_next,
    make_core,
    no,
    press,
    reload,
    seat_four,
    settle,
)

from bot.callback import Callback, Op
from bot.service import analyses as analyses_module
from bot.service import coach, deadlines
from bot.service.analyses import Analyses
from bot.service.core import Core
from bot.service.ports import ChatInfo, Person
from bot.service.reply import Press
from bot.storage import LogKind, SqliteStorage, TableRecord
from kozel_rules.action import Action

GERMAN_ACK = "Der Trainer"
GERMAN_HEAD = "🎓 <b>Wie du in Spiel 1 gespielt hast</b>"


@pytest.fixture
def core(storage: SqliteStorage, messenger: FakeMessenger) -> Core:
    core = make_core(storage, messenger, ai_level="basic")
    core.analyses = Analyses(lambda: None)  # threads here; the bot runs a worker process
    return core


async def first_deal_played(core: Core) -> TableRecord:
    """Four people sit down; a computer plays for each of them until deal 1 is over."""
    table = await seat_four(core)
    for record in table.seats:
        record.away = True
    timers = deadlines.timer_rows(core, table, core.matches.of(table))
    await core.storage.tables.save(table, expected_version=table.version, timers=timers)
    table = await reload(core, table)
    for _ in range(400):
        if core.matches.of(table).deal_results:
            break
        assert await fire_next(core)
        table = await reload(core, table)
    assert core.matches.of(table).deal_results
    await settle(core)
    return table


def private_texts(messenger: FakeMessenger, person: Person) -> list[str]:
    return messenger.texts(person.user_id)


async def test_the_coach_answers_in_private_and_names_the_players_own_plays(
    core: Core, messenger: FakeMessenger
) -> None:
    table = await first_deal_played(core)
    ann = PEOPLE[0]
    before = private_texts(messenger, ann)
    answer = await coach.press(core, press(table, Op.COACH, ann, version=1))
    assert not answer.alert and "deal 1" in answer.text
    await core.analyses.idle()
    await settle(core)
    new = [t for t in private_texts(messenger, ann) if t not in before]
    assert len(new) == 1 and new[0].startswith("🎓 <b>How you played in deal 1</b>")
    match = core.matches.of(await reload(core, table))
    seat = next(s.seat for s in table.seats if s.user_id == ann.user_id)
    mine = [
        Action.parse(a) for a in match.history[: _deal_end(match)] if Action.parse(a).seat == seat
    ]
    assert any(" ".join(str(c) for c in a.cards) in new[0] for a in mine)
    # the others hear nothing of it
    for other in PEOPLE[1:]:
        assert not any("How you played" in t for t in private_texts(messenger, other))


def _deal_end(match: object, deal: int = 1) -> int:
    """The number of actions up to the end of deal ``deal``."""
    from kozel_rules.match import Match

    assert isinstance(match, Match)
    replay = Match.from_json({**match.to_json(), "actions": []})
    for i, text in enumerate(match.history):
        replay.apply(text)
        if len(replay.deal_results) >= deal:
            return i + 1
    raise AssertionError(f"deal {deal} never ended")


async def test_repeated_stale_forged_and_foreign_presses_are_refused(
    core: Core, messenger: FakeMessenger
) -> None:
    table = await first_deal_played(core)
    ann, bob = PEOPLE[0], PEOPLE[1]
    first = await coach.press(core, press(table, Op.COACH, ann, version=1))
    assert not first.alert
    await core.storage.users.set_language(bob.user_id, "de")  # Bob reads German
    german = await coach.press(core, press(table, Op.COACH, bob, version=1))
    assert not german.alert and GERMAN_ACK in german.text
    again = await coach.press(core, press(table, Op.COACH, ann, version=1))
    assert again.alert and again.text == "The coach is already looking at deal 1."
    await core.analyses.idle()
    await settle(core)
    count = len(messenger.messages)
    version = (await reload(core, table)).version
    refusals = [
        (press(table, Op.COACH, ann, version=1), "You already asked about deal 1"),
        (press(table, Op.COACH, ann, version=7), "That deal is not over yet."),
        (press(table, Op.COACH, ann, version=0), "You did not play in that deal."),
        (
            press(table, Op.COACH, Person(999, "Eve", None, "en"), version=1),
            "You did not play in that deal.",
        ),
    ]
    for p, text in refusals:
        answer = await coach.press(core, p)
        assert answer.alert and answer.text.startswith(text), answer.text
    chat = ChatInfo(ann.user_id, ann.first_name, True)
    gone = Press(Callback(table.id + 1000, 1, Op.COACH), ann, chat, no)
    answer = await coach.press(core, gone)
    assert answer.alert and answer.text == "The record of that match is no longer kept."
    await core.analyses.idle()
    await settle(core)
    assert len(messenger.messages) == count  # nothing was sent
    assert (await reload(core, table)).version == version  # nothing was saved
    logged = await core.storage.tables.log(table.id, LogKind.COACH)
    assert sorted((e.data or {}).get("user") for e in logged) == [ann.user_id, bob.user_id]
    answers = [t for t in private_texts(messenger, bob) if t.startswith("🎓")]
    assert len(answers) == 1 and answers[0].startswith(GERMAN_HEAD), answers


async def test_a_review_of_deal_2_numbers_its_tricks_within_deal_2(
    core: Core, messenger: FakeMessenger
) -> None:
    """Issue 36: a deal 2 review said "Trick -8". Every trick number Ann reads, in the
    mistakes and in her plays, lies within deal 2, and her plays are her own of deal 2."""
    table = await first_deal_played(core)
    for _ in range(400):
        if len(core.matches.of(table).deal_results) >= 2:
            break
        assert await fire_next(core)
        table = await reload(core, table)
    match = core.matches.of(table)
    assert len(match.deal_results) >= 2
    await settle(core)
    ann = PEOPLE[0]
    await core.storage.users.set_language(ann.user_id, "ru")
    before = private_texts(messenger, ann)
    answer = await coach.press(core, press(table, Op.COACH, ann, version=2))
    assert not answer.alert and "2" in answer.text
    await core.analyses.idle()
    await settle(core)
    (text,) = [t for t in private_texts(messenger, ann) if t not in before]
    assert text.startswith("🎓 <b>Как вы сыграли в раздаче 2</b>"), text
    tricks = len(match.deal_results[1].trick_seats)
    named = [int(m) for m in re.findall(r"Взятка (-?\d+):", text)]
    lines = [line for line in text.splitlines() if line[:1].isdigit()]
    listed = [int(line.split(".")[0]) for line in lines]
    assert listed and all(1 <= n <= tricks for n in named + listed), text
    assert set(named) <= set(listed)
    seat = next(s.seat for s in table.seats if s.user_id == ann.user_id)
    start, end = _deal_end(match), _deal_end(match, deal=2)
    mine = [Action.parse(a) for a in match.history[start:end] if Action.parse(a).seat == seat]
    assert sum(len(line.split(" · ")) for line in lines) == len(mine)  # a trick may hold two


async def test_the_coachs_process_dies_or_hangs_and_later_reviews_still_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The review process is killed (out of memory, say): the review is tried once more in a
    new process, and later ones run there. A review given up (``TIMEOUT``) ends with its
    process: the next one does not wait behind it."""
    analyses = Analyses()  # the bot's own: one worker process
    try:
        first = await analyses.compute(os.getpid)
        with pytest.raises(BrokenProcessPool):
            await analyses.compute(os._exit, 1)  # dies in each process it is tried in
        assert await analyses.compute(pow, 2, 10) == 1024  # a new process takes the next
        second = await analyses.compute(os.getpid)
        assert second != first

        monkeypatch.setattr(analyses_module, "TIMEOUT", 1.0)
        with pytest.raises(TimeoutError):
            await analyses.compute(time.sleep, 60)
        began = time.monotonic()
        assert await analyses.compute(os.getpid) not in (first, second)
        assert time.monotonic() - began < 20  # not behind the 60 s it was given up on
    finally:
        await analyses.close()
