"""Random-play invariants over many whole matches of every variant and player count.

The bulk runs on the compact state (``GameState``: the same rules ``Match`` applies) so
thousands of matches stay fast; the checked API (``Match``: illegal actions, JSON at random
points, views) runs on fewer matches chosen by hypothesis. ``-m slow`` runs far more.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kozel_rules import CARDS, Action, IllegalActionError, Match, Verb
from kozel_rules._tables import BIT, mask_points
from kozel_rules.state import OVER, V_DISCARD, GameState

CASES = [("ziege", 4), ("street", 4), ("moscow", 2), ("moscow", 3), ("moscow", 4)]
CASE_IDS = [f"{v}{p}" for v, p in CASES]


def check_cards_accounted(st: GameState) -> None:
    """Every card of the deck is in exactly one place: a hand, a pile, the stock, the table."""
    places = [*st.hands, *st.piles, st.table_cards, *st.stock]
    union = 0
    total = 0
    for m in places:
        union |= m
        total += m.bit_count()
    assert union == st.tables.deck_mask
    assert total == st.variant.deck_size


def play_match(st: GameState, rng: random.Random, max_deals: int = 400) -> int:
    """Play ``st`` to the end with uniform random legal actions, checking the invariants
    after every action. Returns the number of actions."""
    steps = 0
    results_seen = 0
    while True:
        acts = st.legal()
        if st.phase == OVER:
            assert acts == []
            assert st.match_result is not None
            break
        assert acts, "a legal action exists until the match is over"
        assert st.to_move is not None
        if not st.plays and st.phase in (0, 2):  # a trick starts: hands are equal
            sizes = {st.hands[s].bit_count() for s in range(st.players) if st.in_game[s]}
            assert len(sizes) == 1
            assert len(st.stock) % len(st.order) == 0
        st.step(acts[rng.randrange(len(acts))])
        steps += 1
        check_cards_accounted(st)
        while results_seen < len(st.deal_results):
            r = st.deal_results[results_seen]
            results_seen += 1
            if r.queen_caught:
                assert r.card_points == (0,) * st.side_count
                assert sum(r.defeat_points) == 4
            else:
                assert sum(r.card_points) == 120
            assert results_seen < max_deals
    assert st.match_result.winners and len(st.match_result.winners) == 1
    assert set(st.match_result.losers) | set(st.match_result.winners) == set(range(st.side_count))
    return steps


@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_thousands_of_random_matches_keep_the_invariants(variant: str, players: int) -> None:
    rng = random.Random(f"{variant}{players}")
    deals = 0
    for game in range(2000):
        st = GameState.new(variant, players, seed=game)
        play_match(st, rng)
        deals += len(st.deal_results)
    assert deals >= 2000


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_many_more_random_matches(variant: str, players: int) -> None:
    rng = random.Random(f"slow{variant}{players}")
    for game in range(20000):
        play_match(GameState.new(variant, players, seed=f"slow{game}"), rng)


# --------------------------------------------------------------------- the checked API


def visible_cards(m: Match, seat: int | None) -> set[int]:
    """Every card the seat's view shows, apart from its own hand."""
    v = m.view(seat)
    shown: set[int] = set()
    for trick in (v.trick, v.last_trick):
        if trick is None:
            continue
        for p in trick.plays:
            if p.verb == Verb.DISCARD and p.seat != seat:
                assert p.cards == (), "a face-down card of another seat is shown"
            shown |= {int(c) for c in p.cards}
    if v.trump_card is not None:
        shown.add(int(v.trump_card))
    return shown


