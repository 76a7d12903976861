"""The computer levels a table offers: only those the arena tells apart (issue 36), each
described in /help; an "add expert" button of an older lobby message changes nothing, and a
table stored with an expert computer still plays."""

from __future__ import annotations

import pytest
from service_fakes import GROUP, PEOPLE, FakeMessenger, fire_next, press, reload, settle

from bot.callback import Callback, Op, parse
from bot.i18n import LANGUAGES, get_translator
from bot.render.chat import help_screen
from bot.render.labels import SeatInfo, level_name
from bot.render.lobby import lobby_screen
from bot.screen import Button, Screen
from bot.service import lobby
from bot.service.core import Core
from bot.service.feed import lobby_key, seating_key
from bot.storage import SeatRecord
from kozel_rules.ai import LEVELS, OFFERED_LEVELS
from kozel_rules.variant import get_variant


def _add_buttons(lang: str) -> list[tuple[str, str]]:
    """(label, level) of the lobby's "add a computer" buttons."""
    screen = lobby_screen(
        get_translator(lang),
        table_id=7,
        version=3,
        variant=get_variant("street"),
        seats=[SeatInfo("Anna")],
        creator="Anna",
        join_url="https://t.me/kozel_bot?start=j7",
    )
    out = []
    for row in screen.buttons:
        for b in row:
            cb = parse(b.data) if b.data else None
            if cb is not None and cb.op is Op.ADD_COMPUTER:
                out.append((b.text, cb.arg))
    return out


def test_the_lobby_offers_weak_medium_and_strong_only() -> None:
    assert _add_buttons("en") == [
        ("➕🤖 weak", "random"),
        ("➕🤖 medium", "basic"),
        ("➕🤖 strong", "strong"),
    ]
    assert [label for label, _ in _add_buttons("ru")] == [
        "➕🤖 слабый",
        "➕🤖 средний",
        "➕🤖 сильный",
    ]
    # weakest first, a subset of the engine's levels; the expert stays a level
    assert list(OFFERED_LEVELS) == [x for x in LEVELS if x in OFFERED_LEVELS]
    assert "expert" in LEVELS and "expert" not in OFFERED_LEVELS


@pytest.mark.parametrize("lang", LANGUAGES)
def test_help_says_what_each_offered_level_is_like(lang: str) -> None:
    t = get_translator(lang)
    lines = help_screen(t, private=True).text.splitlines()
    for level in OFFERED_LEVELS:
        (line,) = [x for x in lines if x.startswith(f"🤖 <b>{level_name(t, level)}</b> — ")]
        assert len(line) > 40
    # the stand-in (and coach) is named, beside the level it plays like
    assert any(level_name(t, "expert") in x and level_name(t, "strong") in x for x in lines)


async def test_an_old_add_expert_button_changes_nothing(
    core: Core, messenger: FakeMessenger
) -> None:
    """A lobby message drawn by the release before offered "expert": its button, pressed
    now, is answered, adds nobody, and the message is redrawn with today's buttons."""
    await lobby.new_game(core, GROUP, PEOPLE[0], "street")
    await settle(core)
    table = await core.storage.tables.active_for_chat(GROUP.chat_id)
    assert table is not None
    # The message as the release before drew it, in a process that has not shown it yet.
    (message,) = messenger.in_chat(GROUP.chat_id)
    old_button = Button(
        "➕🤖 expert", Callback(table.id, lobby_key(table), Op.ADD_COMPUTER, "expert").encode()
    )
    message.screen = Screen(message.screen.text, (*message.screen.buttons, (old_button,)))
    core.shown.forget_chat(GROUP.chat_id)
    for arg in ("expert", "grandmaster"):
        add = press(table, Op.ADD_COMPUTER, PEOPLE[0], version=lobby_key(table), arg=arg)
        answer = await lobby.add_computer(core, add)
        assert answer.text == (
            "That level is no longer offered: choose one of the buttons now shown."
        )
        fresh = await reload(core, table)
        assert fresh.seats == table.seats and fresh.version == table.version
    await settle(core)
    assert message.edits == 1
    levels = [
        parse(b.data).arg
        for row in message.screen.buttons
        for b in row
        if b.data and parse(b.data).op is Op.ADD_COMPUTER
    ]
    assert levels == list(OFFERED_LEVELS)
    # today's strong button still adds a computer
    add = press(table, Op.ADD_COMPUTER, PEOPLE[0], version=lobby_key(table), arg="strong")
    assert (await lobby.add_computer(core, add)).text == "A computer player took a seat."
    assert [s.ai_level for s in (await reload(core, table)).seats][-1] == "strong"


async def test_a_table_stored_with_an_expert_still_plays(core: Core) -> None:
    """Seats stored as "expert" (an older release offered it) load, start and move."""
    await lobby.start_private(core, PEOPLE[0], "")
    await lobby.new_game(core, GROUP, PEOPLE[0], "street")
    table = await core.storage.tables.active_for_chat(GROUP.chat_id)
    assert table is not None
    table.seats[0].away = True  # a computer moves for the person too
    for n, name in enumerate(("Ivan", "Olga", "Taras"), 1):
        table.seats.append(SeatRecord(seat=n, user_id=None, name=name, ai_level="expert"))
    await core.storage.tables.save(table, expected_version=table.version)
    table = await reload(core, table)
    assert [s.ai_level for s in table.seats] == [None, "expert", "expert", "expert"]
    start = press(table, Op.START, PEOPLE[0], version=lobby_key(table), arg=seating_key(table))
    assert (await lobby.start(core, start)).text == "The match begins!"
    table = await reload(core, table)
    experts = {s.seat for s in table.seats if s.ai_level == "expert"}
    for _ in range(12):
        assert await fire_next(core)
    match = core.matches.of(await reload(core, table))
    assert len(match.history) >= 8 and {int(a.split()[0]) for a in match.history} >= experts
