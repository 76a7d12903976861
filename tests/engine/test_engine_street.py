"""docs/rules.md "Variant street" and worked examples 1-3 (trump ♥), from literal hands.

Dealer 0, so seat 1 leads the first trick; the shown trump card is 8♥ unless said.
"""

from __future__ import annotations

from itertools import pairwise

import pytest
from kozel_testkit import act, acts, hand, legal_set, new_match, play, state_of

from kozel_rules import (
    CardsPlayed,
    CardsReturned,
    IllegalActionError,
    Match,
    TrickTaken,
    Verb,
    get_variant,
    parse_cards,
    public_event,
)
from kozel_rules._tables import mask_of
from kozel_rules.scoring import score_deal

STREET = get_variant("street")
RANKS_LOW_TO_HIGH = ["6", "7", "8", "9", "J", "Q", "K", "10", "A"]


def street(hands: dict[int, str], trump: str = "8♥", **kw: str) -> Match:
    return new_match("street", hands, trump=trump, **kw)


def beats(m: Match) -> set[str]:
    return {str(a) for a in m.legal_actions() if a.verb == Verb.BEAT}


def test_worked_example_1_pairing_trumps_and_a_forced_discard() -> None:
    m = street({1: "K♠ 9♠ 6♣ 7♣", 2: "10♠ A♠ 8♣ 9♦", 3: "6♥ 7♥ J♦ 10♣", 0: "A♦ Q♣ 8♦ 9♣"})
    play(m, "1 lead K♠ 9♠")
    assert beats(m) == acts("2 beat 10♠ A♠")
    play(m, "2 beat 10♠ A♠")
    assert beats(m) == acts("3 beat 6♥ 7♥")  # trumps beat non-trumps
    play(m, "3 beat 6♥ 7♥")
    trick = m.view(None).trick
    assert trick is not None and trick.top_seat == 3
    # seat 0 cannot beat the top set 6♥ 7♥: it may only discard
    assert beats(m) == set()
    assert {a.verb for a in m.legal_actions(0)} == {Verb.DISCARD}
    events = m.apply_text("0 discard A♦ Q♣")
    assert TrickTaken(seat=3, side=1, cards=8) in events
    pile = state_of(m).piles[3]
    assert pile == mask_of([int(c) for c in parse_cards("9♠ K♠ 10♠ A♠ 6♥ 7♥ A♦ Q♣")])


def test_worked_example_2_other_plain_suits_do_not_beat() -> None:
    m = street({1: "Q♦ 6♣ 7♣ 8♣", 2: "A♣ K♦ 6♥ 9♠"})
    play(m, "1 lead Q♦")
    assert beats(m) == acts("2 beat K♦", "2 beat 6♥")


def test_worked_example_3_one_to_one_pairing() -> None:
    m = street({1: "10♠ 6♠ 6♣ 7♣", 2: "A♠ 7♥ 7♠ K♠"})
    play(m, "1 lead 10♠ 6♠")
    got = beats(m)
    for reply in ("A♠ 7♥", "A♠ 7♠", "A♠ K♠"):
        assert act(f"2 beat {reply}") in got
    assert act("2 beat K♠ 7♠") not in got  # only the A♠ or a trump beats the 10♠
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("2 beat K♠ 7♠")
    assert err.value.rule == "does-not-beat"
    # every pair but K♠ 7♠ beats (7♥ is a trump)
    assert got == acts(
        "2 beat A♠ 7♥", "2 beat A♠ 7♠", "2 beat A♠ K♠", "2 beat 7♥ 7♠", "2 beat 7♥ K♠"
    )


@pytest.mark.parametrize(("lower", "higher"), list(pairwise(RANKS_LOW_TO_HIGH)))
def test_rank_order_6_7_8_9_j_q_k_10_a(lower: str, higher: str) -> None:
    m = street({1: f"{lower}♠ 6♣ 7♣ 8♣", 2: f"{higher}♠ 9♣ 10♣ J♣"})
    play(m, f"1 lead {lower}♠")
    assert beats(m) == acts(f"2 beat {higher}♠")
    m = street({1: f"{higher}♠ 6♣ 7♣ 8♣", 2: f"{lower}♠ 9♣ 10♣ J♣"})
    play(m, f"1 lead {higher}♠")
    assert beats(m) == set()


