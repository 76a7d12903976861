"""docs/rules.md "Variant moscow" and worked example 4, from literal hands (dealer 0)."""

from __future__ import annotations

import pytest
from kozel_testkit import acts, legal_set, new_match, play

from kozel_rules import IllegalActionError, Match, Verb, get_variant, parse_cards
from kozel_rules._tables import mask_of, tables_for
from kozel_rules.scoring import score_deal

MOSCOW = get_variant("moscow")


def moscow(hands: dict[int, str], trump: str = "9♦", players: int = 4) -> Match:
    return new_match("moscow", hands, trump=trump, players=players)


def beats(m: Match) -> set[str]:
    return {str(a) for a in m.legal_actions() if a.verb == Verb.BEAT}


def test_six_of_spades_beats_a_trump_ace() -> None:
    m = moscow({1: "A♦ 7♣ 8♣ 9♣", 2: "6♠ 8♥ 9♥ J♥"})
    play(m, "1 lead A♦")
    assert beats(m) == acts("2 beat 6♠")


def test_nothing_beats_the_six_of_spades() -> None:
    m = moscow({1: "6♠ 7♣ 8♣ 9♣", 2: "A♠ A♦ 10♦ 7♠"})
    play(m, "1 lead 6♠")
    assert beats(m) == set()


def test_six_of_spades_counts_as_a_spade_in_a_lead() -> None:
    m = moscow({1: "6♠ 7♠ 8♥ 9♣"})
    assert acts("1 lead 6♠ 7♠") <= legal_set(m)
    with pytest.raises(IllegalActionError):
        m.apply_text("1 lead 6♠ 8♥")


def test_worked_example_4_a_moscow_nothing_can_beat() -> None:
    m = moscow({1: "A♥ 10♣ A♦ 6♠", 2: "A♠ K♦ Q♦ J♦", 3: "10♠ K♠ Q♠ 7♦"})
    assert acts("1 moscow A♥ 10♣ A♦ 6♠") <= legal_set(m)
    play(m, "1 moscow A♥ 10♣ A♦ 6♠")
    assert beats(m) == set()
    assert {a.verb for a in m.legal_actions(2)} == {Verb.DISCARD}


@pytest.mark.parametrize(
    ("cards", "kind"),
    [
        ("A♥ 10♣ A♦ 6♠", "moscow"),
        ("A♠ A♥ A♦ A♣", "moscow"),
        ("A♥ 10♥ 10♦ 10♣", "moscow"),
        ("10♠ 10♥ 10♦ 6♠", None),  # no ace
        ("A♥ 10♥ K♦ 10♣", None),  # a king
        ("6♥ 7♥ 8♥ 9♥", "molodka"),
        ("6♥ 9♥ K♥ 6♠", "molodka"),  # three of one suit and the 6♠
        ("7♠ 8♠ 9♠ 6♠", "molodka"),  # four spades, the 6♠ among them
        ("6♥ 9♥ K♥ 7♠", None),
        ("6♥ 9♥ 6♦ 6♠", None),
    ],
)
def test_special_leads(cards: str, kind: str | None) -> None:
    tb = tables_for(MOSCOW)
    code = tb.special_kind(mask_of([int(c) for c in parse_cards(cards)]))
    got = MOSCOW.specials[code - 1].value if code else None
    assert got == kind


def test_street_has_no_moscow_and_no_wild_six() -> None:
    tb = tables_for(get_variant("street"))
    assert tb.special_kind(mask_of([int(c) for c in parse_cards("A♥ 10♣ A♦ 6♠")])) == 0
    assert tb.special_kind(mask_of([int(c) for c in parse_cards("6♥ 9♥ K♥ 6♠")])) == 0


def test_a_four_card_special_is_written_with_its_verb_never_lead() -> None:
    m = moscow({1: "6♠ 7♠ 9♠ J♠"})
    assert acts("1 molodka 6♠ 7♠ 9♠ J♠") <= legal_set(m)
    with pytest.raises(IllegalActionError):
        m.apply_text("1 lead 6♠ 7♠ 9♠ J♠")


