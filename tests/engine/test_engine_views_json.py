"""Views show only what a seat may see; JSON round trips; illegal actions change nothing."""

from __future__ import annotations

import dataclasses
import json

import pytest
from kozel_testkit import new_match, play, state_of

from kozel_rules import Action, IllegalActionError, Match, Phase, SeatView, Suit, Verb, parse_cards
from kozel_rules.match import JSON_FORMAT


def roundtrip(m: Match) -> Match:
    return Match.from_json(json.loads(json.dumps(m.to_json(), ensure_ascii=False)))


def snapshot(m: Match) -> dict[str, object]:
    """The whole internal state, but for the decks given up front (a restored match has
    the decks dealt so far as given decks: the same future either way)."""
    snap = state_of(m).snapshot()
    del snap["decks"]
    return snap


def assert_same(a: Match, b: Match) -> None:
    assert snapshot(a) == snapshot(b)
    assert a.history == b.history
    assert [str(x) for x in a.legal_actions()] == [str(x) for x in b.legal_actions()]
    for seat in (None, *range(a.players)):
        assert a.view(seat) == b.view(seat)


def test_the_view_has_no_card_points_and_no_other_hands() -> None:
    names = {f.name for f in dataclasses.fields(SeatView)}
    assert not any("point" in n and n != "defeat_points" for n in names)
    m = Match.new("street", seed=3)
    public = m.view(None)
    assert public.hand == () and public.legal == () and public.seat is None
    for seat in range(4):
        v = m.view(seat)
        assert len(v.hand) == 4
        assert set(v.legal) == set(m.legal_actions(seat))
        assert all(a.seat == seat for a in v.legal)


def test_json_round_trip_mid_trick_continues_identically() -> None:
    m = new_match(
        "street",
        {1: "K♠ 9♠ 10♥ 8♦", 2: "10♠ A♠ Q♦ J♣", 3: "7♠ J♥ 6♦ 7♣", 0: "6♥ 7♥ 8♥ 9♥"},
        trump="A♦",
    )
    play(m, "1 lead K♠ 9♠", "2 beat 10♠ A♠", "3 discard 6♦ 7♣")
    data = m.to_json()
    assert data["format"] == JSON_FORMAT and data["actions"][0] == "1 lead 9♠ K♠"
    j = roundtrip(m)
    assert_same(m, j)
    for x in (m, j):
        play(x, "0 molodka 6♥ 7♥ 8♥ 9♥")  # after a special
    assert_same(m, roundtrip(m))
    assert_same(m, j)


def test_json_round_trip_mid_exchange() -> None:
    m = new_match("ziege", {0: "Q♠ J♦ 8♣ A♣", 2: "7♠ K♠ 8♥ 9♦"})
    play(m, "0 give J♦")
    j = roundtrip(m)
    assert j.phase == "return"
    assert_same(m, j)
    for x in (m, j):
        play(x, "2 return 8♥")
    assert_same(m, j)
    assert_same(m, roundtrip(m))


def test_json_round_trip_keeps_the_shuffled_decks_and_rejects_a_bad_record() -> None:
    m = Match.new("moscow", players=3, seed="table-7")
    while m.deal_number < 3:
        m.apply(m.legal_actions(m.to_move)[0])
    j = roundtrip(m)
    assert_same(m, j)
    bad = m.to_json()
    bad["actions"] = [*bad["actions"], "0 lead 6♠ 7♠ 8♠ 9♠ 10♠"]
    with pytest.raises(Exception, match="action"):
        Match.from_json(bad)


def test_an_illegal_action_raises_names_the_rule_and_changes_nothing() -> None:
    m = new_match("street", {1: "K♠ 9♠ 6♣ 7♣", 2: "10♠ A♠ 8♣ 9♦"}, trump="8♥")
    before = (state_of(m).snapshot(), m.to_json(), m.ply)
    cases = {
        "2 lead 10♠": "not-your-turn",
        "1 lead K♠ 6♣": "lead-one-suit",
        "1 lead A♥": "not-in-hand",
        "1 play K♠": "verb-not-in-variant",
        "1 lead K♠ K♠": "duplicate-card",
        "7 lead K♠": "no-such-seat",
    }
    for text, rule in cases.items():
        with pytest.raises(IllegalActionError) as err:
            m.apply_text(text)
        assert err.value.rule == rule, text
        assert err.value.action is not None
        assert (state_of(m).snapshot(), m.to_json(), m.ply) == before
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("1 lead")
    assert err.value.rule == "malformed"