def test_a_lead_is_one_to_three_cards_of_one_suit() -> None:
    m = street({1: "K♠ 9♠ 6♠ 7♣"})
    assert legal_set(m) == acts(
        "1 lead K♠",
        "1 lead 9♠",
        "1 lead 6♠",
        "1 lead 7♣",
        "1 lead K♠ 9♠",
        "1 lead K♠ 6♠",
        "1 lead 9♠ 6♠",
        "1 lead K♠ 9♠ 6♠",
    )
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("1 lead K♠ 7♣")
    assert err.value.rule == "lead-one-suit"


def test_four_cards_of_one_suit_are_a_molodka_never_a_lead() -> None:
    m = street({1: "J♣ Q♣ K♣ A♣"})
    assert "1 molodka J♣ Q♣ K♣ A♣" in legal_set(m)
    assert not any(len(a.cards) == 4 and a.verb == Verb.LEAD for a in m.legal_actions())
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("1 lead J♣ Q♣ K♣ A♣")
    assert err.value.rule == "special-is-not-a-lead"


def test_responders_play_the_same_number_of_cards() -> None:
    m = street({1: "K♠ 9♠ 6♣ 7♣", 2: "10♠ A♠ 8♣ 9♦"})
    play(m, "1 lead K♠ 9♠")
    assert all(len(a.cards) == 2 for a in m.legal_actions())
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("2 beat A♠")
    assert err.value.rule == "wrong-card-count"


def test_there_is_no_duty_to_follow_or_beat() -> None:
    m = street({1: "9♠ 6♣ 7♣ 8♣", 2: "A♠ 10♥ 9♦ 6♦"})
    play(m, "1 lead 9♠")
    assert legal_set(m) == acts(
        "2 beat A♠",
        "2 beat 10♥",
        "2 discard A♠",
        "2 discard 10♥",
        "2 discard 9♦",
        "2 discard 6♦",
    )
    play(m, "2 discard 10♥")  # a trump, thrown away face down


def test_discards_are_face_down_for_everyone_but_their_owner() -> None:
    m = street({1: "9♠ 6♣ 7♣ 8♣", 2: "A♠ 10♥ 9♦ 6♦"})
    play(m, "1 lead 9♠")
    events = m.apply_text("2 discard 6♦")
    assert events[0] == CardsPlayed(2, Verb.DISCARD, parse_cards("6♦"), 1)
    assert public_event(events[0]) == CardsPlayed(2, Verb.DISCARD, (), 1)
    for seat in (None, 0, 1, 3):
        trick = m.view(seat).trick
        assert trick is not None
        assert trick.plays[1].cards == () and trick.plays[1].count == 1
    own = m.view(2).trick
    assert own is not None and [str(c) for c in own.plays[1].cards] == ["6♦"]


def test_the_owner_of_the_top_set_takes_the_trick() -> None:
    m = street({1: "9♠ 6♣ 7♣ 8♣", 2: "A♠ 10♥ 9♦ 6♦", 3: "K♠ Q♦ J♦ 7♦", 0: "6♠ 7♠ 8♠ J♠"})
    play(m, "1 lead 9♠", "2 beat A♠", "3 discard K♠")
    events = m.apply_text("0 discard 6♠")
    assert TrickTaken(seat=2, side=0, cards=4) in events
    assert m.to_move == 2


def test_molodka_before_the_lead_takes_the_lead_out_of_turn() -> None:
    m = street({1: "K♠ 9♠ 8♦ 10♥", 3: "6♥ 7♥ 8♥ 9♥", 0: "6♠ 7♠ 8♠ 6♣"}, trump="A♦")
    assert "3 molodka 6♥ 7♥ 8♥ 9♥" in legal_set(m)
    play(m, "3 molodka 6♥ 7♥ 8♥ 9♥")
    # the trick continues clockwise from the declarer; the seat due to lead responds in turn
    assert m.to_move == 0
    trick = m.view(None).trick
    assert trick is not None and trick.leader == 3 and trick.due_leader == 1
    play(m, "0 discard 6♠ 7♠ 8♠ 6♣")
    assert m.to_move == 1


