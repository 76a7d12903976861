"""The tap rule (``bot.service.tap``): what a tap on a card does, from literal hands; and the
hand's card buttons follow it, naming the rule when a card cannot be played."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from service_fakes import PEOPLE, press, reload, seat_four

sys.path.append(str(Path(__file__).resolve().parent.parent / "engine"))
from kozel_testkit import new_match  # the engine tests' literal deals

from bot.callback import Op, encode_action, encode_card
from bot.i18n import get_translator
from bot.render.choice import selection_hint
from bot.render.hand import hand_prompt
from bot.render.refusals import Refused, refusal_text
from bot.service import moves
from bot.service.core import Core
from bot.service.tap import tap
from kozel_rules import Action, Card, Match, Rule, get_variant, parse_cards


def dealt(variant: str, hands: dict[int, str]) -> Match:
    """A match whose dealer 0 deals ``hands`` (seat -> its four cards); the rest in deck order."""
    given = {seat: list(parse_cards(text)) for seat, text in hands.items()}
    rest = [c for c in get_variant(variant).deck if all(c not in h for h in given.values())]
    rest.sort(key=lambda c: (c.rank, c.suit))  # the others' hands mix suits: no molodka
    for seat in range(4):
        if seat not in given:
            given[seat] = [rest.pop(0) for _ in range(4)]
    deck = [given[seat][r] for r in range(4) for seat in (1, 2, 3, 0)] + rest
    return Match.new(variant, dealer=0, decks=[deck])


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def street(hands: dict[int, str], *, trump: str) -> Match:
    """A street deal of dealer 0 with ``hands`` and ``trump`` shown (``kozel_testkit``)."""
    return new_match("street", hands, trump=trump)


def play(m: Match, *actions: str) -> None:
    for text in actions:
        m.apply_text(text)


def test_a_card_that_cannot_follow_names_the_rule_and_one_that_can_is_played() -> None:
    m = dealt("ziege", {0: "7♥ 7♠ 8♠ 9♠", 1: "A♥ Q♣ 7♦ 8♦"})
    m.apply_text("0 lead 7♥")
    assert tap(m, 1, [], Card.parse("Q♣")).refused == Rule.MUST_FOLLOW_SUIT
    assert tap(m, 1, [], Card.parse("A♥")).play == Action.parse("1 play A♥")
    assert tap(m, 1, [], Card.parse("9♠")).refused == Rule.NOT_IN_HAND
    assert tap(m, 2, [], m.view(2).hand[0]).refused == Refused.NOT_YET


def test_a_street_lead_of_several_is_built_then_confirmed() -> None:
    m = street({1: "6♠ 7♠ 8♠ 9♥"}, trump="7♦")
    first = tap(m, 1, [], Card.parse("6♠"))
    assert first.play is None and first.refused is None and first.chosen == cards("6♠")
    # A card that cannot join the set names the rule it breaks.
    assert tap(m, 1, cards("6♠"), Card.parse("9♥")).refused == Rule.LEAD_ONE_SUIT
    assert tap(m, 1, cards("6♠"), Card.parse("6♠")).chosen == ()  # chosen again: let go
    assert tap(m, 1, cards("6♠"), Card.parse("7♠")).chosen == cards("6♠ 7♠")
    # Even the whole suit, as big as a lead may be, waits for the confirm: a set is built.
    assert tap(m, 1, cards("6♠ 7♠"), Card.parse("8♠")).chosen == cards("6♠ 7♠ 8♠")
    # A card alone in its suit can only be led alone: played at once.
    assert tap(m, 1, [], Card.parse("9♥")).play == Action.parse("1 lead 9♥")


def test_the_prompt_of_a_lead_being_built_counts_its_cards() -> None:
    m = street({1: "6♠ 7♠ 8♠ 9♥"}, trump="7♦")
    view, legal = m.view(1), m.legal_actions(1)
    en, ru = get_translator("en"), get_translator("ru")
    assert "the button below plays it;" in hand_prompt(en, view, legal, cards("6♠"))
    assert "the button below plays them;" in hand_prompt(en, view, legal, cards("6♠ 7♠"))
    assert "разыграет её;" in hand_prompt(ru, view, legal, cards("6♠"))
    assert "разыграет их;" in hand_prompt(ru, view, legal, cards("6♠ 7♠"))


@pytest.mark.parametrize("lang", ["en", "be", "da", "de", "ja", "ru", "uk"])
def test_the_hand_and_a_taps_answer_word_a_selection_alike(lang: str) -> None:
    """One wording for a selection: the hand's prompt is the tap's answer, in every language;
    one card is "it" and two are "them"."""
    m = street({1: "6♠ 7♠ 8♠ 9♥"}, trump="7♦")
    view, legal = m.view(1), m.legal_actions(1)
    t = get_translator(lang)
    one, two = selection_hint(t, view, cards("6♠")), selection_hint(t, view, cards("6♠ 7♠"))
    assert hand_prompt(t, view, legal, cards("6♠")) == "👉 " + one
    assert hand_prompt(t, view, legal, cards("6♠ 7♠")) == "👉 " + two
    if lang not in ("ja", "de"):  # one word for "it" and "them" there ("sie", none)
        assert one.replace("6♠", "{c}") != two.replace("6♠ 7♠", "{c}")
    if lang == "en":
        assert one.startswith("Selected: 6♠ — the button below plays it;")


def test_an_answer_to_one_card_is_one_tap_unless_points_go_face_down() -> None:
    """Trump ♦. Seat 1 leads 9♠ against seat 2 (an opponent)."""
    m = street({1: "9♠ 6♣ 7♣ 8♣", 2: "10♠ A♥ 6♥ 7♦"}, trump="9♦")
    play(m, "1 lead 9♠")
    # A card that can beat an opponent's card beats at once (a trump, or higher in suit).
    assert tap(m, 2, [], Card.parse("7♦")).play == Action.parse("2 beat 7♦")
    assert tap(m, 2, [], Card.parse("10♠")).play == Action.parse("2 beat 10♠")
    # A card that cannot beat goes face down at once, unless it is an A, 10 or K.
    assert tap(m, 2, [], Card.parse("6♥")).play == Action.parse("2 discard 6♥")
    confirm = tap(m, 2, [], Card.parse("A♥"))
    assert confirm.play is None and confirm.chosen == cards("A♥")


def test_a_card_that_could_beat_the_partner_asks_what_to_do() -> None:
    """Seat 1 leads, seat 2 throws face down, seat 3 (seat 1's partner) may beat or discard."""
    m = street({1: "9♠ 6♣ 7♣ 8♣", 2: "6♥ A♥ 10♣ 8♥", 3: "A♠ 6♠ K♥ 9♥"}, trump="9♦")
    play(m, "1 lead 9♠", "2 discard 6♥")
    asked = tap(m, 3, [], Card.parse("A♠"))
    assert asked.play is None and asked.chosen == cards("A♠")
    assert tap(m, 3, [], Card.parse("6♠")).play == Action.parse("3 discard 6♠")  # cannot beat


def test_an_answer_to_several_cards_is_built_then_confirmed() -> None:
    m = street({1: "9♠ 8♠ 6♣ 7♣", 2: "6♥ 7♥ 8♥ 10♣"}, trump="9♦")
    play(m, "1 lead 9♠ 8♠")
    assert tap(m, 2, [], Card.parse("6♥")).chosen == cards("6♥")
    assert tap(m, 2, cards("6♥"), Card.parse("7♥")).chosen == cards("6♥ 7♥")  # no auto-discard
    too_many = tap(m, 2, cards("6♥ 7♥"), Card.parse("8♥"))
    assert too_many.refused == Rule.WRONG_CARD_COUNT


async def test_a_tap_on_a_card_that_cannot_be_played_says_which_rule_forbids_it(
    core: Core,
) -> None:
    """Plain ziege plays until a seat to move holds a card it may not play; tapping it
    answers with the rule, not with "cannot be played now", and changes nothing."""
    for _ in range(5):
        table = await seat_four(core, variant="ziege", deliver=False)
        for _ in range(40):
            match = core.matches.of(table)
            seat = match.to_move
            if seat is None:
                break
            dead = [c for c in match.view(seat).hand if match.why_not(seat, c) is not None]
            if dead:
                rule = match.why_not(seat, dead[0])
                assert rule is not None
                tapped = press(
                    table, Op.TOGGLE, PEOPLE[seat], version=match.ply, arg=encode_card(dead[0])
                )
                answer = await moves.toggle(core, tapped)
                assert answer.alert and answer.text == refusal_text(get_translator("en"), rule)
                assert rule in (
                    Rule.MUST_FOLLOW_SUIT,
                    Rule.MUST_PLAY_TRUMP,
                    Rule.TRUMP_LEAD_BANNED,
                    Rule.MUST_LEAD_RETURNED_CARD,
                    Rule.RETURN_MUST_BE_PLAIN,
                )
                assert (await reload(core, table)).version == table.version
                return
            action = match.legal_actions(seat)[0]
            arg = encode_action(action)
            played = await moves.act(
                core, press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=arg)
            )
            assert played.text.startswith("Played")
            table = await reload(core, table)
    pytest.fail("no card was ever out of play")
