"""A cup's pairings and standings: each person partners each other once; the fewest defeat
points win, ties broken by matches won, a tie left is a shared win."""

from __future__ import annotations

from itertools import combinations

from bot.i18n import get_translator
from bot.render import cup as text
from bot.service.cup_rounds import (
    SEATINGS,
    RoundResult,
    partners,
    round_result,
    standings,
    winners,
)


def test_each_person_partners_each_other_once() -> None:
    pairs = [frozenset(pair) for r in SEATINGS for pair in partners(r)]
    assert sorted(map(sorted, pairs)) == sorted(
        map(sorted, map(frozenset, combinations(range(4), 2)))
    )
    assert partners(1) == ((0, 2), (1, 3))  # A+C vs B+D
    assert partners(2) == ((0, 1), (2, 3))  # A+B vs C+D
    assert partners(3) == ((0, 3), (1, 2))  # A+D vs B+C


def test_a_round_gives_each_player_their_sides_points() -> None:
    # Round 2 seats A C B D: seats 0+2 (A, B) are side 0, seats 1+3 (C, D) side 1.
    result = round_result(2, [7, 4], [0, 1, 0, 1], [1], [0, 2, 1, 3])
    assert result.taken == (7, 7, 4, 4)
    assert result.won == (False, False, True, True)


def test_a_player_not_at_the_table_forfeits_the_match() -> None:
    # D left: a computer plays the fourth seat; D takes the losers' points and no win.
    result = round_result(1, [2, 6], [0, 1, 0, 1], [0], [0, 1, 2, None])
    assert result.taken == (2, 6, 2, 6)
    assert result.won == (True, False, True, False)
    result = round_result(1, [6, 3], [0, 1, 0, 1], [1], [0, 1, 2, None])
    assert result.taken[3] == 6 and not result.won[3]


def test_fewest_points_win_and_ties_go_to_matches_won() -> None:
    results = [
        RoundResult(1, (4, 6, 4, 6), (True, False, True, False)),
        RoundResult(2, (6, 6, 0, 0), (False, False, True, True)),
        RoundResult(3, (0, 2, 2, 0), (True, False, False, False)),
    ]
    table = standings(results)
    # C and D both took 6; C won two matches, D one: C is first.
    assert [(s.player, s.taken, s.won, s.place) for s in table] == [
        (2, 6, 2, 1),
        (3, 6, 1, 2),
        (0, 10, 2, 3),
        (1, 14, 0, 4),
    ]
    assert winners(results) == [2]


def test_a_tie_left_is_a_shared_win() -> None:
    results = [RoundResult(1, (6, 0, 6, 0), (False, True, False, True))]
    assert winners(results) == [1, 3]
    t = get_translator("en")
    assert text.winner_line(t, ["Boris", "Gleb"]) == "🏆 The cup is shared: Boris, Gleb"
    assert text.winner_line(t, ["Boris"]) == "🏆 Boris won the cup!"


def test_standings_read_with_plurals_in_russian() -> None:
    t = get_translator("ru")
    line = text.standing_line(t, 1, text.CupLine("Анна", forfeited=True), 21, 1)
    assert line.startswith("1. Анна — 21 штрафное очко, 1 победа")
    assert "выбыл(а) из кубка — место занял компьютер" in line
    assert "22 штрафных очка, 5 побед" in text.standing_line(t, 2, text.CupLine("Б"), 22, 5)
