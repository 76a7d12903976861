"""House rules (options) in process: /newgame's words, the lobby's buttons, the group's
defaults in /settings, what the table, /rules and /score say, and a refused word or press."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

import pytest
from service_fakes import GROUP, PEOPLE, FakeMessenger, press, reload, settle

from bot.callback import Callback, Op
from bot.release import RELEASE
from bot.service import chat_settings, feed, house_rules, info, lobby, lobby_options
from bot.service.core import Core
from bot.service.reply import Press
from bot.storage import TableRecord, TableStatus
from kozel_rules.options import Options
from kozel_rules.variant import get_variant

ANN, BOB = PEOPLE[0], PEOPLE[1]


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


async def open_table(core: Core, words: str) -> TableRecord:
    name, *rest = words.split()
    answer = await lobby.new_game(core, GROUP, ANN, name, rest)
    assert answer.text == "", answer.text
    table = await core.storage.tables.active_for_chat(GROUP.chat_id)
    assert table is not None
    return table


def lobby_text(messenger: FakeMessenger, table: TableRecord) -> str:
    assert table.lobby_message_id is not None
    return plain(messenger.messages[table.lobby_message_id].screen.text)


def option_press(table: TableRecord, person: object, arg: str, version: int | None = None) -> Press:
    assert isinstance(person, type(ANN))
    key = feed.lobby_key(table) if version is None else version
    return Press(Callback(table.id, key, Op.OPTION, arg), person, GROUP, _no)


async def _no() -> bool:
    return False


async def _yes() -> bool:
    return True


def admin(answer: bool) -> Callable[[], Awaitable[bool]]:
    return _yes if answer else _no


# ------------------------------------------------------------------ /newgame's words


def test_parse_takes_the_words_in_any_order_and_refuses_the_rest() -> None:
    street, ziege = get_variant("street"), get_variant("ziege")
    assert house_rules.parse(["eggs=double", "goat=6"], street) == Options(6, "double")
    assert house_rules.parse(["scoring=tiers"], ziege) == Options(ziege_scoring="tiers")
    for bad in ("goat=7", "goat=", "goat", "colour=red", "scoring=tiers", "eggs=Double2"):
        with pytest.raises(house_rules.BadOption):
            house_rules.parse([bad], street)
    with pytest.raises(house_rules.BadOption):  # the same option twice
        house_rules.parse(["goat=6", "goat=8"], street)


async def test_newgame_with_options_opens_a_lobby_that_shows_them(
    core: Core, messenger: FakeMessenger
) -> None:
    table = await open_table(core, "moscow goat=6 eggs=double")
    assert table.options == {"goat_at": 6, "eggs": "double"}
    await settle(core)
    text = lobby_text(messenger, await reload(core, table))
    assert "⚙️ House rules: match to 6 · eggs double the next deal" in text
    assert "group's defaults" not in text


async def test_a_bad_option_opens_nothing_and_says_what_is_allowed(core: Core) -> None:
    answer = await lobby.new_game(core, GROUP, ANN, "street", ["goat=7"])
    assert answer.text == (
        "I don't know the house rule “goat=7”. Street Kozel takes: "
        "goat=6|8|10|12, eggs=plain|double."
    )
    assert await core.storage.tables.active_for_chat(GROUP.chat_id) is None
    ziege = await lobby.new_game(core, GROUP, ANN, "ziege", ["scoring=many"])
    assert "scoring=flat|tiers" in ziege.text
    assert await core.storage.tables.active_for_chat(GROUP.chat_id) is None


async def test_options_wait_while_old_workers_may_play(core: Core) -> None:
    """A worker of a release that would play the defaults (v0.30) is alive: house rules wait;
    once it is gone they open, beside a worker of any release that plays them."""
    await core.storage.releases.announce("old-worker", house_rules.READ_SINCE - 1, "v0.30", 60)
    assert not await house_rules.options_allowed_now(core)
    refused = await lobby.new_game(core, GROUP, ANN, "street", ["goat=6"])
    assert "cannot be used for a few minutes" in refused.text
    assert await core.storage.tables.active_for_chat(GROUP.chat_id) is None
    table = await open_table(core, "street")  # without house rules a table opens
    answer = await lobby_options.choose_option(core, option_press(table, ANN, "g6"))
    assert "cannot be used for a few minutes" in answer.text
    assert (await reload(core, table)).options == {}
    await core.storage.releases.retire("old-worker")
    await core.storage.releases.announce("new-worker", RELEASE, "v0.new", 60)
    await core.storage.releases.announce("reader", house_rules.READ_SINCE, "v0.31", 60)
    answer = await lobby_options.choose_option(core, option_press(table, ANN, "g6"))
    assert (await reload(core, table)).options == {"goat_at": 6}


# ------------------------------------------------------------------ the lobby's buttons


async def test_the_opener_changes_options_in_the_lobby_others_cannot(
    core: Core, messenger: FakeMessenger
) -> None:
    table = await open_table(core, "street eggs=double")
    await lobby.join(core, press(table, Op.JOIN, BOB, version=table.version))
    table = await reload(core, table)
    await settle(core)

    refused = await lobby_options.choose_option(core, option_press(table, BOB, "ep"))
    assert refused.text == "Only the player who opened the table can change the house rules."
    assert (await reload(core, table)).options == {"eggs": "double"}

    stale = await lobby_options.choose_option(core, option_press(table, ANN, "g8", version=1))
    assert "changed" in stale.text
    forged = await lobby_options.choose_option(core, option_press(table, ANN, "g7"))
    assert forged.text == "This button is not valid."
    tiers = await lobby_options.choose_option(core, option_press(table, ANN, "st"))
    assert tiers.text == "This button is not valid."  # ziege's only
    assert (await reload(core, table)).options == {"eggs": "double"}

    done = await lobby_options.choose_option(core, option_press(table, ANN, "ep"))
    assert done.text == "House rules: none (match to 12)"
    table = await reload(core, table)
    done = await lobby_options.choose_option(core, option_press(table, ANN, "g8"))
    assert done.text == "House rules: match to 8"
    table = await reload(core, table)
    assert table.options == {"goat_at": 8}
    await settle(core)
    text = lobby_text(messenger, table)
    assert "⚙️ House rules: match to 8" in text
    screen = messenger.messages[table.lobby_message_id or 0].screen
    buttons = [b.text for row in screen.buttons for b in row]
    assert "✓ 🐐 8" in buttons and "🐐 12" in buttons


async def test_start_plays_the_options_and_the_table_shows_them(
    core: Core, messenger: FakeMessenger
) -> None:
    await lobby.start_private(core, ANN, "")
    table = await open_table(core, "moscow goat=6")
    add = press(table, Op.ADD_COMPUTER, ANN, version=feed.lobby_key(table), arg="basic")
    await lobby.add_computer(core, add)
    table = await reload(core, table)
    start = press(table, Op.START, ANN, version=table.version, arg=feed.seating_key(table))
    assert (await lobby.start(core, start)).text == "The match begins!"
    await settle(core)
    table = await reload(core, table)
    assert core.matches.of(table).options == Options(goat_at=6)
    assert table.table_message_id is not None
    group = plain(messenger.messages[table.table_message_id].screen.text)
    assert "⚙️ match to 6" in group and "/6" in group and "/12" not in group
    hand = table.seats[0].hand_message_id
    assert hand is not None
    mine = plain(messenger.messages[hand].screen.text)
    assert "⚙️ match to 6" in mine and "/6" in mine and "/12" not in mine

    rules = await info.rules(core, GROUP, ANN, None)
    assert rules.screen is not None
    assert "This table plays: match to 6" in plain(rules.screen.text)
    assert "goat=6|8|10|12" in plain(rules.screen.text)
    score = await info.score(core, GROUP, ANN)
    assert score.screen is not None and "/6" in score.screen.text
    assert "⚙️ match to 6" in score.screen.text


async def test_a_changed_variant_drops_an_option_it_does_not_have(core: Core) -> None:
    table = await open_table(core, "ziege scoring=tiers goat=10")
    choose = press(table, Op.VARIANT, ANN, version=feed.lobby_key(table), arg="street")
    await lobby.choose_variant(core, choose)
    table = await reload(core, table)
    assert (table.variant, table.options) == ("street", {"goat_at": 10})


# ------------------------------------------------------------------ the group's defaults


def settings_press(arg: str, is_admin: bool) -> Press:
    return Press(Callback(0, 0, Op.SETTINGS, arg), ANN, GROUP, admin(is_admin))


async def test_admins_set_a_groups_defaults_and_newgame_uses_them(
    core: Core, messenger: FakeMessenger
) -> None:
    shown = await chat_settings.settings(core, GROUP, ANN)
    assert shown.screen is not None
    assert "Default house rules for Street Kozel in this group (a plain /newgame): none" in plain(
        shown.screen.text
    )

    refused = await chat_settings.settings_press(core, settings_press("ostreet_g8", False))
    assert refused.text == "Only chat admins can change settings."
    for forged in ("ostreet_g7", "onowhere_g8", "ostreet_st", "ostreet", "vnowhere"):
        answer = await chat_settings.settings_press(core, settings_press(forged, True))
        assert answer.text == "This button is not valid.", forged
    chat = await core.storage.chats.get(GROUP.chat_id)
    assert chat is not None and house_rules.chat_defaults(chat, "street").is_default

    saved = await chat_settings.settings_press(core, settings_press("ostreet_g8", True))
    assert saved.text == "Saved." and saved.screen is not None
    assert "(a plain /newgame): match to 8" in plain(saved.screen.text)
    ziege = await chat_settings.settings_press(core, settings_press("vziege", False))
    assert ziege.screen is not None and "scoring: 2/4/6" in str(ziege.screen.buttons)

    table = await open_table(core, "street")
    assert table.options == {"goat_at": 8}
    await settle(core)
    table = await reload(core, table)
    text = lobby_text(messenger, table)
    assert "House rules: match to 8 (this group's defaults, see /settings)" in text
    table.status = TableStatus.CANCELLED
    await core.storage.tables.save(table, expected_version=table.version)
    moscow = await open_table(core, "moscow")  # another variant keeps its own (none)
    assert moscow.options == {}
    moscow.status = TableStatus.CANCELLED
    await core.storage.tables.save(moscow, expected_version=moscow.version)
    written = await open_table(core, "street eggs=double")  # words replace the defaults
    assert written.options == {"eggs": "double"}


async def test_a_lobby_on_the_groups_defaults_takes_the_new_variants_defaults(core: Core) -> None:
    for arg in ("ostreet_g8", "omoscow_ed"):
        answer = await chat_settings.settings_press(core, settings_press(arg, True))
        assert answer.text == "Saved."
    table = await open_table(core, "street")
    assert table.options == {"goat_at": 8}
    choose = press(table, Op.VARIANT, ANN, version=feed.lobby_key(table), arg="moscow")
    await lobby.choose_variant(core, choose)
    table = await reload(core, table)
    assert (table.variant, table.options) == ("moscow", {"eggs": "double"})


async def test_start_refuses_house_rules_changed_since_the_opener_looked(core: Core) -> None:
    await lobby.start_private(core, ANN, "")
    table = await open_table(core, "moscow")
    add = press(table, Op.ADD_COMPUTER, ANN, version=feed.lobby_key(table), arg="basic")
    await lobby.add_computer(core, add)
    table = await reload(core, table)
    seen = feed.seating_key(table)
    await lobby_options.choose_option(core, option_press(table, ANN, "g6"))  # another device
    table = await reload(core, table)
    stale = await lobby.start(core, press(table, Op.START, ANN, version=table.version, arg=seen))
    assert stale.text == "The seats changed — check them and press Start again."
    assert (await reload(core, table)).status == TableStatus.LOBBY
    start = press(table, Op.START, ANN, version=table.version, arg=feed.seating_key(table))
    assert (await lobby.start(core, start)).text == "The match begins!"
    assert core.matches.of(await reload(core, table)).goat_at == 6
