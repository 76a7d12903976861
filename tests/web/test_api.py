"""The Mini App's HTTP API over an in-process bot: who may see what, moves, the live stream."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from initdata import telegram_init_data
from service_fakes import (
    GROUP,
    PEOPLE,
    FakeMessenger,
    make_core,
    press,
    reload,
    seat_four,
    settle,
)

from bot.callback import Op, encode_action
from bot.render.choice import sensible_plays
from bot.service import closing, moves
from bot.service import coach as coach_service
from bot.service.analyses import Analyses
from bot.service.core import Core
from bot.service.live import MAX_PER_SEAT
from bot.service.share import Card as ShareCard
from bot.storage import ChatRecord, SqliteStorage, TableRecord, TableStatus
from bot.web.limits import BURST
from bot.web.mini_app import HEADER, MiniApp
from kozel_rules.action import Action, Verb
from kozel_rules.ai.coach import DealReview, Mistake, Outlook
from kozel_rules.card import CARDS, Card
from kozel_rules.match import Match

TOKEN = "42:TEST-TOKEN"
STRANGER = 999
WATCHER = 500  # in the group, not seated


class Members:
    """Telegram's getChatMember as the Mini App asks it: WATCHER and the players are in
    GROUP; every call is counted."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, int]] = []

    async def __call__(self, chat_id: int, user_id: int) -> bool | None:
        self.asked.append((chat_id, user_id))
        return chat_id == GROUP.chat_id and (user_id == WATCHER or user_id in PLAYERS)


PLAYERS = {p.user_id for p in PEOPLE}


@pytest.fixture
def core(storage: SqliteStorage, messenger: FakeMessenger) -> Core:
    core = make_core(storage, messenger)
    core.settings = dataclasses.replace(
        core.settings, public_url="https://kozel.example", webapp_name="table"
    )
    return core


@pytest.fixture
def members() -> Members:
    return Members()


@pytest.fixture
async def client(
    core: Core, members: Members
) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    app = web.Application()
    mini_app = MiniApp(core, TOKEN, members=members)
    app.add_routes(mini_app.routes())
    async with TestClient(TestServer(app)) as client:
        yield client
        await mini_app.close()


def auth(user_id: int, **kwargs: Any) -> dict[str, str]:
    return {HEADER: telegram_init_data(TOKEN, user_id, **kwargs)}


def person_at(table: TableRecord, seat: int) -> int:
    user_id = table.seats[seat].user_id
    assert user_id is not None
    return user_id


async def get_state(
    client: TestClient[web.Request, web.Application], table: TableRecord, user: int
) -> dict[str, Any]:
    response = await client.get("/api/state", params={"table": table.id}, headers=auth(user))
    assert response.status == 200, await response.text()
    data: dict[str, Any] = await response.json()
    return data


