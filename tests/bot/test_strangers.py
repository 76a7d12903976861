"""Untrusted input around tables, in process: deep links, forged ids, rights asked only when
needed and never under a table's lock, removed seats, and texts within Telegram's limits."""

from __future__ import annotations

import dataclasses

from ladder_fixtures import teams
from service_fakes import (
    GROUP,
    PEOPLE,
    FakeMessenger,
    no,
    press,
    reload,
    seat_four,
    settle,
)

from bot.callback import Callback, Op
from bot.i18n import get_translator
from bot.render.ladder import private_history_screen
from bot.screen import (
    MAX_TEXT,
    Screen,
    fit_html,
    fit_plain,
    plain,
    shown_length,
    text_length,
)
from bot.service import admin, chat_settings, feed, lobby, moves
from bot.service.core import Core
from bot.service.feed import lobby_key
from bot.service.ports import Person, Shared
from bot.service.reply import Press
from bot.storage import LadderMatch, MatchRecord, Priority, TableStatus


class Asked:
    """A rights or membership check that counts the calls (each costs Telegram a call)."""

    def __init__(self, answer: bool) -> None:
        self.answer, self.calls = answer, 0

    async def __call__(self, *_: object) -> bool:
        self.calls += 1
        return self.answer


async def test_settings_parse_the_argument_before_asking_for_rights(core: Core) -> None:
    asked = Asked(True)
    for arg in ("t7", "x30", "t", "t٣٠", "t30000000000000000000"):
        cb = Callback(0, 0, Op.SETTINGS, arg)
        answer = await chat_settings.settings_press(core, Press(cb, PEOPLE[0], GROUP, asked))
        assert answer.text == "This button is not valid."
    assert asked.calls == 0
    answer = await chat_settings.settings_press(
        core, Press(Callback(0, 0, Op.SETTINGS, "t30"), PEOPLE[0], GROUP, asked)
    )
    assert answer.text == "Saved." and asked.calls == 1


async def test_deep_links_to_missing_tables_leave_nothing_and_strangers_learn_nothing(
    core: Core,
) -> None:
    await lobby.new_game(core, GROUP, PEOPLE[0], "street")
    table = await core.storage.tables.active_for_chat(GROUP.chat_id)
    stranger = PEOPLE[3]
    outsider = Asked(False)
    missing = await lobby.start_private(core, stranger, "j424242", outsider)
    assert outsider.calls == 0  # no table: nobody asked
    refused = await lobby.start_private(core, stranger, f"j{table.id}", outsider)
    assert refused.text == missing.text == "That table is no longer open."
    assert (await reload(core, table)).seats == table.seats
    for payload in ("j²", "j" + "9" * 25, "j0", "j007", "j1\n", "j-1"):
        answer = await lobby.start_private(core, stranger, payload, outsider)
        assert answer.text.startswith("This link is not valid"), payload
    for i in range(1, 500):
        await lobby.start_private(core, stranger, f"j{10_000 + i}", outsider)
        forged = Press(Callback(20_000 + i, 0, Op.JOIN), stranger, GROUP, no)
        await lobby.join(core, forged)
        hand = Press(Callback(30_000 + i, 0, Op.TOGGLE, "a"), stranger, GROUP, no)
        await moves.toggle(core, hand)
    assert core.in_memory()["locks"] == 0

    async def member(chat_id: int) -> bool:
        # Asking Telegram takes a while: the table's lock must be free meanwhile.
        assert not core.table_locks.is_held(table.id)
        return chat_id == GROUP.chat_id

    answer = await lobby.start_private(core, stranger, f"j{table.id}", member)
    assert answer.screen is not None and answer.screen.text.startswith("You have a seat")


async def test_old_lobby_presses_are_refused_where_the_seats_matter(core: Core) -> None:
    for person in PEOPLE[:2]:
        await lobby.start_private(core, person, "")
    await lobby.new_game(core, GROUP, PEOPLE[0], "street")
    table = await core.storage.tables.active_for_chat(GROUP.chat_id)
    old = lobby_key(table)
    add = press(table, Op.ADD_COMPUTER, PEOPLE[0], version=old, arg="strong")
    assert (await lobby.add_computer(core, add)).text == "A computer player took a seat."
    assert (await lobby.add_computer(core, add)).text.startswith("The table has changed")
    for op, arg in ((Op.VARIANT, "moscow"), (Op.REMOVE_COMPUTER, "")):
        stale = press(table, op, PEOPLE[0], version=old, arg=arg)
        answer = await (lobby.choose_variant if op is Op.VARIANT else lobby.remove_computer)(
            core, stale
        )
        assert answer.text.startswith("The table has changed"), op
    fresh = await reload(core, table)
    assert len(fresh.seats) == 2 and fresh.variant == "street"
    # Joining does not depend on the seats: an old Join seats (once).
    join = press(table, Op.JOIN, PEOPLE[1], version=old)
    assert (await lobby.join(core, join)).text == "You joined the table."
    assert (await lobby.join(core, join)).text == "You already have a seat at this table."


