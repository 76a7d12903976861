"""Confirm buttons drawn before any choice: a player plays a set, or a card that asks, from
the hand as it was drawn at their turn (the taps' answers say the choice), so the hand's edit
that would show the choice can wait on a busy evening and merge into the play's."""

from __future__ import annotations

import dataclasses
import time

import pytest
from service_fakes import (
    PEOPLE,
    FakeMessenger,
    play_until,
    press,
    reload,
    seat_four,
    settle,
)

from bot.callback import Op, encode_card, parse
from bot.service import moves
from bot.service.core import Core
from bot.storage import OutboxKind, Priority, TableRecord
from kozel_rules.action import Verb
from kozel_rules.card import Card
from kozel_rules.view import SeatView


def pair_lead(view: SeatView) -> tuple[Card, Card] | None:
    """Two cards the seat may lead together, if its turn is a lead with such a pair."""
    pairs = [a.cards for a in view.legal if a.verb is Verb.LEAD and len(a.cards) == 2]
    return (pairs[0][0], pairs[0][1]) if pairs else None


def hand_buttons(core: Core, messenger: FakeMessenger, table: TableRecord, seat: int) -> list:
    message_id = table.seats[seat].hand_message_id
    assert message_id is not None
    return [b for row in messenger.messages[message_id].screen.buttons for b in row]


async def test_a_lead_with_a_pair_shows_the_lead_button_and_plays_the_chosen_cards(
    core: Core, messenger: FakeMessenger
) -> None:
    table, seat = await play_until(core, await seat_four(core), lambda v: pair_lead(v) is not None)
    match = core.matches.of(table)
    ply = match.ply
    first, second = pair_lead(match.view(seat)) or ()
    buttons = hand_buttons(core, messenger, table, seat)
    confirm = [b for b in buttons if b.data and parse(b.data).op is Op.CONFIRM]
    assert [b.text for b in confirm][:1] == ["▶️ Lead the chosen cards"]
    data = parse(confirm[0].data)
    assert (data.arg, data.version) == ("lead", ply)

    # Pressed before any choice: a hint, no alert, nothing changes.
    early = await moves.confirm(
        core, press(table, Op.CONFIRM, PEOPLE[seat], version=ply, arg="lead")
    )
    assert early.text == "First tap the cards to play, then this button." and not early.alert
    assert core.matches.of(await reload(core, table)).ply == ply

    answers = []
    for card in (first, second):
        tap = press(table, Op.TOGGLE, PEOPLE[seat], version=ply, arg=encode_card(card))
        answers.append((await moves.toggle(core, tap)).text)
    tail = "; a tap on a card adds it or takes it back."
    assert answers[0] == f"Selected: {first} — the button below plays it{tail}"
    both = " ".join(str(c) for c in sorted((first, second)))
    assert answers[1] == f"Selected: {both} — the button below plays them{tail}"

    # The hand still shows no choice (not drawn again); the button plays what was chosen.
    played = await moves.confirm(
        core, press(table, Op.CONFIRM, PEOPLE[seat], version=ply, arg="lead")
    )
    assert played.text == f"Played: {both}"
    after = core.matches.of(await reload(core, table))
    assert after.history[-1] == f"{seat} lead {both}"


async def test_a_confirm_that_the_choice_does_not_allow_names_the_rule_and_changes_nothing(
    core: Core,
) -> None:
    table, seat = await play_until(core, await seat_four(core), lambda v: pair_lead(v) is not None)
    match = core.matches.of(table)
    ply = match.ply
    card = (pair_lead(match.view(seat)) or ())[0]
    tap = press(table, Op.TOGGLE, PEOPLE[seat], version=ply, arg=encode_card(card))
    await moves.toggle(core, tap)
    wrong = await moves.confirm(
        core, press(table, Op.CONFIRM, PEOPLE[seat], version=ply, arg="beat")
    )
    assert wrong.alert and not wrong.text.startswith("Played")
    for forged in ("molodka", "nonsense", ""):
        answer = await moves.confirm(
            core, press(table, Op.CONFIRM, PEOPLE[seat], version=ply, arg=forged)
        )
        assert answer.text == "This button is not valid.", forged
    stranger = await moves.confirm(
        core, press(table, Op.CONFIRM, PEOPLE[(seat + 1) % 4], version=ply, arg="lead")
    )
    assert not stranger.text.startswith("Played")
    assert core.matches.of(await reload(core, table)).ply == ply


async def test_on_a_busy_evening_a_choice_waits_and_the_play_takes_its_place(
    core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, seat = await play_until(core, await seat_four(core), lambda v: pair_lead(v) is not None)
    monkeypatch.setattr(core.budget, "busy", lambda: True)
    core.settings = dataclasses.replace(core.settings, hand_interval=4.0)
    match = core.matches.of(table)
    ply = match.ply
    card = (pair_lead(match.view(seat)) or ())[0]
    tap = press(table, Op.TOGGLE, PEOPLE[seat], version=ply, arg=encode_card(card))
    assert (await moves.toggle(core, tap)).text.startswith(f"Selected: {card}")

    def mine(rows: list) -> list:
        return [o for o in rows if o.kind is OutboxKind.HAND and o.seat == seat]

    # The choice's edit waits a hand interval (the answer said the choice).
    assert mine(await core.storage.outbox.due(time.time() + 1)) == []
    (echo,) = mine(await core.storage.outbox.due(time.time() + 60))
    assert echo.priority is Priority.ECHO
    assert echo.not_before - time.time() == pytest.approx(4.0, abs=1.0)

    # The play takes the echo's place: one edit, when the play's own change says (its hand
    # waits for the next change of its cards, or its next turn).
    cb = press(table, Op.CONFIRM, PEOPLE[seat], version=ply, arg="lead")
    assert (await moves.confirm(core, cb)).text == f"Played: {card}"
    assert mine(await core.storage.outbox.due(time.time() + 6)) == []
    (row,) = mine(await core.storage.outbox.due(time.time() + 60))
    assert row.priority is Priority.WAITING
    assert row.not_before - time.time() == pytest.approx(12.0, abs=1.0)


async def test_on_a_quiet_evening_a_choice_is_shown_at_once_with_its_own_buttons(
    core: Core, messenger: FakeMessenger
) -> None:
    table, seat = await play_until(core, await seat_four(core), lambda v: pair_lead(v) is not None)
    match = core.matches.of(table)
    first = (pair_lead(match.view(seat)) or ())[0]
    tap = press(table, Op.TOGGLE, PEOPLE[seat], version=match.ply, arg=encode_card(first))
    await moves.toggle(core, tap)
    await settle(core)
    texts = [b.text for b in hand_buttons(core, messenger, await reload(core, table), seat)]
    assert f"✅{first}" in " ".join(texts).replace("★", "")
    assert f"▶️ Lead {first}" in texts and "↺ Clear selection" in texts
    assert not any("chosen cards" in t for t in texts)