def test_a_moscow_overrides_a_molodka_of_the_seat_due_to_lead() -> None:
    m = moscow({1: "6♥ 7♥ 8♥ 9♥", 2: "A♠ 10♠ A♣ 10♣", 3: "6♠ A♥ A♦ 10♥", 0: "J♣ Q♣ K♣ 9♣"})
    play(m, "1 molodka 6♥ 7♥ 8♥ 9♥")
    specials = {str(a) for a in m.legal_actions() if a.verb.is_special}
    # any Moscow, however far; no Molodka (seat 1 is at distance 0)
    assert specials == acts("2 moscow A♠ 10♠ A♣ 10♣", "3 moscow 6♠ A♥ A♦ 10♥")
    play(m, "3 moscow 6♠ A♥ A♦ 10♥")
    specials = {str(a) for a in m.legal_actions() if a.verb.is_special}
    # a Moscow only by a nearer seat's Moscow; a Molodka never overrides a Moscow
    assert specials == acts("2 moscow A♠ 10♠ A♣ 10♣")
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("1 molodka 6♥ 7♥ 8♥ 9♥")
    assert err.value.rule == "molodka-cannot-override-moscow"
    play(m, "2 moscow A♠ 10♠ A♣ 10♣")
    assert not any(a.verb.is_special for a in m.legal_actions())


@pytest.mark.parametrize(
    ("points", "tricks", "award", "eggs"),
    [
        ((64, 56), (8, 7), [0, 2], False),
        ((89, 31), (9, 6), [0, 2], False),
        ((90, 30), (10, 5), [0, 4], False),
        ((120, 0), (16, 0), [0, 6], False),
        ((60, 60), (8, 8), [2, 2], True),  # 60:60: both get 2
    ],
)
def test_scoring_two_sides(
    points: tuple[int, int], tricks: tuple[int, int], award: list[int], eggs: bool
) -> None:
    assert score_deal(MOSCOW.scoring_for(2), points, tricks, [0, 1]) == (award, eggs)


@pytest.mark.parametrize(
    ("points", "tricks", "award"),
    [
        ((80, 21, 19), (5, 2, 1), [0, 2, 4]),
        ((100, 20, 0), (7, 2, 0), [0, 4, 6]),
        ((52, 52, 16), (3, 3, 2), [2, 2, 4]),  # two tie for the most: each gets 2
        ((40, 40, 40), (3, 3, 3), [2, 2, 2]),
        ((60, 0, 60), (3, 0, 3), [2, 6, 2]),
    ],
)
def test_scoring_three_players(
    points: tuple[int, int, int], tricks: tuple[int, int, int], award: list[int]
) -> None:
    assert score_deal(MOSCOW.scoring_for(3), points, tricks, [0, 1, 2]) == (award, False)


def _play_deal(m: Match) -> None:
    number = m.deal_number
    while m.deal_number == number and not m.is_over:
        seat = m.to_move
        m.apply(m.legal_actions(seat)[0])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_deals_winner_deals_next(players: int) -> None:
    for seed in range(6):
        m = Match.new("moscow", players=players, seed=seed, dealer=seed % players)
        dealer = m.dealer
        _play_deal(m)
        r = m.deal_results[0]
        best = max(r.card_points)
        order = [(dealer + 1 + i) % players for i in range(players)]
        winner = next(s for s in order if r.card_points[m.side_of(s)] == best)
        if m.in_game(winner):
            assert m.dealer == winner
        assert m.view(None).trick.due_leader == (m.dealer + 1) % players  # type: ignore[union-attr]


def test_two_players_play_one_against_one() -> None:
    m = Match.new("moscow", players=2, seed=1)
    assert m.sides == 2 and m.seats_of(0) == (0,) and m.seats_of(1) == (1,)
    m4 = Match.new("moscow", players=4, seed=1)
    assert m4.seats_of(0) == (0, 2) and m4.seats_of(1) == (1, 3)