async def test_cancel_asks_for_rights_outside_the_tables_lock(core: Core) -> None:
    await lobby.new_game(core, GROUP, PEOPLE[0], "street")
    table = await core.storage.tables.active_for_chat(GROUP.chat_id)

    async def admin_check() -> bool:
        assert not core.table_locks.is_held(table.id)
        return True

    cancel = Press(Callback(table.id, 0, Op.CANCEL), PEOPLE[2], GROUP, admin_check)
    assert (await lobby.cancel(core, cancel)).text == "The table is cancelled."
    assert (await reload(core, table)).status == TableStatus.CANCELLED


async def test_a_removed_player_seat_reads_right_and_their_messages_close(
    core: Core,
    messenger: FakeMessenger,
) -> None:
    table = await seat_four(core)
    boris = PEOPLE[1]
    hand = (await reload(core, table)).seats[1].hand_message_id
    assert hand is not None
    cb = Callback(table.id, 0, Op.KICK, str(boris.user_id))
    asked = Asked(False)
    answer = await admin.kick_press(core, Press(cb, PEOPLE[0], GROUP, asked))
    assert answer.text == "Bob was removed from the table." and asked.calls == 0
    assert answer.screen is not None and "Bob" not in str(answer.screen.buttons)
    await settle(core)
    assert hand in messenger.deleted
    assert "You were removed from the table." in messenger.texts(boris.user_id)
    fresh = await reload(core, table)
    assert fresh.seats[1].replaced and fresh.seats[1].user_id is None
    group = "\n".join(messenger.texts(GROUP.chat_id))
    assert "Bob (left; a computer plays)" in group
    # Not the creator: rights are asked, then refused; the same press again: no seat.
    cb = Callback(table.id, 0, Op.KICK, str(PEOPLE[2].user_id))
    answer = await admin.kick_press(core, Press(cb, PEOPLE[3], GROUP, asked))
    assert answer.alert and asked.calls == 1
    cb = Callback(table.id, 0, Op.KICK, str(boris.user_id))
    answer = await admin.kick_press(core, Press(cb, PEOPLE[0], GROUP, asked))
    assert answer.text == "That player has no seat any more." and asked.calls == 1


async def test_shared_identities_open_no_table(core: Core) -> None:
    for shared, words in ((Shared.CHANNEL, "as a channel"), (Shared.ANONYMOUS, "anonymously")):
        person = Person(136817688, "Channel", "Channel_Bot", None, shared)
        answer = await lobby.new_game(core, GROUP, person, "street")
        assert words in answer.text
    assert await core.storage.tables.active_for_chat(GROUP.chat_id) is None


def test_texts_fit_telegrams_limits() -> None:
    assert plain("Tom &amp; Jerry <b>&lt;3</b>") == "Tom & Jerry <3"
    long = fit_plain("x" * 300)
    assert text_length(long) == 200 and long.endswith("…")
    assert text_length(fit_plain("🐐" * 150)) <= 200  # emoji count two
    html = "<b>Head</b>\n" + "\n".join(f"<i>line {i} &amp; more</i>" for i in range(900))
    fitted = fit_html(html)
    assert shown_length(fitted) <= MAX_TEXT < text_length(fitted) and fitted.endswith("…")
    open_bold = fit_html("<b>" + "word\n" * 2000 + "</b>")
    assert open_bold.endswith("…</b>")
    assert fit_html("short <b>text</b>") == "short <b>text</b>"


def test_a_private_history_with_long_titles_and_names_fits_in_one_message() -> None:
    t = get_translator(None)
    matches = []
    for i in range(10):
        record: MatchRecord = teams(i + 1, -100 - i, [1, 2], [3, 4])
        players = [dataclasses.replace(p, name="N&" * 32) for p in record.players_list]
        record = dataclasses.replace(record, players_list=players)
        matches.append(LadderMatch(id=i + 1, season=1, record=record, changes={}))
    titles = {-100 - i: "T&" * 64 for i in range(10)}
    screen = private_history_screen(t, matches, titles)
    assert shown_length(screen.text) <= MAX_TEXT
    assert "more match" in screen.text
    assert screen.text.count("T&amp;") > 0


async def test_a_hand_sent_while_its_player_is_removed_is_deleted(
    core: Core, messenger: FakeMessenger
) -> None:
    table = await seat_four(core)
    boris = PEOPLE[1]
    table.seats[1].hand_message_id = None  # his hand comes anew (it was lost, say)
    owe = [feed.hand(core, table, 1, Priority.PRESSER)]
    await core.storage.tables.save(table, expected_version=table.version, owe=owe)
    send = messenger.send
    sent: list[int] = []

    async def send_then_kick(
        chat_id: int, screen: Screen, *, notify: bool = True, thread_id: int | None = None
    ) -> int:
        message_id = await send(chat_id, screen, notify=notify, thread_id=thread_id)
        if chat_id == boris.user_id and not sent:
            sent.append(message_id)  # the creator removes him while his hand is on its way
            cb = Callback(table.id, 0, Op.KICK, str(boris.user_id))
            await admin.kick_press(core, Press(cb, PEOPLE[0], GROUP, no))
        return message_id

    messenger.send = send_then_kick  # type: ignore[method-assign]
    await settle(core)
    assert sent and sent[0] in messenger.deleted
    assert (await reload(core, table)).seats[1].hand_message_id is None