def test_error_message_names_seat_action_and_rule() -> None:
    m = new_match("street", {1: "K♠ 9♠ 6♣ 7♣"}, trump="8♥")
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("3 lead 8♦")
    text = str(err.value)
    assert "seat 3" in text and "3 lead 8♦" in text and err.value.rule == "not-your-turn"


def test_an_action_after_the_match_is_over_is_refused() -> None:
    m = Match.new("ziege", seed=9)
    while not m.is_over:
        m.apply(m.legal_actions()[0])
    assert m.phase == "over" and m.view(0).legal == ()
    with pytest.raises(IllegalActionError) as err:
        m.apply_text("0 lead 7♠")
    assert err.value.rule == "match-over"


def test_phases_are_a_str_enum_equal_to_their_text() -> None:
    m = Match.new("ziege", seed=3)
    assert m.phase is Phase.LEAD and m.view(None).phase is Phase.LEAD and m.view(1).phase == "lead"
    assert json.dumps({"phase": m.view(None).phase}) == '{"phase": "lead"}'
    assert f"{m.phase}" == str(m.phase) == "lead"
    m.apply(m.legal_actions()[0])
    assert m.phase is Phase.RESPOND == "respond"
    assert [str(p) for p in Phase] == [
        "lead", "respond", "give", "return", "forced-lead", "over", "deal-over",
    ]  # fmt: skip


def test_copy_is_independent() -> None:
    m = Match.new("moscow", players=4, seed=2)
    c = m.copy()
    c.apply(c.legal_actions()[0])
    assert c.ply == 1 and m.ply == 0
    assert m.view(None).trick is not None and m.view(None).trick.plays == ()  # type: ignore[union-attr]


def test_seen_remembers_face_up_cards_and_ziege_voids() -> None:
    m = new_match("ziege", {0: "7♥ 7♠ 8♠ 9♠", 1: "J♥ Q♥ 7♦ 8♦", 2: "8♥ 9♥ K♥ A♥"})
    play(m, "0 lead 7♥", "1 play 7♦")
    seen = m.seen(0)
    assert Suit.HEARTS in seen.void_suits[1]  # seat 1 did not follow hearts
    assert seen.void_suits[0] == frozenset()
    play(m, "2 play A♥")
    m.apply(m.legal_actions(3)[0])
    assert {"7♥", "7♦", "A♥"} <= {str(c) for c in m.seen(None).played}


def test_seen_lists_revealed_cards_after_a_special() -> None:
    m = new_match(
        "street",
        {1: "K♠ 9♠ 10♥ 8♦", 2: "10♠ A♠ Q♦ J♣", 3: "7♠ J♥ 6♦ 7♣", 0: "6♥ 7♥ 8♥ 9♥"},
        trump="A♦",
    )
    play(m, "1 lead K♠ 9♠", "2 beat 10♠ A♠", "3 discard 6♦ 7♣", "0 molodka 6♥ 7♥ 8♥ 9♥")
    seen = m.seen(0)
    assert {str(c) for c in seen.revealed[1]} == {"K♠", "9♠"}
    assert {str(c) for c in seen.revealed[2]} == {"10♠", "A♠"}
    assert seen.revealed[3] == ()  # its discards were face down
    assert seen.own_face_down == ()
    unseen = {str(c) for c in seen.unseen}
    assert not unseen & {"K♠", "9♠", "10♠", "A♠", "6♥", "7♥", "8♥", "9♥"}
    assert {"6♦", "7♣"} <= unseen
    assert {a.verb for a in m.legal_actions(1)} == {Verb.DISCARD}


def test_actions_are_accepted_in_any_card_order_and_logged_normalised() -> None:
    m = new_match("street", {1: "K♠ 9♠ 6♣ 7♣"}, trump="8♥")
    k, nine = parse_cards("K♠ 9♠")
    assert m.is_legal("1 lead k♠ 9s") and not m.is_legal("1 lead K♠ 6♣")
    m.apply(Action(1, Verb.LEAD, (k, nine)))  # not sorted, as a client might build it
    assert m.history == ["1 lead 9♠ K♠"]
    assert m.ply == 1
