"""The tap rule (``bot.service.tap``): what a tap on a card does, from literal hands; and the
hand's card buttons follow it, naming the rule when a card cannot be played."""

from __future__ import annotations

import pytest
from service_fakes import PEOPLE, FakeMessenger, make_core, press, reload, seat_four

from bot.callback import Op, encode_action, encode_card
from bot.i18n import get_translator
from bot.render.refusals import Refused, refusal_text
from bot.service import moves
from bot.service.core import Core
from bot.service.tap import tap
from bot.storage import SqliteStorage
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


def test_a_card_that_cannot_follow_names_the_rule_and_one_that_can_is_played() -> None:
    m = dealt("ziege", {0: "7♥ 7♠ 8♠ 9♠", 1: "A♥ Q♣ 7♦ 8♦"})
    m.apply_text("0 lead 7♥")
    assert tap(m, 1, [], Card.parse("Q♣")).refused == Rule.MUST_FOLLOW_SUIT
    assert tap(m, 1, [], Card.parse("A♥")).play == Action.parse("1 play A♥")
    assert tap(m, 1, [], Card.parse("9♠")).refused == Rule.NOT_IN_HAND
    assert tap(m, 2, [], m.view(2).hand[0]).refused == Refused.NOT_YET


def test_a_street_lead_is_chosen_card_by_card() -> None:
    m = dealt("street", {1: "6♠ 7♠ 8♠ 9♥"})
    first = tap(m, 1, [], Card.parse("6♠"))
    assert first.play is None and first.refused is None and first.chosen == cards("6♠")
    assert tap(m, 1, cards("6♠"), Card.parse("9♥")).refused == Refused.NOT_WITH
    assert tap(m, 1, cards("6♠"), Card.parse("6♠")).chosen == ()  # chosen again: let go
    assert tap(m, 1, cards("6♠"), Card.parse("7♠")).chosen == cards("6♠ 7♠")
    # The whole suit chosen, as big as a lead may be: played at once.
    assert tap(m, 1, cards("6♠ 7♠"), Card.parse("8♠")).play == Action.parse("1 lead 6♠ 7♠ 8♠")
    # A card alone in its suit can only be led alone: played at once.
    assert tap(m, 1, [], Card.parse("9♥")).play == Action.parse("1 lead 9♥")


@pytest.fixture
def core(storage: SqliteStorage, messenger: FakeMessenger) -> Core:
    return make_core(storage, messenger)


async def test_a_tap_on_a_card_that_cannot_be_played_says_which_rule_forbids_it(
    core: Core,
) -> None:
    """Plain ziege plays until a seat to move holds a card it may not play; tapping it
    answers with the rule, not with "cannot be played now", and changes nothing."""
    for _ in range(5):
        table = await seat_four(core, variant="ziege", deliver=False)
        for _ in range(40):
            match = core.match_of(table)
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