def test_molodka_after_plays_returns_the_cards_to_their_owners() -> None:
    m = street(
        {1: "K♠ 9♠ 10♥ 8♦", 2: "10♠ A♠ Q♦ J♣", 3: "7♠ J♥ 6♦ 7♣", 0: "6♥ 7♥ 8♥ 9♥"}, trump="A♦"
    )
    play(m, "1 lead K♠ 9♠", "2 beat 10♠ A♠", "3 discard 6♦ 7♣")
    events = m.apply_text("0 molodka 6♥ 7♥ 8♥ 9♥")
    assert events[0] == CardsReturned(declarer=0, verb=Verb.MOLODKA)
    assert hand(m, 1) == {"K♠", "9♠", "10♥", "8♦"}
    assert hand(m, 2) == {"10♠", "A♠", "Q♦", "J♣"}
    assert hand(m, 3) == {"7♠", "J♥", "6♦", "7♣"}
    assert m.to_move == 1
    trick = m.view(None).trick
    assert trick is not None and len(trick.plays) == 1  # only the plays since the special


def test_a_molodka_is_overridden_only_by_a_strictly_nearer_seat() -> None:
    # due to lead: seat 1. Distances: 1→0, 2→1, 3→2, 0→3.
    m = street(
        {1: "K♠ 9♠ 8♦ 10♥", 2: "6♦ 7♦ 9♦ 10♦", 3: "6♥ 7♥ 8♥ 9♥", 0: "6♠ 7♠ 8♠ 10♠"}, trump="A♦"
    )
    play(m, "1 lead 9♠", "3 molodka 6♥ 7♥ 8♥ 9♥")
    specials = {str(a) for a in m.legal_actions() if a.verb == Verb.MOLODKA}
    assert specials == acts("2 molodka 6♦ 7♦ 9♦ 10♦")  # seat 0 (distance 3) is farther
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("0 molodka 6♠ 7♠ 8♠ 10♠")
    assert err.value.rule == "override-not-nearer"
    play(m, "2 molodka 6♦ 7♦ 9♦ 10♦")
    assert m.to_move == 3


def test_the_seat_due_to_lead_can_take_the_lead_back_with_its_own_molodka() -> None:
    m = street({1: "J♣ Q♣ K♣ A♣", 3: "6♥ 7♥ 8♥ 9♥", 2: "6♦ 7♦ 9♦ 10♦"}, trump="A♦")
    play(m, "1 lead J♣ Q♣ K♣", "3 molodka 6♥ 7♥ 8♥ 9♥", "1 molodka J♣ Q♣ K♣ A♣")
    # at distance 0 nobody is nearer: no further molodka is offered
    assert not any(a.verb.is_special for a in m.legal_actions())
    assert m.to_move == 2


@pytest.mark.parametrize(
    ("points", "tricks", "award"),
    [
        ((61, 59), (3, 4), [0, 2]),
        ((89, 31), (5, 2), [0, 2]),
        ((90, 30), (6, 1), [0, 4]),
        ((120, 0), (7, 1), [0, 4]),  # a trick of discards only is still a trick
        ((120, 0), (8, 0), [0, 6]),
        ((30, 90), (1, 5), [4, 0]),
    ],
)
def test_scoring_tiers_2_4_6(
    points: tuple[int, int], tricks: tuple[int, int], award: list[int]
) -> None:
    assert score_deal(STREET.scoring_for(2), points, tricks, [0, 1]) == (award, False)


def test_60_60_is_eggs_and_nobody_scores() -> None:
    assert score_deal(STREET.scoring_for(2), (60, 60), (4, 4), [0, 1]) == ([0, 0], True)


def test_the_last_tricks_taker_leads_the_next_deal_and_the_seat_before_deals() -> None:
    m = street({1: "K♠ 9♠ 6♣ 7♣"})
    while m.deal_number == 1:
        m.apply(m.legal_actions(m.to_move)[0])
    last = m.deal_results[0].last_trick_seat
    assert last is not None
    assert m.deal_results[0].first_leader == 1
    trick = m.view(None).trick
    assert trick is not None and trick.due_leader == last
    assert m.dealer == (last - 1) % 4
