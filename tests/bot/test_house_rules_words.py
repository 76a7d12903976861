"""What a deal under house rules says: eggs that double the next deal, a deal that counted ×2
or ×4, the goat total of the options; in English and Russian (engine scenario vectors)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from bot.i18n import get_translator
from bot.render.chat import score_screen
from bot.render.hand import HandMessage, hand_screen
from bot.render.labels import SeatInfo
from bot.render.results import deal_result_text
from bot.render.table import table_screen
from bot.service.webapp import SeatPage
from bot.storage import SeatRecord, TableRecord, TableStatus
from bot.web.seat_json import seat_state
from kozel_rules.match import Match
from kozel_rules.options import Options

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
EN, RU = get_translator("en"), get_translator("ru")
SEATS = [SeatInfo("Anna"), SeatInfo("Boris"), SeatInfo("Vera"), SeatInfo("Gleb")]


def scenario(name: str) -> Match:
    record = json.loads((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))["record"]
    match = Match.new(
        record["variant"],
        players=record["players"],
        seed=record["seed"],
        dealer=record["dealer"],
        decks=record["decks"],
        options=record.get("options"),
    )
    for action in record["actions"]:
        match.apply_text(action)
    return match


def deal_texts(match: Match, t: object, totals: tuple[int, ...] = (0, 0)) -> list[str]:
    assert t is EN or t is RU
    return [
        deal_result_text(
            t,
            result=deal,
            view=match.view(None),
            seats=SEATS[: match.players],
            totals=totals,
            sides_in=[0, 1],
            options=match.options,
        )
        for deal in match.deal_results
    ]


def test_eggs_twice_say_double_then_x4_and_the_next_deal_counted_x4() -> None:
    match = scenario("options-moscow2-eggs-double-twice-then-x4-01")
    first, second, third = deal_texts(match, EN)
    assert "🥚 Eggs! 60 to 60 — the next deal counts double." in first
    assert "🥚 Eggs! 60 to 60 — the next deal counts ×4." in second
    assert "✖️ After the eggs this deal counted ×4." in third
    assert "counted" not in first + second and "Eggs" not in third
    ru = deal_texts(match, RU)
    assert "🥚 Яйца! 60 на 60 — следующая раздача идёт вдвойне." in ru[0]
    assert "✖️ После яиц эта раздача шла ×4." in ru[2]
    score = score_screen(
        EN,
        view=match.view(None),
        deals=match.deal_results,
        seats=SEATS[:2],
        options=match.options,
    ).text
    assert score.splitlines()[-3:] == [
        "1. 60→+0 · 60→+0 🥚",
        "2. 60→+0 · 60→+0 🥚",
        "3. 71→+0 · 49→+8 ×4",
    ]
    assert "⚙️ eggs double the next deal" in score


def test_eggs_without_the_option_say_only_eggs() -> None:
    match = scenario("options-moscow2-eggs-double-twice-then-x4-01")
    plain_eggs = replace(match.deal_results[0], next_multiplier=1, defeat_points=(2, 2))
    text = deal_result_text(
        EN,
        result=plain_eggs,
        view=match.view(None),
        seats=SEATS[:2],
        totals=(2, 2),
        sides_in=[0, 1],
    )
    assert "🥚 Eggs! 60 to 60.\n" in text and "next deal" not in text


def test_a_caught_queen_after_eggs_counts_8_and_totals_read_the_goat_of_the_options() -> None:
    match = scenario("options-ziege-eggs-double-queen-caught-8-01")
    text = deal_texts(match, EN, totals=(8, 0))[1]
    assert "+8" in text and "✖️ After the eggs this deal counted ×2." in text
    assert "/12" in text  # eggs alone leave the goat total
    six = deal_result_text(
        EN,
        result=match.deal_results[1],
        view=match.view(None),
        seats=SEATS,
        totals=(8, 0),
        sides_in=[0, 1],
        options=Options(goat_at=6, eggs="double"),
    )
    assert "8/6" in six and "/12" not in six


def test_the_table_and_the_hand_say_a_deal_counts_x4_while_it_is_played() -> None:
    name = "options-moscow2-eggs-double-twice-then-x4-01"
    record = json.loads((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))["record"]
    match = Match.new(
        record["variant"],
        players=record["players"],
        seed=record["seed"],
        dealer=record["dealer"],
        decks=record["decks"],
        options=record["options"],
    )
    said: dict[int, str] = {}
    for action in record["actions"]:
        deal = len(match.deal_results) + 1
        if deal not in said:  # the deal's first table
            said[deal] = table_screen(
                EN, view=match.view(None), seats=SEATS[:2], options=match.options
            ).text
            hand = hand_screen(
                RU,
                HandMessage(
                    view=match.view(0),
                    seats=SEATS[:2],
                    chat_title="Клуб",
                    table_id=1,
                    ply=match.ply,
                    selection=[],
                    options=match.options,
                ),
            ).text
            said[-deal] = hand
        match.apply_text(action)
    assert "✖️" not in said[1] and "✖️" not in said[-1]
    assert "✖️ This deal counts double (eggs before it)." in said[2]
    assert "✖️ This deal counts ×4 (eggs before it)." in said[3]
    assert "✖️ Эта раздача идёт ×4 (перед ней были яйца)." in said[-3]


def test_the_mini_apps_info_line_marks_a_deal_after_eggs() -> None:
    name = "options-moscow2-eggs-double-twice-then-x4-01"
    record = json.loads((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))["record"]
    match = Match.new(
        record["variant"],
        players=record["players"],
        seed=record["seed"],
        dealer=record["dealer"],
        decks=record["decks"],
        options=record["options"],
    )
    for action in record["actions"]:
        if len(match.deal_results) == 2:
            break  # the third deal has begun: it counts ×4
        match.apply_text(action)
    seats = [SeatRecord(seat=i, user_id=i + 1, name=s.name) for i, s in enumerate(SEATS[:2])]
    table = TableRecord(
        id=1,
        chat_id=-1,
        status=TableStatus.PLAYING,
        variant="moscow",
        creator_id=1,
        seed=1,
        seats=seats,
    )
    page = SeatPage(table, match, None, EN, SEATS[:2], "Club", None, None)
    state = seat_state(page, now=0.0)
    assert state["title"] == "Moscow Kozel · ⚙️ eggs double the next deal · ✖️4 · Club"
    assert state["out_at"] == 12


def test_the_shared_result_card_names_the_house_rules() -> None:
    """The card a player shares from the Mini App says the match was played to 6."""
    from types import SimpleNamespace

    from bot.service.ports import Person
    from bot.service.share import result_card

    match = Match.new("moscow", players=2, seed=3, options=Options(goat_at=6))
    while not match.is_over:
        match.apply(match.legal_actions()[0])
    core = SimpleNamespace(settings=SimpleNamespace(public_url="", webapp_name=""))
    card = result_card(
        get_translator("en"),
        core,
        7,
        match,
        SEATS[:2],
        "Kozel club",
        Person(1, "Anna"),  # type: ignore[arg-type]
    )
    assert "match to 6" in card.text, card.text
