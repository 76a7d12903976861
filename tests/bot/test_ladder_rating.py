"""The ladder's rating model: OpenSkill Plackett-Luce over sides, ranked by how they finished."""

from __future__ import annotations

import pytest
from ladder_fixtures import free_for_all, teams

from bot.i18n import get_translator
from bot.service.ladder import LadderQuery, parse_query
from bot.service.rating import new_rating, rate, rating_of, side_ranks
from bot.storage import Rating
from kozel_rules.variant import get_variant


def test_a_newcomer_shows_1000() -> None:
    fresh = new_rating()
    assert fresh.mu == pytest.approx(25.0) and fresh.value == pytest.approx(1000.0)
    assert rating_of(30.0, 2.0).value == pytest.approx(1000 + 40 * (30 - 6))


def test_teams_of_two_winners_go_up_and_the_goats_go_down() -> None:
    match = teams(1, -1, [1, 2], [3, 4])
    changes = rate(match, [None] * 4)
    assert [c.rank for c in changes] == [1, 2, 1, 2]
    for seat, change in enumerate(changes):
        assert change.before == new_rating()
        if seat % 2 == 0:
            assert change.after.mu > change.before.mu and change.after.value > 1000
        else:
            assert change.after.mu < change.before.mu and change.after.value < 1000
        assert change.after.sigma < change.before.sigma  # every match teaches something
    # partners with equal ratings move together
    assert changes[0].after == changes[2].after and changes[1].after == changes[3].after


def test_beating_a_stronger_team_is_worth_more() -> None:
    strong, weak = Rating(32.0, 3.0, rating_of(32.0, 3.0).value), new_rating()
    upset = rate(teams(1, -1, [1, 2], [3, 4]), [weak, strong, weak, strong])
    expected = rate(teams(2, -1, [1, 2], [3, 4]), [strong, weak, strong, weak])
    gain_upset = upset[0].after.mu - upset[0].before.mu
    gain_expected = expected[0].after.mu - expected[0].before.mu
    assert gain_upset > gain_expected > 0
    # the weak player's partner is the team: a carried newcomer gains
    mixed = rate(teams(3, -1, [1, 2], [3, 4]), [strong, weak, weak, weak])
    assert mixed[2].after.mu > mixed[2].before.mu


def test_three_players_are_ranked_by_elimination_order() -> None:
    match = free_for_all(1, -1, [7, 8, 9])  # 7 won, 8 went out last (the goat), 9 out first
    by_user = {p.user_id: p for p in match.players_list}
    ranks = side_ranks(match)
    assert {ranks[by_user[u].side] for u in (7, 8, 9)} == {1, 2, 3}
    assert [ranks[by_user[u].side] for u in (7, 8, 9)] == [1, 2, 3]
    assert by_user[8].goat and not by_user[9].goat
    changes = {
        p.user_id: c for p, c in zip(match.players_list, rate(match, [None] * 3), strict=True)
    }
    winner, goat, first_out = (changes[u].after.mu for u in (7, 8, 9))
    assert winner > 25 and first_out < 25
    assert winner > goat > first_out
    assert [changes[u].rank for u in (7, 8, 9)] == [1, 2, 3]


def test_new_records_rank_by_places_and_two_out_together_share_one() -> None:
    """Records since the goat became the first one out carry ``places``: two players out in
    the same deal share the last place (and are both goats); an old record (``losers`` only,
    the fixture above) is still ranked by the order of going out."""
    match = free_for_all(1, -1, [7, 8, 9])
    by_user = {p.user_id: p.side for p in match.players_list}
    places = [0, 0, 0]
    places[by_user[7]], places[by_user[8]], places[by_user[9]] = 1, 2, 2
    match.result["places"] = places
    ranks = side_ranks(match)
    assert (ranks[by_user[7]], ranks[by_user[8]], ranks[by_user[9]]) == (1, 2, 2)
    changes = {
        p.user_id: c for p, c in zip(match.players_list, rate(match, [None] * 3), strict=True)
    }
    assert changes[8].after.mu == pytest.approx(changes[9].after.mu)
    assert changes[7].after.mu > 25 > changes[8].after.mu
    match.result["places"] = [1, 1, 1]  # not the winners' side alone: ignored
    assert side_ranks(match)[by_user[9]] == 3


def test_two_players() -> None:
    match = free_for_all(1, -1, [5, 6])
    changes = rate(match, [None, None])
    by_user = {p.user_id: c for p, c in zip(match.players_list, changes, strict=True)}
    assert by_user[5].after.mu > 25 > by_user[6].after.mu
    assert (by_user[5].rank, by_user[6].rank) == (1, 2)


def test_ranks_fall_back_to_the_flags_without_an_engine_result() -> None:
    match = free_for_all(1, -1, [7, 8, 9])
    match.result.clear()
    by_user = {p.user_id: p.side for p in match.players_list}
    ranks = side_ranks(match)
    assert (ranks[by_user[7]], ranks[by_user[8]], ranks[by_user[9]]) == (1, 2, 3)
    match.result["losers"] = [by_user[8], by_user[8]]  # nonsense is ignored too
    assert side_ranks(match)[by_user[9]] == 3


def test_one_computer_level_in_two_seats_gets_one_rating() -> None:
    # on opposite sides: the two seats' changes about cancel out
    across = rate(teams(1, -1, [1, "strong"], ["strong", 2]), [None] * 4)
    assert across[1].after == across[2].after
    assert abs(across[1].after.mu - 25.0) < 0.5
    assert across[1].after.sigma < across[1].before.sigma
    # partners: both seats' gains count
    together = rate(teams(2, -1, ["strong", "strong"], [1, 2]), [None] * 4)
    single = rate(teams(3, -1, ["strong", 3], [1, 2]), [None] * 4)
    assert together[0].after == together[2].after
    assert together[0].after.mu - 25 == pytest.approx(2 * (single[0].after.mu - 25))


def test_rating_is_deterministic() -> None:
    match = teams(1, -1, [1, 2], [3, 4])
    before = [new_rating(), rating_of(28, 5), None, rating_of(20, 4)]
    assert rate(match, before) == rate(match, before)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], LadderQuery()),
        (["street"], LadderQuery(get_variant("street"))),
        (["MOSCOW", "s2"], LadderQuery(get_variant("moscow"), 2)),
        (["3", "ziege"], LadderQuery(get_variant("ziege"), 3)),
        (["#4"], LadderQuery(None, 4)),
        (["season7"], LadderQuery(None, 7)),
        (["poker"], None),
        (["street", "street"], None),
        (["s1", "s2"], None),
    ],
)
def test_parse_query(args: list[str], expected: LadderQuery | None) -> None:
    assert parse_query(get_translator("en"), args) == expected