def check_views(m: Match) -> None:
    st = m._st
    known_face_up = st.seen_face_up | st.table_face_up
    for seat in (None, *range(m.players)):
        v = m.view(seat)
        if seat is None:
            assert v.hand == () and v.legal == ()
        else:
            assert {int(c) for c in v.hand} == {c for c in range(36) if st.hands[seat] >> c & 1}
            assert set(v.legal) == set(m.legal_actions(seat))
        own_down = st.face_down[seat] if seat is not None else 0
        for c in visible_cards(m, seat):
            bit = BIT[c]
            assert (
                bit & known_face_up
                or bit & own_down
                or c == st.trump_card
                or (st.last_trick is not None and bit & _face_up_of(st.last_trick[2]))
            ), f"seat {seat} sees {CARDS[c]}"
        assert len(v.hand_sizes) == m.players


def _face_up_of(plays: list[tuple[int, int, int]]) -> int:
    m = 0
    for _, verb, cards in plays:
        if verb != V_DISCARD:
            m |= cards
    return m


def random_action(m: Match, rng: random.Random) -> Action:
    seat = rng.randrange(m.players)
    verb = rng.choice(list(Verb))
    cards = rng.sample(range(36), rng.randint(1, 4))
    return Action.make(seat, verb, [CARDS[c] for c in cards])


def near_miss(m: Match, legal: list[Action], rng: random.Random) -> Action:
    """A legal action with one card swapped for another card of the same seat's hand."""
    a = rng.choice(legal)
    hand = [c for c in m.view(a.seat).hand if c not in a.cards]
    if not hand:
        return random_action(m, rng)
    cards = list(a.cards)
    cards[rng.randrange(len(cards))] = rng.choice(hand)
    return Action.make(a.seat, a.verb, cards)


def check_illegal_changes_nothing(m: Match, rng: random.Random) -> None:
    legal = set(m.legal_actions())
    before = (m._st.snapshot(), m.ply, m.history[:])
    for _ in range(3):
        a = random_action(m, rng) if rng.random() < 0.5 else near_miss(m, list(legal), rng)
        if a in legal or len(set(a.cards)) != len(a.cards):
            continue
        with pytest.raises(IllegalActionError) as err:
            m.apply(a)
        assert err.value.rule
        assert (m._st.snapshot(), m.ply, m.history) == before


def check_json(m: Match) -> Match:
    j = Match.from_json(json.loads(json.dumps(m.to_json())))
    a, b = m._st.snapshot(), j._st.snapshot()
    del a["decks"], b["decks"]
    assert a == b
    assert m.legal_actions() == j.legal_actions()
    return j


def play_checked(variant: str, players: int, seed: int, rnd: random.Random) -> None:
    m = Match.new(variant, players=players, seed=seed)
    twin: Match | None = None
    while not m.is_over:
        legal = m.legal_actions()
        assert legal
        r = rnd.random()
        if r < 0.15:
            check_views(m)
        elif r < 0.25:
            check_illegal_changes_nothing(m, rnd)
        elif r < 0.27 and twin is None:
            twin = check_json(m)  # mid-trick, mid-exchange, after a special: anywhere
        a = legal[rnd.randrange(len(legal))]
        events = m.apply(a)
        if twin is not None:
            assert twin.apply(a) == events
    assert m.legal_actions() == [] and m.to_move is None
    if twin is not None:
        assert twin.result == m.result and twin.deal_results == m.deal_results
    with pytest.raises(IllegalActionError):
        m.apply(random_action(m, rnd))


@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), choices=st.integers(0, 2**31))
def test_checked_api_on_random_matches(variant: str, players: int, seed: int, choices: int) -> None:
    play_checked(variant, players, seed, random.Random(choices))


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), choices=st.integers(0, 2**31))
def test_checked_api_on_many_random_matches(
    variant: str, players: int, seed: int, choices: int
) -> None:
    play_checked(variant, players, seed, random.Random(choices))


def test_card_points_of_a_deck_are_120() -> None:
    from kozel_rules import get_variant

    for name in ("ziege", "street", "moscow"):
        deck = get_variant(name).deck
        assert sum(c.points for c in deck) == 120
        assert mask_points(sum(BIT[int(c)] for c in deck)) == 120
