"""docs/rules.md "Dealing" and "Who deals and leads", from literal decks."""

from __future__ import annotations

import pytest
from kozel_testkit import build_deck, hand, new_match, play

from kozel_rules import Card, Match, Suit, get_variant
from kozel_rules.errors import RecordError


def test_cards_are_dealt_one_at_a_time_from_the_dealers_left_dealer_last() -> None:
    v = get_variant("street")
    deck = [str(c) for c in v.deck]  # index order: 6♠ 7♠ 8♠ …
    m = Match.new("street", dealer=2, decks=[deck])
    # seat 3 (D+1) gets deck[0], deck[4], deck[8], deck[12]; the dealer (2) gets every 4th from 3
    assert hand(m, 3) == {deck[0], deck[4], deck[8], deck[12]}
    assert hand(m, 0) == {deck[1], deck[5], deck[9], deck[13]}
    assert hand(m, 1) == {deck[2], deck[6], deck[10], deck[14]}
    assert hand(m, 2) == {deck[3], deck[7], deck[11], deck[15]}
    assert m.view(None).stock == 20


def test_street_trump_card_is_the_middle_of_the_stock_and_stays_in_place() -> None:
    deck = build_deck(
        "street",
        {1: "A♠ K♠ Q♠ J♠", 2: "A♦ K♦ Q♦ J♦", 3: "A♣ K♣ Q♣ J♣", 0: "9♠ 8♠ 7♠ 6♠"},
        trump="7♥",
    )
    assert deck[16 + 10] == "7♥"  # position ⌊20/2⌋ = 10 of the stock, the 11th card
    m = Match.new("street", dealer=0, decks=[deck])
    view = m.view(None)
    assert view.trump is Suit.HEARTS
    assert view.trump_card == Card.parse("7♥")
    assert not view.trump_card_drawn
    assert view.stock == 20


def test_street_shown_trump_card_is_drawn_in_its_turn_and_stays_known() -> None:
    # the shown card is 11th in the stock: three one-card tricks draw 12 cards
    m = new_match(
        "street",
        {1: "A♠ K♠ Q♠ J♠", 2: "A♦ K♦ Q♦ J♦", 3: "A♣ K♣ Q♣ J♣", 0: "9♠ 8♠ 7♠ 6♠"},
        trump="7♥",
    )
    for _ in range(3):
        leader = m.to_move
        assert leader is not None
        lead = sorted(m.legal_actions(leader), key=lambda a: len(a.cards))[0]
        m.apply(lead)
        for _ in range(3):
            seat = m.to_move
            discard = next(a for a in m.legal_actions(seat) if a.verb == "discard")
            m.apply(discard)
    view = m.view(None)
    assert view.stock == 8
    assert view.trump_card_drawn
    assert view.trump_card == Card.parse("7♥")  # street: the shown card stays known
    holders = [s for s in range(4) if "7♥" in hand(m, s)]
    assert len(holders) == 1


def test_moscow_trump_card_is_turned_put_under_the_stock_and_drawn_last() -> None:
    m = new_match(
        "moscow",
        {1: "A♠ K♠ Q♠ J♠", 2: "A♦ K♦ Q♦ J♦", 3: "A♣ K♣ Q♣ J♣", 0: "9♠ 8♠ 7♠ 10♠"},
        trump="7♥",
    )
    view = m.view(None)
    assert view.trump is Suit.HEARTS
    assert view.trump_card == Card.parse("7♥")
    assert view.stock == 20  # the turned card is part of the stock, at its bottom
    st = m._st
    assert st.stock[0] == 1 << int(Card.parse("7♥"))  # the stock list's end is its top


def test_moscow_turned_card_is_hidden_once_drawn() -> None:
    m = Match.new("moscow", players=2, seed=3, dealer=0)
    trump_card = m.view(None).trump_card
    assert trump_card is not None
    while m.view(None).stock:
        seat = m.to_move
        acts = m.legal_actions(seat)
        m.apply(min(acts, key=lambda a: (a.verb != "discard", len(a.cards))))
    view = m.view(None)
    assert view.trump_card is None and view.trump_card_drawn
    assert view.trump is trump_card.suit


def test_ziege_has_no_trump_card_and_a_32_card_deck() -> None:
    m = Match.new("ziege", seed=1, dealer=0)
    view = m.view(None)
    assert view.trump is None and view.trump_card is None
    assert view.stock == 32 - 16
    assert all(Card.parse(c).rank != 0 for s in range(4) for c in hand(m, s))  # no sixes


@pytest.mark.parametrize(("players", "stock"), [(2, 28), (3, 24), (4, 20)])
def test_moscow_stock_is_a_multiple_of_the_player_count(players: int, stock: int) -> None:
    m = Match.new("moscow", players=players, seed=5)
    assert m.view(None).stock == stock
    assert stock % players == 0
    assert all(size == 4 for size in m.view(None).hand_sizes)


def test_refill_starts_with_the_trick_winner_and_goes_in_rounds() -> None:
    # seat 1 leads K♠ 9♠, seat 2 beats with A♠ 10♠ and takes the trick; the stock top is
    # 6♥ 7♥ 8♥ 9♥ 10♥ J♥ Q♥ K♥: the rounds go 2 3 0 1, 2 3 0 1.
    m = new_match(
        "street",
        {1: "K♠ 9♠ 6♣ 7♣", 2: "A♠ 10♠ 6♦ 7♦", 3: "8♣ 9♣ 8♦ 9♦", 0: "10♣ J♣ 10♦ J♦"},
        stock="6♥ 7♥ 8♥ 9♥ 10♥ J♥ Q♥ K♥",
        trump="A♥",
    )
    play(m, "1 lead K♠ 9♠", "2 beat A♠ 10♠", "3 discard 8♣ 9♣", "0 discard 10♣ J♣")
    assert hand(m, 2) >= {"6♥", "10♥"}
    assert hand(m, 3) >= {"7♥", "J♥"}
    assert hand(m, 0) >= {"8♥", "Q♥"}
    assert hand(m, 1) >= {"9♥", "K♥"}
    assert m.view(None).hand_sizes == (4, 4, 4, 4)
    assert m.to_move == 2  # the winner leads the next trick


def test_ziege_dealer_leads_the_first_trick() -> None:
    m = Match.new("ziege", seed=2, dealer=3)
    assert m.to_move == 3 or m.phase == "give"
    assert m.view(None).trick is not None
    assert m.view(None).trick.due_leader == 3  # type: ignore[union-attr]


@pytest.mark.parametrize("variant", ["street", "moscow"])
def test_the_seat_after_the_dealer_leads_the_first_deal(variant: str) -> None:
    m = Match.new(variant, seed=2, dealer=3)
    assert m.to_move == 0


def test_a_bad_deck_is_a_record_error() -> None:
    deck = [str(c) for c in get_variant("street").deck]
    with pytest.raises(RecordError):
        Match.new("street", decks=[deck[:-1]])
    with pytest.raises(RecordError):
        Match.new("street", decks=[[*deck[:-1], deck[0]]])
    with pytest.raises(RecordError):
        Match.new("ziege", decks=[deck[:32]])  # holds sixes
    with pytest.raises(RecordError):
        Match.new("street", players=3)
    with pytest.raises(RecordError):
        Match.new("nonsense")


def test_later_decks_are_shuffled_deterministically_from_the_seed() -> None:
    a = Match.new("street", seed=11)
    b = Match.new("street", seed=11)
    c = Match.new("street", seed=12)
    assert a.to_json()["decks"] == b.to_json()["decks"]
    assert a.to_json()["decks"] != c.to_json()["decks"]
    assert a.dealer == b.dealer
