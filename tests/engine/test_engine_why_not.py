"""``Match.why_not``: the rule that keeps a card of a hand out of every legal action."""

from __future__ import annotations

import random

from kozel_testkit import new_match, play

from kozel_rules import Card, Match, Rule


def card(text: str) -> Card:
    return Card.parse(text)


def test_a_follower_who_holds_the_led_suit_must_follow_it() -> None:
    m = new_match("ziege", {0: "7♥ 7♠ 8♠ 9♠", 1: "A♥ Q♣ 7♦ 8♦"})
    play(m, "0 lead 7♥")
    assert m.why_not(1, card("Q♣")) == Rule.MUST_FOLLOW_SUIT
    assert m.why_not(1, card("7♦")) == Rule.MUST_FOLLOW_SUIT
    assert m.why_not(1, card("A♥")) is None


def test_a_follower_who_holds_a_trump_must_play_one_on_a_trump_lead() -> None:
    m = new_match("ziege", {0: "Q♠ J♦ 8♣ A♣", 2: "Q♥ 10♣ K♣ J♥", 1: "Q♦ 7♥ 8♥ 9♥"})
    play(m, "0 lead 8♣")
    assert m.why_not(1, card("7♥")) == Rule.MUST_PLAY_TRUMP
    assert m.why_not(1, card("Q♦")) is None


def test_a_leader_with_a_plain_card_may_not_lead_a_trump() -> None:
    m = new_match("ziege", {0: "7♠ Q♣ J♦ A♣", 1: "8♠ 9♠ K♠ 10♠", 2: "7♥ 8♥ 9♥ K♥"})
    assert m.why_not(0, card("Q♣")) == Rule.TRUMP_LEAD_BANNED
    assert m.why_not(0, card("7♠")) is None


def test_the_exchange_names_what_it_asks_for() -> None:
    m = new_match("ziege", {0: "Q♠ J♦ 8♣ A♣", 2: "7♠ K♠ 8♥ 9♦", 1: "9♥ 10♥ 7♥ 8♠"})
    assert all(m.why_not(0, c) is None for c in m.view(0).hand)  # any trump may be given
    play(m, "0 give J♦")
    assert m.why_not(2, card("J♦")) == Rule.RETURN_MUST_BE_PLAIN
    assert m.why_not(2, card("8♥")) is None
    play(m, "2 return 8♥")
    assert m.why_not(0, card("Q♠")) == Rule.MUST_LEAD_RETURNED_CARD
    assert m.why_not(0, card("8♥")) is None


def test_cards_out_of_turn_out_of_hand_or_out_of_the_table() -> None:
    m = new_match("ziege", {0: "7♥ 7♠ 8♠ 9♠", 1: "A♥ Q♣ 7♦ 8♦"})
    assert m.why_not(1, card("A♥")) == Rule.NOT_YOUR_TURN
    assert m.why_not(0, card("A♥")) == Rule.NOT_IN_HAND
    assert m.why_not(4, card("A♥")) == Rule.NO_SUCH_SEAT


def test_in_street_every_card_held_goes_into_some_play_on_the_seats_turn() -> None:
    """A street or moscow answer may always discard: no card of the seat to move is dead."""
    m = new_match("street", {1: "6♠ 7♠ 8♠ 9♥", 2: "A♦ K♦ 10♣ 6♣"}, trump="7♦")
    play(m, "1 lead 6♠ 7♠")
    assert m.to_move == 2
    assert [m.why_not(2, c) for c in m.view(2).hand] == [None] * 4


def test_a_finished_match_refuses_every_card() -> None:
    m = Match.new("moscow", players=2, seed=3)
    rng = random.Random(3)
    while not m.is_over:
        m.apply(rng.choice(m.legal_actions()))
    assert m.why_not(0, card("A♠")) == Rule.MATCH_OVER


def test_cards_that_go_into_plays_only_apart_name_the_rule_of_the_set() -> None:
    """A card that may be played, tried with cards it cannot go with: the rule of the set."""
    m = new_match("street", {1: "6♠ 7♠ 8♠ 9♥", 2: "A♦ K♦ 10♣ 6♣"}, trump="7♦")
    assert m.why_not(1, card("9♥")) is None
    assert m.why_not(1, card("9♥"), [card("6♠")]) == Rule.LEAD_ONE_SUIT
    assert m.why_not(1, card("8♠"), [card("6♠"), card("7♠")]) is None
    play(m, "1 lead 6♠ 7♠")
    assert m.why_not(2, card("6♣"), [card("A♦"), card("K♦")]) == Rule.WRONG_CARD_COUNT
    assert m.why_not(2, card("6♣"), [card("A♦")]) is None