async def test_a_player_gets_exactly_their_own_seat(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    table = await seat_four(core)
    match = core.matches.of(table)
    for seat in range(4):
        data = await get_state(client, table, person_at(table, seat))
        state = data["state"]
        assert state["seat"] == seat
        assert [h["card"] for h in state["hand"]] == [str(c) for c in match.view(seat).hand]
        text = json.dumps(data, ensure_ascii=False)
        shown = {str(c) for c in CARDS if f'"{c}"' in text or f" {c}" in text}
        trump_card = match.view(None).trump_card
        allowed = {str(c) for c in match.view(seat).hand} | {str(trump_card)}
        assert shown <= allowed  # no card of another hand appears anywhere in the page's data
        assert "card_points" not in text
        assert data["strings"]["show_last"] == "Show the last trick"
        assert state["seats"][(seat + 2) % 4]["partner"] is True


async def test_missing_forged_stale_or_foreign_init_data_gets_401_and_changes_nothing(
    core: Core, client: TestClient[web.Request, web.Application], storage: SqliteStorage
) -> None:
    table = await seat_four(core)
    match = core.matches.of(table)
    seat = match.to_move
    assert seat is not None
    user = person_at(table, seat)
    action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
    move = {"ply": match.ply, "verb": str(action.verb), "cards": [str(c) for c in action.cards]}
    forged = telegram_init_data(TOKEN, user).replace("hash=", "hash=0")
    headers = [
        {},
        {HEADER: forged},
        auth(user, auth_date=time.time() - 3700),
        {HEADER: telegram_init_data("43:OTHER-BOT", user)},
    ]
    for header in headers:
        for method, path, body in [
            ("GET", "/api/state", None),
            ("POST", "/api/move", move),
            ("POST", "/api/back", None),
            ("POST", "/api/coach", {"deal": 1}),
            ("GET", "/api/events", None),
        ]:
            response = await client.request(
                method, path, params={"table": table.id}, headers=header, json=body
            )
            assert response.status == 401, (path, header)
            assert "Telegram" in (await response.json())["error"]
    fresh = await reload(core, table)
    assert fresh.version == table.version and fresh.match_state == table.match_state


async def test_a_stranger_and_a_wrong_table_get_403(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    table = await seat_four(core)
    response = await client.get("/api/state", params={"table": table.id}, headers=auth(STRANGER))
    assert response.status == 403
    assert (await response.json())["error"] == "You have no seat at this table."
    response = await client.get(
        "/api/state", params={"table": table.id + 50}, headers=auth(PEOPLE[0].user_id)
    )
    assert response.status == 403


async def test_the_table_comes_from_the_direct_links_start_param(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    table = await seat_four(core)
    headers = auth(PEOPLE[1].user_id, start_param=str(table.id))
    response = await client.get("/api/state", headers=headers)
    assert response.status == 200
    assert (await response.json())["state"]["table"] == table.id


async def test_the_cards_that_can_beat_the_trick_are_marked_for_the_answering_seat(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    """The answer's prompt calls the cards that can beat green: the page marks exactly those,
    for the seat to answer (the hand message's buttons do it with their style)."""
    table = await seat_four(core)
    match = core.matches.of(table)
    seat = match.to_move
    assert seat is not None
    lead = next(a for a in match.legal_actions(seat) if a.verb.value == "lead")
    body = {"ply": match.ply, "verb": "lead", "cards": [str(c) for c in lead.cards]}
    response = await client.post(
        "/api/move", params={"table": table.id}, headers=auth(person_at(table, seat)), json=body
    )
    assert (await response.json())["ok"] is True
    table = await reload(core, table)
    match = core.matches.of(table)
    answering = match.to_move
    assert answering is not None and answering != seat
    beaters = {
        str(c) for a in match.legal_actions(answering) if a.verb.value == "beat" for c in a.cards
    }
    state = (await get_state(client, table, person_at(table, answering)))["state"]
    assert {h["card"] for h in state["hand"] if h["beats"]} == beaters
    leader = (await get_state(client, table, person_at(table, seat)))["state"]
    assert not any(h["beats"] for h in leader["hand"])  # not theirs to answer


async def test_a_move_from_the_page_is_the_same_move_as_a_button(
    core: Core, client: TestClient[web.Request, web.Application], messenger: FakeMessenger
) -> None:
    table = await seat_four(core)
    match = core.matches.of(table)
    seat = match.to_move
    assert seat is not None
    user = person_at(table, seat)
    action = next(a for a in match.legal_actions(seat) if a.verb.value == "lead")
    body = {"ply": match.ply, "verb": "lead", "cards": [str(c) for c in action.cards]}
    response = await client.post(
        "/api/move", params={"table": table.id}, headers=auth(user), json=body
    )
    data = await response.json()
    assert data["ok"] is True and data["text"].startswith("Played: ")
    assert data["state"]["ply"] == match.ply + 1
    assert data["state"]["trick"]["plays"][0]["cards"] == body["cards"]
    await settle(core)
    table = await reload(core, table)
    assert table.table_message_id is not None
    group = messenger.messages[table.table_message_id].screen.text
    assert " ".join(body["cards"]) in group  # the group's table shows the card played
    # The same press again is stale: refused, nothing changes.
    again = await client.post(
        "/api/move", params={"table": table.id}, headers=auth(user), json=body
    )
    assert (await again.json())["ok"] is False
    assert (await reload(core, table)).match_state == table.match_state


async def test_a_move_out_of_turn_or_malformed_is_refused(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    table = await seat_four(core)
    match = core.matches.of(table)
    seat = match.to_move
    assert seat is not None
    other = (seat + 1) % 4
    card = str(match.view(other).hand[0])
    params = {"table": table.id}
    body = {"ply": match.ply, "verb": "lead", "cards": [card]}
    response = await client.post(
        "/api/move", params=params, headers=auth(person_at(table, other)), json=body
    )
    assert (await response.json())["ok"] is False
    for bad in [
        {"ply": "x"},
        {"ply": 0, "verb": "lead", "cards": "K♠"},
        [1],
        {"ply": 0, "verb": "fly", "cards": ["K♠"]},
    ]:
        response = await client.post(
            "/api/move", params=params, headers=auth(person_at(table, seat)), json=bad
        )
        assert response.status == 400 or (await response.json())["ok"] is False
    assert (await reload(core, table)).match_state == table.match_state


async def test_a_tap_in_the_page_follows_the_hands_tap_rule(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    """``POST /api/tap``: the server says what a tap does with the page's selection: select,
    refuse (with the reason), or play at once — the hand's own rule."""

    def by_index(texts: list[str]) -> list[str]:
        return sorted(texts, key=lambda text: int(Card.parse(text)))

    table = await seat_four(core)
    match = core.matches.of(table)
    seat = match.to_move
    assert seat is not None
    params, hand = {"table": table.id}, match.view(seat).hand

    async def tap(user: int, card: str, chosen: list[str]) -> dict[str, Any]:
        body = {"ply": match.ply, "card": card, "chosen": chosen}
        response = await client.post("/api/tap", params=params, headers=auth(user), json=body)
        assert response.status == 200, await response.text()
        data: dict[str, Any] = await response.json()
        return data

    waiting = person_at(table, (seat + 1) % 4)
    other_card = str(match.view((seat + 1) % 4).hand[0])
    refused = await tap(waiting, other_card, [])
    assert refused["tap"] == "refuse" and refused["ok"] is False
    assert refused["text"] == "Not your turn yet."
    mover = person_at(table, seat)
    absent = next(str(c) for c in CARDS if c not in hand)
    assert (await tap(mover, absent, []))["text"] == "That card is not in your hand."
    # The hand's tap rule: a card with one sensible play goes at once; any other is chosen,
    # and a set being built waits for its confirm (the page's button: a move).
    view, first = match.view(seat), hand[0]
    data = await tap(mover, str(first), [])
    if len(sensible_plays(view, first)) == 1:
        assert data["tap"] == "play" and data["ok"] is True
        played = [str(first)]
    else:
        assert data["tap"] == "select" and data["chosen"] == [str(first)]
        action = max(
            (a for a in view.legal if first in a.cards and not a.verb.is_special),
            key=lambda a: len(a.cards),
        )
        chosen = data["chosen"]
        for card in action.cards:
            if card == first:
                continue
            data = await tap(mover, str(card), chosen)
            assert data["tap"] == "select" and data["ok"] is True  # never played by a tap
            assert by_index(data["chosen"]) == by_index([*chosen, str(card)])
            assert data["state"]["ply"] == match.ply
            chosen = data["chosen"]
        played = [str(c) for c in action.cards]
        body = {"ply": match.ply, "verb": action.verb.value, "cards": played}
        response = await client.post("/api/move", params=params, headers=auth(mover), json=body)
        data = await response.json()
    assert data["ok"] is True and data["text"].startswith("Played: ")
    assert data["state"]["ply"] == match.ply + 1
    assert data["state"]["trick"]["plays"][0]["cards"] == by_index(played)
    stale = await tap(mover, str(hand[-1]), [])
    assert stale["ok"] is False and stale["tap"] == "refuse" and "out of date" in stale["text"]
    for bad in [{"ply": 0}, {"ply": 0, "card": "K♠", "chosen": "K♠"}, [1]]:
        response = await client.post("/api/tap", params=params, headers=auth(mover), json=bad)
        assert response.status == 400


# Only a guard against a hang: with the stream's own look every hour (``no_recheck``), an
# event that comes at all came from the change itself, however slow the machine is.
EVENT_WAIT = 30.0


@pytest.fixture
def no_recheck(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stream looks at its table again only once an hour: a state it sends within the
    test was pushed by the move (a push that went missing fails the test, not the clock)."""
    monkeypatch.setattr("bot.web.mini_app.RECHECK", 3600.0)


async def read_state(stream: Any) -> dict[str, Any]:
    """The next ``state`` event of an event stream."""
    while True:
        line = (await asyncio.wait_for(stream.content.readline(), EVENT_WAIT)).decode()
        if line.startswith("data: "):
            data: dict[str, Any] = json.loads(line[6:])
            return data


async def test_the_stream_pushes_every_move_by_anyone_at_once(
    core: Core, client: TestClient[web.Request, web.Application], no_recheck: None
) -> None:
    table = await seat_four(core)
    watcher = PEOPLE[0].user_id
    stream = await client.get("/api/events", params={"table": table.id}, headers=auth(watcher))
    assert stream.headers["Content-Type"].startswith("text/event-stream")
    first = await read_state(stream)
    assert first["ply"] == 0
    for _ in range(3):
        table = await reload(core, table)
        match = core.matches.of(table)
        seat = match.to_move
        assert seat is not None
        action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
        reply = await moves.act(
            core,
            press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=encode_action(action)),
        )
        assert reply.text.startswith("Played")
        pushed = await read_state(stream)  # pushed by the move: the stream's look is hours off
        assert pushed["ply"] == match.ply + 1
    stream.close()


async def test_a_watched_turn_is_told_in_the_page_not_by_a_new_message(
    core: Core, messenger: FakeMessenger
) -> None:
    async def next_turn(watch: bool) -> tuple[int, bool]:
        """Messages sent to the next player when their turn comes, and whether one rang."""
        table = await seat_four(core)
        match = core.matches.of(table)
        seat = match.to_move
        assert seat is not None
        action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
        after = match.copy()
        after.apply(action)
        assert after.to_move is not None and after.to_move != seat
        chat = person_at(table, after.to_move)
        last = max(messenger.messages)
        with core.live.watch(table.id, after.to_move) if watch else _nothing():
            arg = encode_action(action)
            await moves.act(core, press(table, Op.ACT, PEOPLE[seat], version=0, arg=arg))
            await settle(core)
        sent = [m for m in messenger.in_chat(chat) if m.message_id > last]
        await closing.close_table(core, table.id, reason="next")
        await settle(core)
        return len(sent), any(m.notify for m in sent)

    # The next player has not pressed for a while (the start counts as a press: its hands
    # ring, and a first turn right after it needs no second sound).
    core.settings = dataclasses.replace(core.settings, active_for=0.0)
    assert await next_turn(False) == (1, True)  # a new hand message, with a sound
    assert await next_turn(True) == (0, False)  # edited in place: the page cued the turn


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        return None


async def test_the_buttons_open_the_mini_app(core: Core, messenger: FakeMessenger) -> None:
    table = await seat_four(core)
    table = await reload(core, table)
    hand_id = table.seats[0].hand_message_id
    assert hand_id is not None
    buttons = [b for row in messenger.messages[hand_id].screen.buttons for b in row]
    assert buttons[-1].web_app == f"https://kozel.example/app?table={table.id}"
    assert table.table_message_id is not None
    group = [b for row in messenger.messages[table.table_message_id].screen.buttons for b in row]
    assert [b.url for b in group] == [f"https://t.me/kozel_bot/table?startapp={table.id}"]
    assert GROUP.chat_id == messenger.messages[table.table_message_id].chat_id


async def test_without_a_public_url_nothing_changes(storage: SqliteStorage) -> None:
    messenger = FakeMessenger()
    core = make_core(storage, messenger)
    table = await seat_four(core)
    for message in messenger.messages.values():
        buttons = [b for row in message.screen.buttons for b in row]
        assert all(b.web_app is None and "Open the table" not in b.text for b in buttons)
    assert Card.parse("10♣")  # cards parse as the page sends them
    assert table.status == "playing"


def visible_cards(state: dict[str, Any]) -> set[str]:
    """Every card the page's data names anywhere."""
    text = json.dumps(state, ensure_ascii=False)
    return {str(c) for c in CARDS if f'"{c}"' in text or f" {c}" in text}


async def test_no_other_hand_and_no_face_down_card_of_another_seat_ever_reaches_the_page(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    table = await seat_four(core)
    watcher = 0
    for _ in range(24):  # six tricks' worth of moves, discards among them
        table = await reload(core, table)
        match = core.matches.of(table)
        if match.to_move is None:
            break
        seat = match.to_move
        legal = [a for a in match.legal_actions(seat) if not a.verb.is_special]
        action = next((a for a in legal if a.verb.is_face_down), legal[0])
        arg = encode_action(action)
        await moves.act(core, press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=arg))
        match = core.matches.of(await reload(core, table))
        state = (await get_state(client, table, PEOPLE[watcher].user_id))["state"]
        public = match.view(None)
        face_up = {
            str(c)
            for trick in (public.trick, public.last_trick)
            if trick is not None
            for play in trick.plays
            for c in play.cards
        }
        own = match.view(watcher)
        own_face_down = {
            str(c)
            for trick in (own.trick, own.last_trick)
            if trick is not None
            for play in trick.plays
            if play.seat == watcher
            for c in play.cards
        }
        allowed = {str(c) for c in own.hand} | face_up | own_face_down | {str(public.trump_card)}
        assert visible_cards(state) <= allowed, (visible_cards(state) - allowed, state)


async def test_the_page_speaks_the_players_language(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    table = await seat_four(core)
    user = await core.storage.users.get(PEOPLE[1].user_id)
    assert user is not None
    user.language = "ru"
    await core.storage.users.upsert(user)
    data = await get_state(client, table, PEOPLE[1].user_id)
    assert data["lang"] == "ru"
    assert data["strings"]["show_last"] == "Показать последнюю взятку"
    assert data["state"]["trump_text"].startswith("Козырь")
    stranger = await client.get(
        "/api/state", params={"table": table.id}, headers=auth(STRANGER, language_code="de")
    )
    assert (await stranger.json())["error"] == "Du hast keinen Platz an diesem Tisch."


async def test_one_player_cannot_flood_the_server(
    core: Core, client: TestClient[web.Request, web.Application], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The limiter's clock stands still: on a loaded machine 40 requests may take long enough
    # for the bucket to refill (10 a second), and the flood would look like fair use.
    monkeypatch.setattr("bot.web.mini_app.time", SimpleNamespace(monotonic=lambda: 1000.0))
    table = await seat_four(core)
    headers = auth(PEOPLE[2].user_id)
    codes = [
        (await client.get("/api/state", params={"table": table.id}, headers=headers)).status
        for _ in range(40)
    ]
    assert codes == [200] * int(BURST) + [429] * (40 - int(BURST)), codes
    # Others are not slowed down by it.
    assert (await get_state(client, table, PEOPLE[3].user_id))["state"]["seat"] == 3


async def test_a_seat_may_keep_only_a_few_streams_open(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    table = await seat_four(core)
    params = {"table": table.id}
    streams = [
        await client.get("/api/events", params=params, headers=auth(PEOPLE[0].user_id))
        for _ in range(MAX_PER_SEAT)
    ]
    assert all(s.status == 200 for s in streams)
    extra = await client.get("/api/events", params=params, headers=auth(PEOPLE[0].user_id))
    assert extra.status == 429
    assert core.live.is_watched(table.id, 0) and not core.live.is_watched(table.id, 1)
    for stream in streams:
        stream.close()


async def test_im_back_from_the_page(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    table = await seat_four(core)
    async with core.table_locks.hold(table.id):
        fresh = await reload(core, table)
        fresh.seats[2].away = True
        await core.storage.tables.save(fresh, expected_version=fresh.version)
    state = (await get_state(client, table, PEOPLE[2].user_id))["state"]
    assert state["away"] is True
    response = await client.post(
        "/api/back", params={"table": table.id}, headers=auth(PEOPLE[2].user_id)
    )
    data = await response.json()
    assert data["ok"] is True and data["text"] == "Welcome back — it is your seat again."
    assert data["state"]["away"] is False
    assert not (await reload(core, table)).seats[2].away


async def test_a_special_lead_has_its_own_control_also_out_of_turn(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    """Plain moves until some player may declare a special lead; the page offers it as its
    own action and declaring it from the page works (also when it is not their turn)."""
    found = None
    for _ in range(12):  # tables: some deal soon offers a molodka
        table = await seat_four(core, deliver=False)
        for _ in range(60):
            match = core.matches.of(table)
            if match.to_move is None:
                break
            offers = [(s, a) for s in range(4) for a in match.legal_actions(s) if a.verb.is_special]
            if offers:
                found = table, offers
                break
            seat = match.to_move
            action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
            arg = encode_action(action)
            await moves.act(core, press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=arg))
            table = await reload(core, table)
        if found:
            break
        await closing.close_table(core, table.id, reason="next")
    assert found, "no special lead came up"
    table, offers = found
    match = core.matches.of(table)
    seat, special = next(((s, a) for s, a in offers if s != match.to_move), offers[0])
    state = (await get_state(client, table, person_at(table, seat)))["state"]
    specials = [a for a in state["actions"] if a["special"]]
    assert {"verb": str(special.verb), "cards": [str(c) for c in special.cards]} in [
        {"verb": a["verb"], "cards": a["cards"]} for a in specials
    ]
    assert all(a["label"].startswith(("🔥", "🏛")) for a in specials)
    body = {"ply": match.ply, "verb": str(special.verb), "cards": [str(c) for c in special.cards]}
    response = await client.post(
        "/api/move", params={"table": table.id}, headers=auth(person_at(table, seat)), json=body
    )
    data = await response.json()
    assert data["ok"] is True, data
    assert data["state"]["trick"]["plays"][0]["verb"] == str(special.verb)


async def test_a_cancelled_table_says_so_and_its_stream_ends(
    core: Core, client: TestClient[web.Request, web.Application], no_recheck: None
) -> None:
    table = await seat_four(core)
    stream = await client.get(
        "/api/events", params={"table": table.id}, headers=auth(PEOPLE[0].user_id)
    )
    assert (await read_state(stream))["status"] == "playing"
    await closing.close_table(core, table.id, reason="test")
    last = await read_state(stream)
    assert last["status"] == "cancelled"
    assert last["closed_text"] == "✖️ The table was cancelled."
    rest = await asyncio.wait_for(stream.content.read(), EVENT_WAIT)  # the stream is over
    assert rest.strip() == b""
    assert not core.live.is_watched(table.id, 0)


async def play_moves(core: Core, table: TableRecord, count: int, *, face_down: bool) -> TableRecord:
    """``count`` moves by whoever is to move (face-down discards where allowed, if asked)."""
    for _ in range(count):
        table = await reload(core, table)
        match = core.matches.of(table)
        seat = match.to_move
        assert seat is not None
        legal = [a for a in match.legal_actions(seat) if not a.verb.is_special]
        action = (
            next((a for a in legal if a.verb.is_face_down), legal[0]) if face_down else legal[0]
        )
        arg = encode_action(action)
        await moves.act(core, press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=arg))
    return await reload(core, table)


async def test_a_group_member_without_a_seat_watches_the_public_view(
    core: Core, client: TestClient[web.Request, web.Application], members: Members
) -> None:
    """The group's table link opens the public view for a member who does not play: no hand,
    no move, no card of any hand and no face-down card, whatever is played; membership is
    asked of Telegram once, not per request or per card."""
    table = await seat_four(core)
    for _ in range(6):
        table = await play_moves(core, table, 2, face_down=True)
        state = (await get_state(client, table, WATCHER))["state"]
        assert state["spectator"] is True and state["seat"] is None
        assert state["hand"] == [] and state["actions"] == [] and state["my_turn"] is False
        assert not any(seat["me"] or seat["partner"] for seat in state["seats"])
        public = core.matches.of(table).view(None)
        face_up = {
            str(c)
            for trick in (public.trick, public.last_trick)
            if trick is not None
            for play in trick.plays
            for c in play.cards
        }
        assert visible_cards(state) <= face_up | {str(public.trump_card)}, state
        shown = [p for t in (state["trick"], state["last_trick"]) if t for p in t["plays"]]
        assert all(p["cards"] == [] for p in shown if p["face_down"])
    assert members.asked == [(GROUP.chat_id, WATCHER)]
    link = await client.get("/api/state", headers=auth(WATCHER, start_param=str(table.id)))
    assert (await link.json())["state"]["spectator"] is True  # the table link's start_param


async def test_a_stranger_hears_the_same_as_for_a_table_that_does_not_exist(
    core: Core, client: TestClient[web.Request, web.Application], members: Members
) -> None:
    table = await seat_four(core)
    answers = []
    for table_id in (table.id, table.id + 50):
        response = await client.get(
            "/api/state", params={"table": table_id}, headers=auth(STRANGER)
        )
        answers.append((response.status, await response.json()))
    assert answers[0] == answers[1] == (403, {"error": "You have no seat at this table."})
    assert members.asked == [(GROUP.chat_id, STRANGER)]  # no table, no question to Telegram


async def test_a_spectator_is_pushed_every_move_but_cannot_move_or_mark_a_seat_watched(
    core: Core, client: TestClient[web.Request, web.Application], no_recheck: None
) -> None:
    table = await seat_four(core)
    params = {"table": table.id}
    stream = await client.get("/api/events", params=params, headers=auth(WATCHER))
    assert (await read_state(stream))["spectator"] is True
    assert not any(core.live.is_watched(table.id, seat) for seat in range(4))  # turns still ring
    match = core.matches.of(table)
    seat = match.to_move
    assert seat is not None
    action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
    body = {"ply": match.ply, "verb": str(action.verb), "cards": [str(c) for c in action.cards]}
    refused = await client.post("/api/move", params=params, headers=auth(WATCHER), json=body)
    assert (await refused.json())["ok"] is False
    tap = {"ply": match.ply, "card": body["cards"][0], "chosen": []}
    tapped = await client.post("/api/tap", params=params, headers=auth(WATCHER), json=tap)
    assert (await tapped.json())["ok"] is False
    assert (await reload(core, table)).match_state == table.match_state
    await play_moves(core, table, 1, face_down=False)
    pushed = await read_state(stream)  # pushed by the move: the stream's look is hours off
    assert pushed["ply"] == match.ply + 1
    assert pushed["trick"]["plays"][0]["cards"] == body["cards"]
    more = [
        await client.get("/api/events", params=params, headers=auth(WATCHER))
        for _ in range(MAX_PER_SEAT)
    ]
    assert [r.status for r in more] == [200] * (MAX_PER_SEAT - 1) + [429]  # a few per person
    other = await client.get("/api/state", params=params, headers=auth(PEOPLE[0].user_id))
    assert other.status == 200
    for response in [stream, *more]:
        response.close()


async def test_a_finished_deal_shows_its_result_over_its_last_trick_until_the_next_trick(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    table = await seat_four(core)
    while core.matches.of(table).deal_number == 1:
        table = await play_moves(core, table, 1, face_down=False)
    match = core.matches.of(table)
    result = match.deal_results[-1]
    # The deal's last trick: the last four actions (the lead and three answers; deal 2 has
    # seen no action yet).
    last_plays = [Action.parse(text) for text in match.history[-4:]]
    for watcher in (0, 1, WATCHER):
        user = PEOPLE[watcher].user_id if watcher != WATCHER else WATCHER
        state = (await get_state(client, table, user))["state"]
        end = state["deal_end"]
        assert end["number"] == 1 and end["heading"] == "🏁 Deal 1 is over"
        assert any("Defeat points" in line for line in end["lines"])
        trick = end["trick"]
        assert trick["taker"] == result.last_trick_seat
        assert [p["seat"] for p in trick["plays"]] == [a.seat for a in last_plays]
        for play, action in zip(trick["plays"], last_plays, strict=True):
            hidden = action.verb.is_face_down and action.seat != state["seat"]
            assert play["cards"] == ([] if hidden else [str(c) for c in action.cards])
            assert play["count"] == len(action.cards)
        winners = [p for p in trick["plays"] if p["top"]]
        assert [p["seat"] for p in winners] == [result.last_trick_seat]
    # The next deal's first trick taken: the result is no longer sent.
    while not any(core.matches.of(table).view(None).tricks_by_seat):
        table = await play_moves(core, table, 1, face_down=False)
    assert (await get_state(client, table, PEOPLE[0].user_id))["state"]["deal_end"] is None


async def test_how_did_i_play_from_the_deals_result(
    core: Core, client: TestClient[web.Request, web.Application], messenger: FakeMessenger
) -> None:
    core.analyses = Analyses(lambda: None)  # threads here; the bot runs a worker process
    table = await seat_four(core)
    while core.matches.of(table).deal_number == 1:
        table = await play_moves(core, table, 1, face_down=False)
    user = PEOPLE[0].user_id
    assert (await get_state(client, table, user))["state"]["deal_end"]["coach"] is True
    watcher = (await get_state(client, table, WATCHER))["state"]["deal_end"]
    assert watcher["coach"] is False

    async def ask(deal: object, who: int = user) -> tuple[int, dict[str, Any]]:
        response = await client.post(
            "/api/coach", params={"table": table.id}, headers=auth(who), json={"deal": deal}
        )
        return response.status, await response.json() if response.status == 200 else {}

    status, data = await ask(1)
    assert status == 200 and data["ok"] is True and "coach is looking" in data["text"]
    await core.analyses.idle()
    await settle(core)
    answers = [t for t in messenger.texts(user) if t.startswith("🎓")]
    assert len(answers) == 1 and "How you played in deal 1" in answers[0]
    status, data = await ask(1)
    assert data["ok"] is False and data["text"].startswith("You already asked about deal 1")
    status, data = await ask(2)
    assert data["ok"] is False and data["text"] == "That deal is not over yet."
    for bad in ("1", None, True, [1]):
        assert (await ask(bad))[0] == 400
    # a member watching the table played no deal at it
    status, data = await ask(1, WATCHER)
    assert data["ok"] is False and data["text"] == "You did not play in that deal."
    assert len([t for t in messenger.texts(user) if t.startswith("🎓")]) == 1


async def test_the_info_line_names_the_house_rules_and_the_goat_total_follows_them(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    options = {"street": {"goat_at": 6, "eggs": "double"}}
    await core.storage.chats.upsert(
        ChatRecord(GROUP.chat_id, GROUP.title, settings={"options": options})
    )
    table = await seat_four(core)  # /newgame street: the group's defaults
    state = (await get_state(client, table, person_at(table, 0)))["state"]
    assert state["title"] == "Street Kozel · ⚙️ match to 6 · eggs double the next deal · Kozel club"
    assert state["out_at"] == 6
    assert state["standings_text"].count("/6") == 2 and "/12" not in state["standings_text"]


async def get_replay(
    client: TestClient[web.Request, web.Application], table: TableRecord, user: int, deal: object
) -> tuple[int, dict[str, Any]]:
    response = await client.get(
        "/api/replay", params={"table": table.id, "deal": str(deal)}, headers=auth(user)
    )
    data: dict[str, Any] = await response.json() if response.status in (200, 403) else {}
    return response.status, data


async def test_a_replay_steps_through_a_finished_deal_with_every_hand_open(
    core: Core, client: TestClient[web.Request, web.Application]
) -> None:
    """Deal 1 after it is over: every trick as it was played (face-down cards turned), its
    taker, the running card points (they add up to the deal's), the hands before each trick
    and the stock; the coach's marks only on the asker's seat."""
    table = await seat_four(core)
    while core.matches.of(table).deal_number == 1:
        table = await play_moves(core, table, 1, face_down=True)
    match = core.matches.of(table)
    result = match.deal_results[0]
    status, data = await get_replay(client, table, PEOPLE[1].user_id, 1)
    assert status == 200, data
    replay = data["replay"]
    assert replay["deal"] == 1 and replay["deals"] == 1 and replay["seat"] == 1
    tricks = replay["tricks"]
    assert [k["taker"] for k in tricks] == list(result.trick_seats)
    assert tricks[-1]["card_points"] == list(result.card_points)
    assert tricks[-1]["tricks"] == list(result.tricks)
    # Every action of deal 1 (deal 2 has none yet) is in a trick, in order, with all its
    # cards, face-down ones too.
    played = [
        (p["seat"], p["verb"], [c["card"] for c in p["cards"]])
        for k in tricks
        for p in [*k["returned"], *k["plays"]]
    ]
    expected = [Action.parse(text) for text in match.history]
    assert played == [(a.seat, str(a.verb), [str(c) for c in a.cards]) for a in expected]
    assert any(p["face_down"] and p["cards"] for k in tricks for p in k["plays"])
    # The first trick starts from the dealt hands; each hand holds the cards it plays.
    first = Match.from_json({**match.to_json(), "actions": []})
    assert [[c["card"] for c in h] for h in tricks[0]["hands"]] == [
        [str(c) for c in first.view(s).hand] for s in range(4)
    ]
    for k in tricks:
        for p in k["plays"]:
            held = {c["card"] for c in k["hands"][p["seat"]]}
            assert {c["card"] for c in p["cards"]} <= held
    assert tricks[0]["stock"] == first.view(None).stock
    assert replay["result"]["heading"] == "🏁 Deal 1 is over"
    assert not any(k["marks"] for k in tricks)  # nobody asked the coach


async def test_a_replay_shows_nothing_of_a_deal_in_play_nor_to_a_stranger(
    core: Core, client: TestClient[web.Request, web.Application], members: Members
) -> None:
    """A deal still being played has no replay; a person of another table (not in the group)
    gets none; a group member without a seat only once the match is over."""
    table = await seat_four(core)
    table = await play_moves(core, table, 3, face_down=True)
    status, data = await get_replay(client, table, PEOPLE[0].user_id, 1)
    assert (status, data) == (403, {"error": "That deal is not over yet."})
    while core.matches.of(table).deal_number == 1:
        table = await play_moves(core, table, 1, face_down=True)
    for deal in (2, 0, 99):
        status, data = await get_replay(client, table, PEOPLE[0].user_id, deal)
        assert (status, data) == (403, {"error": "That deal is not over yet."})
    for bad in ("x", "", "-1", "12345"):
        assert (await get_replay(client, table, PEOPLE[0].user_id, bad))[0] == 400
    status, data = await get_replay(client, table, STRANGER, 1)
    assert (status, data) == (403, {"error": "You have no seat at this table."})
    status, data = await get_replay(client, table, WATCHER, 1)
    assert status == 403
    assert data == {"error": "The group can watch replays once the match is over."}
    text = json.dumps(data)
    assert not any(str(c) in text for c in CARDS)
    # The match over, the group may watch it, deal by deal.
    table = await finish_match(core, table)
    status, data = await get_replay(client, table, WATCHER, 1)
    assert status == 200 and data["replay"]["seat"] is None and data["replay"]["match_over"]
    deals = data["replay"]["deals"]
    status, data = await get_replay(client, table, WATCHER, deals)
    assert status == 200 and data["replay"]["deal"] == deals
    status, data = await get_replay(client, table, STRANGER, 1)
    assert status == 403


async def finish_match(core: Core, table: TableRecord) -> TableRecord:
    """Play on until the match is over."""
    while core.matches.of(table).to_move is not None:
        table = await play_moves(core, table, 1, face_down=False)
    assert table.status == TableStatus.FINISHED
    return table


async def test_the_coachs_marks_show_on_the_askers_seat_only(
    core: Core, client: TestClient[web.Request, web.Application], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anna asked the coach about deal 1: the replay shows its marks at the plays it judged
    (what she played, what the expert would have, the cost), to her; her partner sees none.
    (The review is made up, so that the deal has a mistake whatever the cards.)"""
    core.analyses = Analyses(lambda: None)
    table = await seat_four(core)
    while core.matches.of(table).deal_number == 1:
        table = await play_moves(core, table, 1, face_down=True)
    history = core.matches.of(table).history
    anna = [i for i, text in enumerate(history) if Action.parse(text).seat == 0]
    mistakes = []
    for ply in (anna[-1], anna[1]):  # the biggest first, as the coach gives them
        played = Action.parse(history[ply])
        better = Action.make(0, Verb.LEAD, (CARDS[0],))  # what the expert says is not checked
        mistakes.append(
            Mistake(ply, 99, played, better, Outlook(20.0, 0.25), Outlook(33.0, 0.6), 0.3)
        )

    def review(record: Any, seat: int, **_: Any) -> DealReview:
        return DealReview(seat, 1, 8, tuple(mistakes))

    monkeypatch.setattr(coach_service, "review_deal", review)
    user = PEOPLE[0].user_id
    response = await client.post(
        "/api/coach", params={"table": table.id}, headers=auth(user), json={"deal": 1}
    )
    assert (await response.json())["ok"] is True
    await core.analyses.idle()
    await settle(core)
    status, data = await get_replay(client, table, user, 1)
    assert status == 200
    tricks = data["replay"]["tricks"]
    shown = [(k, m) for k in tricks for m in k["marks"]]
    assert [m["ply"] for _, m in shown] == [anna[1], anna[-1]]  # in the order played
    for trick, mark in shown:
        played = Action.parse(history[mark["ply"]])
        assert any(p["ply"] == mark["ply"] and p["seat"] == 0 for p in trick["plays"])
        assert mark["seat_cards"] == [str(c) for c in played.cards] and mark["better"] == ["6♠"]
        # The chat review's wording: trick number, what was played, the cost, the chances.
        assert mark["text"].startswith(f"Trick {trick['number']}: you ")
        assert "about 13 card points more" in mark["text"]
        assert "25% after your play, 60% after the expert's" in mark["text"]
    assert tricks[-1]["marks"] and not tricks[0]["marks"]  # the last play, in the last trick
    assert data["replay"]["coached"] is True
    partner = await get_replay(client, table, PEOPLE[2].user_id, 1)
    assert not any(k["marks"] for k in partner[1]["replay"]["tricks"])
    assert partner[1]["replay"]["coached"] is False


async def test_the_deals_result_leads_to_its_replay_in_the_chat_and_in_the_page(
    core: Core, client: TestClient[web.Request, web.Application], messenger: FakeMessenger
) -> None:
    table = await seat_four(core)
    while core.matches.of(table).deal_number == 1:
        table = await play_moves(core, table, 1, face_down=False)
    await settle(core)
    link = f'<a href="https://t.me/kozel_bot/table?startapp=r{table.id}_1">▶️ Replay</a>'
    results = [t for t in messenger.texts(GROUP.chat_id) if "Deal 1 is over" in t]
    assert results and results[-1].endswith("\n" + link)
    player = (await get_state(client, table, PEOPLE[0].user_id))["state"]["deal_end"]
    assert player["replay"] == "▶️ Replay"
    watcher = (await get_state(client, table, WATCHER))["state"]["deal_end"]
    assert watcher["replay"] is None  # the match goes on: no replay for the group yet


async def test_a_hand_shown_in_the_page_is_not_edited_until_the_page_is_gone(
    core: Core, client: TestClient[web.Request, web.Application], messenger: FakeMessenger
) -> None:
    """Ann plays with the page open: her hand message is not edited at any card (hers or
    the others'), while Bob's is; when she closes the page it is edited once, to the hand
    she holds then."""
    table = await seat_four(core)
    ann = person_at(table, 0)
    hands = {seat: table.seats[seat].hand_message_id for seat in (0, 1)}
    assert all(hands.values())
    stream = await client.get("/api/events", params={"table": table.id}, headers=auth(ann))
    await read_state(stream)
    before = {seat: messenger.messages[m].edits for seat, m in hands.items() if m}
    played: list[str] = []
    for _ in range(12):  # three tricks: Ann's own moves and everyone else's
        table = await reload(core, table)
        match = core.matches.of(table)
        seat = match.to_move
        assert seat is not None
        action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
        if seat == 0:  # from the page
            body = {
                "ply": match.ply,
                "verb": str(action.verb),
                "cards": [str(c) for c in action.cards],
            }
            answer = await client.post(
                "/api/move", params={"table": table.id}, headers=auth(ann), json=body
            )
            assert (await answer.json())["ok"] is True
            played += [str(c) for c in action.cards]
        else:
            await play_moves(core, table, 1, face_down=False)
        await settle(core)
    assert len(played) >= 2
    ann_hand = messenger.messages[hands[0] or 0]
    assert ann_hand.edits == before[0]  # not one edit while the page showed her hand
    assert messenger.messages[hands[1] or 0].edits > before[1]  # Bob has no page open
    assert table.seats[0].hand_message_id == hands[0]  # and no new message either
    stream.close()
    deadline = time.monotonic() + 10
    while ann_hand.edits == before[0] and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        await settle(core)
    assert ann_hand.edits == before[0] + 1  # brought up to date once
    held = core.matches.of(await reload(core, table)).view(0).hand
    shown = {b.text.strip("()★") for row in ann_hand.screen.buttons for b in row}
    assert {str(c) for c in held} <= shown and not set(played) & shown  # the hand she holds
    await asyncio.sleep(0.3)
    await settle(core)
    assert ann_hand.edits == before[0] + 1


async def test_share_prepares_the_result_card_once_the_match_is_over(
    core: Core, members: Members
) -> None:
    """POST /api/share: refused while the match goes on and for a stranger; once it is
    over, the card (variant, chat, winners, goat, the table's link) is prepared for the
    caller and its id comes back."""
    cards: list[ShareCard] = []

    async def prepare(card: ShareCard) -> str | None:
        cards.append(card)
        return f"prep-{len(cards)}"

    app = web.Application()
    app.add_routes(MiniApp(core, TOKEN, members=members, prepare=prepare).routes())
    async with TestClient(TestServer(app)) as client:
        table = await seat_four(core)

        async def share(user: int) -> tuple[int, dict[str, Any]]:
            response = await client.post(
                "/api/share", params={"table": table.id}, headers=auth(user)
            )
            return response.status, await response.json()

        assert await share(PEOPLE[1].user_id) == (
            200,
            {"ok": False, "text": "The match is not over yet.", "id": None},
        )
        table = await finish_match(core, table)
        status, data = await share(STRANGER)
        assert data == {"ok": False, "text": "You have no seat at this table.", "id": None}
        assert not cards
        for user in (PEOPLE[1].user_id, WATCHER):  # a player, a member of the group
            status, data = await share(user)
            assert status == 200 and data["ok"] is True and data["id"] == f"prep-{len(cards)}"
            card = cards[-1]
            assert card.user_id == user
            assert card.text.startswith("🐐 <b>Street Kozel</b> · Kozel club\n🏆")
            assert "/newgame" not in card.text
            assert "✨ " in card.text, card.text  # the moment of the match, as the group's
            assert "The goat" in card.text and card.url == (
                f"https://t.me/kozel_bot/table?startapp={table.id}"
            )
