"""docs/rules.md "Variant ziege", each rule from literal hands (dealer 0 leads the first trick)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from kozel_testkit import acts, hand, legal_set, new_match, play

from kozel_rules import (
    CardGiven,
    CardsPlayed,
    DealEnded,
    ExchangeMade,
    IllegalActionError,
    Match,
    QueenCaught,
    get_variant,
    parse_cards,
    public_event,
)
from kozel_rules.scoring import score_deal

ZIEGE = get_variant("ziege")
TRUMPS_LOW_TO_HIGH = [str(c) for c in parse_cards("8♣ 9♣ K♣ 10♣ A♣ J♦ J♥ J♠ J♣ Q♦ Q♥ Q♠ Q♣ 7♣")]
PLAIN_LOW_TO_HIGH = ["7", "8", "9", "K", "10", "A"]


def one_trick(lead: str, p1: str, p2: str, p3: str) -> Match:
    """Seat 0 leads ``lead`` (a spade); seats 1-3 play ``p1``-``p3``. Followers whose card
    is not a spade hold no spade (their other cards are hearts and diamonds)."""
    fillers = [f"{r}{s}" for s in "♥♦" for r in PLAIN_LOW_TO_HIGH]
    used = {lead, p1, p2, p3}
    fillers = [c for c in fillers if c not in used]
    hands = {}
    for seat, card in ((1, p1), (2, p2), (3, p3)):
        hands[seat] = " ".join([card, *(fillers.pop() for _ in range(3))])
    spare = [f"{r}♠" for r in PLAIN_LOW_TO_HIGH] + ["J♠", "Q♦", "K♣"]
    spare = [c for c in spare if c not in used]
    hands[0] = " ".join([lead, *spare[:3]])
    m = new_match("ziege", hands)
    play(m, f"0 lead {lead}", f"1 play {p1}", f"2 play {p2}", f"3 play {p3}")
    return m


def taker(m: Match) -> int:
    last = m.view(None).last_trick
    assert last is not None and last.taker is not None
    return last.taker


def test_the_trump_order_is_the_rules_list() -> None:
    assert [str(c) for c in ZIEGE.fixed_trumps] == TRUMPS_LOW_TO_HIGH


@pytest.mark.parametrize(("lower", "higher"), list(pairwise(TRUMPS_LOW_TO_HIGH)))
def test_each_trump_beats_the_one_below_it(lower: str, higher: str) -> None:
    # partners 1 and 3 play the two trumps (no queen can be caught between partners)
    assert taker(one_trick("7♠", lower, "8♥", higher)) == 3
    assert taker(one_trick("7♠", higher, "8♥", lower)) == 1


def test_the_seven_of_clubs_is_the_highest_card_of_the_game() -> None:
    assert taker(one_trick("A♠", "Q♠", "K♥", "7♣")) == 3


@pytest.mark.parametrize(("lower", "higher"), list(pairwise(PLAIN_LOW_TO_HIGH)))
def test_plain_cards_rank_7_8_9_k_10_a(lower: str, higher: str) -> None:
    assert taker(one_trick(f"{lower}♠", f"{higher}♠", "7♥", "7♦")) == 1
    assert taker(one_trick(f"{higher}♠", f"{lower}♠", "7♥", "7♦")) == 0


def test_plain_cards_of_other_suits_never_take_a_trick() -> None:
    assert taker(one_trick("7♠", "A♥", "A♦", "8♠")) == 3


def test_any_trump_beats_every_plain_card() -> None:
    assert taker(one_trick("A♠", "8♣", "10♠", "K♠")) == 1


def test_no_leader_may_lead_a_trump_while_holding_a_plain_card() -> None:
    m = new_match("ziege", {0: "7♠ Q♣ J♦ A♣", 1: "8♠ 9♠ K♠ 10♠", 2: "7♥ 8♥ 9♥ K♥"})
    assert legal_set(m) == acts("0 lead 7♠")
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("0 lead Q♣")
    assert err.value.rule == "trump-lead-banned"
    assert hand(m, 0) == {"7♠", "Q♣", "J♦", "A♣"}  # unchanged


def test_leader_with_only_trumps_exchanges_with_the_partner() -> None:
    m = new_match("ziege", {0: "Q♠ J♦ 8♣ A♣", 2: "7♠ K♠ 8♥ 9♦", 1: "9♥ 10♥ 7♥ 8♠"})
    assert m.phase == "give" and m.to_move == 0
    assert legal_set(m) == acts("0 give Q♠", "0 give J♦", "0 give 8♣", "0 give A♣")
    with pytest.raises(IllegalActionError):
        m.apply_text("0 lead Q♠")
    events = m.apply_text("0 give J♦")
    assert events == [CardGiven(0, 2, parse_cards("J♦")[0])]
    assert public_event(events[0]) == CardGiven(0, 2, None)
    assert m.phase == "return" and m.to_move == 2
    assert legal_set(m) == acts("2 return 7♠", "2 return K♠", "2 return 8♥", "2 return 9♦")
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("2 return J♦")
    assert err.value.rule == "return-must-be-plain"
    events = m.apply_text("2 return 8♥")
    made = events[0]
    assert isinstance(made, ExchangeMade) and made.given is not None and made.returned is not None
    assert public_event(made) == ExchangeMade(0, 2)
    assert m.phase == "forced-lead"
    assert legal_set(m) == acts("0 lead 8♥")
    assert "J♦" in hand(m, 2) and "8♥" in hand(m, 0)
    play(m, "0 lead 8♥")
    # J♥ is a trump, not a heart: seat 1 holds hearts and must follow with one
    assert legal_set(m) == acts("1 play 9♥", "1 play 10♥", "1 play 7♥")


def test_leader_and_partner_without_plain_cards_lead_a_trump() -> None:
    m = new_match("ziege", {0: "Q♠ J♦ 8♣ A♣", 2: "Q♥ 10♣ K♣ J♥", 1: "Q♦ 7♥ 8♥ 9♥"})
    assert m.phase == "lead"
    assert legal_set(m) == acts("0 lead Q♠", "0 lead J♦", "0 lead 8♣", "0 lead A♣")
    play(m, "0 lead 8♣")
    # a trump was led: a follower must play a trump if it can
    assert legal_set(m) == acts("1 play Q♦")


def test_queens_and_jacks_never_follow_their_printed_suit() -> None:
    # hearts led; seat 1 holds only J♥ and Q♥ of "hearts": both are trumps, so it may play
    # anything
    m = new_match("ziege", {0: "7♥ 7♠ 8♠ 9♠", 1: "J♥ Q♥ 7♦ 8♦"})
    play(m, "0 lead 7♥")
    assert legal_set(m) == acts("1 play J♥", "1 play Q♥", "1 play 7♦", "1 play 8♦")


def test_followers_must_follow_the_led_plain_suit() -> None:
    m = new_match("ziege", {0: "7♥ 7♠ 8♠ 9♠", 1: "A♥ Q♣ 7♦ 8♦"})
    play(m, "0 lead 7♥")
    assert legal_set(m) == acts("1 play A♥")
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("1 play Q♣")
    assert err.value.rule == "must-follow-suit"


def test_followers_use_play_not_beat_or_discard() -> None:
    m = new_match("ziege", {0: "7♥ 7♠ 8♠ 9♠", 1: "A♥ Q♣ 7♦ 8♦"})
    play(m, "0 lead 7♥")
    for text in ("1 beat A♥", "1 discard A♥"):
        with pytest.raises(IllegalActionError) as err:
            m.apply_text(text)
        assert err.value.rule == "verb-not-in-variant"


def _queen_match(first: str, second: str) -> Match:
    # seat 0 leads 7♠; seat 1 (void in spades) plays `first`, seat 2 plays `second`
    return new_match(
        "ziege",
        {0: "7♠ 8♠ 9♠ K♠", 1: f"{first} 7♥ 8♥ 9♥", 2: f"{second} 7♦ 8♦ 9♦"},
    )


@pytest.mark.parametrize(("first", "second"), [("Q♣", "7♣"), ("7♣", "Q♣")])
def test_queen_caught_by_the_seven_ends_the_deal_at_once(first: str, second: str) -> None:
    m = _queen_match(first, second)
    play(m, "0 lead 7♠", f"1 play {first}")
    events = m.apply_text(f"2 play {second}")
    queen_seat = 1 if first == "Q♣" else 2
    seven_seat = 3 - queen_seat
    assert QueenCaught(queen_seat=queen_seat, seven_seat=seven_seat) in events
    ended = next(e for e in events if isinstance(e, DealEnded))
    r = ended.result
    assert r.queen_caught and r.queen_side == queen_seat % 2
    assert r.card_points == (0, 0)
    assert r.tricks == (0, 0) and r.last_trick_seat is None
    award = [0, 0]
    award[queen_seat % 2] = 4
    assert r.defeat_points == tuple(award)
    assert m.defeat_points == tuple(award)
    assert m.deal_number == 2  # the next deal started at once; seat 3 never played


def test_queen_and_seven_from_partners_is_no_catch() -> None:
    m = new_match("ziege", {0: "7♠ 8♠ 9♠ K♠", 1: "Q♣ 7♥ 8♥ 9♥", 3: "7♣ 7♦ 8♦ 9♦"})
    play(m, "0 lead 7♠", "1 play Q♣", "2 play 10♠", "3 play 7♣")
    assert m.deal_number == 1
    last = m.view(None).last_trick
    assert last is not None and last.taker == 3


def test_scoring_61_wins_and_the_losers_get_2() -> None:
    scoring = ZIEGE.scoring_for(2)
    assert score_deal(scoring, [61, 59], [4, 4], [0, 1]) == ([0, 2], False)
    assert score_deal(scoring, [0, 120], [0, 8], [0, 1]) == ([2, 0], False)  # flat 2


def test_scoring_60_60_is_eggs_and_nobody_scores() -> None:
    assert score_deal(ZIEGE.scoring_for(2), [60, 60], [4, 4], [0, 1]) == ([0, 0], True)


def test_next_deal_is_dealt_and_led_by_the_dealers_left() -> None:
    m = Match.new("ziege", seed=4, dealer=2)
    number = m.deal_number
    while m.deal_number == number:
        acts_now = m.legal_actions()
        m.apply(acts_now[0])
    assert m.dealer == 3
    trick = m.view(None).trick
    assert trick is not None and trick.due_leader == 3


def test_played_cards_event_and_view_name_the_card() -> None:
    m = new_match("ziege", {0: "7♥ 7♠ 8♠ 9♠", 1: "A♥ Q♣ 7♦ 8♦"})
    events = m.apply_text("0 lead 7♥")
    assert events == [CardsPlayed(0, events[0].verb, parse_cards("7♥"), 1)]  # type: ignore[union-attr]
    trick = m.view(3).trick
    assert trick is not None and [str(c) for c in trick.plays[0].cards] == ["7♥"]
