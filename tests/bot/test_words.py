"""The words of the screens, as players of each language read them: card letters, names
joined with "and", goats counted, placings with three players, computers by name, the hand's
buttons marked and ordered, the prompt saying what the next tap does."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from bot.callback import Op, encode_card, parse
from bot.i18n import get_translator
from bot.render.chat import help_screen, score_screen
from bot.render.hand import HandMessage, hand_screen
from bot.render.labels import SeatInfo, card_label, cards_text, computer_name
from bot.render.results import deal_result_text, match_result_text
from bot.screen import Button, Style
from kozel_rules import Match, parse_cards

sys.path.append(str(Path(__file__).resolve().parent.parent / "engine"))
from kozel_testkit import new_match  # the engine tests' literal deals

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
EN, RU, DE, DA, JA = (get_translator(lang) for lang in ("en", "ru", "de", "da", "ja"))
FOUR = [SeatInfo("Anna"), SeatInfo("Boris"), SeatInfo("Vera"), SeatInfo("Gleb")]


def scenario(name: str) -> Match:
    record = json.loads((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))["record"]
    match = Match.new(
        record["variant"],
        players=record["players"],
        seed=record["seed"],
        dealer=record["dealer"],
        decks=record["decks"],
    )
    for action in record["actions"]:
        match.apply_text(action)
    return match


def test_cards_are_labelled_in_the_readers_letters_and_data_keeps_the_engines() -> None:
    queen, jack, ace, ten = parse_cards("Q♥ J♠ A♦ 10♣")
    assert [card_label(RU, c) for c in (queen, jack, ace, ten)] == ["Д♥", "В♠", "Т♦", "10♣"]
    assert [card_label(DE, c) for c in (queen, jack)] == ["D♥", "B♠"]
    assert [card_label(DA, c) for c in (jack, ace)] == ["Kn♠", "E♦"]
    assert cards_text(EN, (queen, ten)) == "Q♥ 10♣" and cards_text(JA, (queen,)) == "Q♥"
    match = Match.new("street", players=4, seed=1)
    view = match.view(match.to_move)
    screen = hand_screen(
        RU, HandMessage(view=view, seats=FOUR, chat_title="Клуб", table_id=3, ply=0, selection=())
    )
    cards = [b for b in screen.buttons[0]]
    assert not any(ch in b.text for b in cards for ch in "JQA")
    assert {parse(b.data).arg for b in cards} == {encode_card(c) for c in view.hand}


def test_partners_are_joined_with_and_and_goats_are_counted() -> None:
    match = _finished("street", 4)
    assert match.result is not None
    view = match.view(None)
    english = match_result_text(EN, result=match.result, view=view, seats=FOUR)
    assert "🐐 The goats: " in english and " and " in english and "&" not in english
    russian = match_result_text(RU, result=match.result, view=view, seats=FOUR)
    assert "🐐 Козлы: " in russian and " и " in russian
    out = next(r for r in match.deal_results if r.out)
    text = deal_result_text(
        RU, result=out, view=view, seats=FOUR, totals=match.defeat_points, sides_in=[0, 1]
    )
    assert "выбывают из партии" in text  # two partners: the plural


def _finished(variant: str, players: int) -> Match:
    match = Match.new(variant, players=players, seed=7)
    rng = random.Random(7)
    while not match.is_over:
        match.apply(rng.choice(match.legal_actions(match.to_move)))
    return match


def test_three_players_get_placings_and_the_first_one_out_is_the_goat() -> None:
    match = scenario("moscow3-elimination-then-two-01")  # side 2 out first, then side 0
    assert match.result is not None
    seats = FOUR[:3]
    text = match_result_text(EN, result=match.result, view=match.view(None), seats=seats)
    lines = text.splitlines()
    assert lines[1].startswith("🥇 1. Boris: ")
    assert lines[2].startswith("🥈 2. Anna: ")
    assert lines[3].startswith("🐐 3. Vera: ")
    assert "🐐 The goat: Vera" in text and "Winner" not in text
    score = score_screen(EN, view=match.view(None), deals=match.deal_results, seats=seats).text
    after_out = score.splitlines()[-1]  # the last deal, played without Vera
    assert after_out.endswith("· out") and "0→+0" not in after_out


def test_computers_are_named_in_the_readers_language_also_in_old_records() -> None:
    assert computer_name(RU, "Ivan") == "Иван" and computer_name(RU, "Bot Ivan") == "Иван"
    assert computer_name(JA, "Yuki") == "ユキ"
    assert computer_name(RU, "Someone") == "Someone"  # a person's name stays


def test_the_queen_catch_names_who_caught_whose_queen() -> None:
    match = scenario("ziege-queen-caught-play-01")
    caught = next(r for r in match.deal_results if r.queen_caught)
    assert caught.queen_seats is not None
    queen, seven = caught.queen_seats
    text = deal_result_text(
        EN, result=caught, view=match.view(None), seats=FOUR, totals=(0, 0), sides_in=[0, 1]
    )
    assert f"{FOUR[seven].name} caught {FOUR[queen].name}'s queen of clubs" in text


def test_beat_stands_above_discard_and_the_prompt_says_what_the_buttons_do() -> None:
    """Partner on top: a card that could beat is chosen, both plays are offered, Beat first
    (green), Discard below; an A that cannot beat is chosen, its discard is red."""
    m = new_match("street", {1: "9♠ 6♣ 7♣ 8♣", 2: "6♥ A♥ 10♣ 8♥", 3: "A♠ 6♠ K♥ 9♥"}, trump="9♦")
    m.apply_text("1 lead 9♠")
    m.apply_text("2 discard 6♥")
    screen = hand_screen(
        EN,
        HandMessage(
            view=m.view(3),
            seats=FOUR,
            chat_title="Club",
            table_id=1,
            ply=m.ply,
            selection=parse_cards("A♠"),
        ),
    )
    acts = [b for row in screen.buttons for b in row if _op(b) == Op.ACT]
    assert [b.text.split()[0] for b in acts] == ["⚔️", "🂠"]
    assert acts[0].style is Style.SUCCESS
    prompt = next(line for line in screen.text.splitlines() if "👉" in line)
    assert "⚔️ below beats, 🂠 throws face down" in prompt
    cards = {b.text: b for b in screen.buttons[0]}
    assert cards["✅A♠"].style is None and cards["K♥"].style is Style.PRIMARY


def test_an_ace_that_cannot_beat_asks_for_a_red_discard() -> None:
    m = new_match("street", {1: "9♠ 6♣ 7♣ 8♣", 2: "6♥ A♥ 7♦ 8♥"}, trump="9♦")
    m.apply_text("1 lead 9♠")
    screen = hand_screen(
        EN,
        HandMessage(
            view=m.view(2),
            seats=FOUR,
            chat_title="Club",
            table_id=1,
            ply=m.ply,
            selection=parse_cards("A♥"),
        ),
    )
    acts = [b for row in screen.buttons for b in row if _op(b) == Op.ACT]
    assert len(acts) == 1 and acts[0].style is Style.DANGER and acts[0].text.startswith("🂠")
    assert "Selected: A♥ — cannot beat: 🂠 below throws it face down" in screen.text
    beating = [b for b in screen.buttons[0] if b.style is Style.SUCCESS]
    assert [b.text for b in beating] == ["★7♦"]  # only the trump can beat the 9♠


def test_the_hand_shows_the_time_left_only_when_it_runs_short() -> None:
    m = Match.new("street", players=4, seed=1)
    seat = m.to_move
    assert seat is not None

    def text(left: float | None) -> str:
        return hand_screen(
            EN,
            HandMessage(
                view=m.view(seat),
                seats=FOUR,
                chat_title="Club",
                table_id=1,
                ply=0,
                selection=(),
                seconds_left=left,
            ),
        ).text

    assert "⏳ 18 seconds left to move." in text(17.6)
    assert "⏳" not in text(45) and "⏳" not in text(None)


def test_help_says_how_to_play_here() -> None:
    text = help_screen(EN, private=True).text
    assert "How to play here" in text
    for sign in ("★", "(K♠)", "⬅️", "⚔️", "🎴", "🂠"):
        assert sign in text


def _op(button: Button) -> Op | None:
    return parse(button.data).op if button.data else None
