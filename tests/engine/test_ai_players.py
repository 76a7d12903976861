"""Computer players: they see only their seat's information, always act legally, and are
deterministic given their rng."""

from __future__ import annotations

import random

import pytest
from kozel_testkit import new_match, random_positions

from kozel_rules import CARDS, Action, Card, IllegalActionError, Match
from kozel_rules.ai import LEVELS, Budget, Observation, choose, interrupt
from kozel_rules.ai.observation import conceal
from kozel_rules.state import to_action

CASES = [("ziege", 4), ("street", 4), ("moscow", 2), ("moscow", 3), ("moscow", 4)]
SMALL = Budget(work=240)  # a small search keeps these tests fast; the search is the same


def _map_action(text: str, mapping: dict[int, int]) -> Action:
    a = Action.parse(text)
    return Action.make(a.seat, a.verb, [CARDS[mapping.get(int(c), int(c))] for c in a.cards])


def other_world(m: Match, seat: int, deal_start: int, rng: random.Random) -> Match | None:
    """The same match with the cards ``seat`` cannot place exchanged among the places it
    cannot see (other hands, the stock, others' face-down cards), replayed from a different
    seed (so later decks differ too); ``None`` if no such exchange keeps the history legal
    and the seat's view and knowledge the same."""
    rec = m.to_json()
    # the turned/shown trump card was seen by all even once drawn: it stays where it is
    trump_card = m.state_copy().trump_card
    unseen = [int(c) for c in m.seen(seat).unseen if int(c) != trump_card]
    if len(unseen) < 2:
        return None
    cur = m.deal_number - 1
    decks = rec["decks"]
    real = m.state_copy()
    for attempt in range(60):
        perm = unseen[:]
        if attempt % 2:
            rng.shuffle(perm)
        else:  # a single transposition keeps a ziege history legal more often
            i, j = rng.sample(range(len(perm)), 2)
            perm[i], perm[j] = perm[j], perm[i]
        mapping = dict(zip(unseen, perm, strict=True))
        deck = [str(CARDS[mapping.get(int(Card.parse(c)), int(Card.parse(c)))]) for c in decks[cur]]
        try:
            alt = Match.new(
                m.variant,
                players=m.players,
                seed="another seed",
                dealer=rec["dealer"],
                decks=[*decks[:cur], deck],
            )
            for k, text in enumerate(rec["actions"]):
                alt.apply(_map_action(text, mapping) if k >= deal_start else text)
        except IllegalActionError:
            continue
        other = alt.state_copy()
        if other.hands == real.hands and other.stock == real.stock and other.piles == real.piles:
            continue
        if alt.view(seat) == m.view(seat) and alt.seen(seat) == m.seen(seat):
            return alt
    return None


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_players_see_only_their_view(variant: str, players: int) -> None:
    """Another hidden deal consistent with the seat's observation gives the same concealed
    state and, under the same seed, the same choice at every level."""
    rng = random.Random(11)
    checked = 0
    for m, deal_start in random_positions(variant, players, 80, seed=players * 100 + 7):
        seat = m.to_move
        assert seat is not None
        if len(m.legal_actions(seat)) < 2:
            continue  # nothing to choose
        alt = other_world(m, seat, deal_start, rng)
        if alt is None:
            continue
        checked += 1
        # the concealed states are equal field by field: nothing hidden is left in them
        assert (
            Observation.of(m, seat)._state.snapshot() == Observation.of(alt, seat)._state.snapshot()
        )
        for level in LEVELS:
            for k in range(2):
                a = choose(m, seat, level=level, rng=random.Random(k), budget=SMALL)
                b = choose(alt, seat, level=level, rng=random.Random(k), budget=SMALL)
                assert a == b, (level, m.history, alt.history)
        if checked >= 10:
            break
    assert checked >= 8, f"only {checked} positions had another consistent hidden deal"


def test_strong_default_budget_sees_only_its_view() -> None:
    rng = random.Random(3)
    checked = 0
    for variant, players in CASES:
        for m, deal_start in random_positions(variant, players, 6, seed=99):
            seat = m.to_move
            assert seat is not None
            alt = other_world(m, seat, deal_start, rng)
            if alt is None or len(m.legal_actions(seat)) < 2:
                continue
            a = choose(m, seat, level="strong", rng=random.Random(5))
            b = choose(alt, seat, level="strong", rng=random.Random(5))
            assert a == b
            checked += 1
            break
    assert checked >= 4


def test_concealed_state_hides_other_hands_and_stock() -> None:
    m = Match.new("street", players=4, seed=5)
    seat = m.to_move
    assert seat is not None
    before = m.state_copy().snapshot()
    st = conceal(m.state_copy(), seat)
    Observation.of(m, seat).sample(random.Random(0))
    assert m.state_copy().snapshot() == before  # the match itself is untouched
    real = m.state_copy()
    assert st.hands[seat] == real.hands[seat]
    unseen = real.unseen_by(seat)
    # the unseen cards are dealt lowest first: seat after seat, then the stock
    placed = 0
    for s in range(4):
        if s != seat:
            placed |= st.hands[s]
    low = sorted(b for b in (1 << c for c in range(36)) if b & unseen)[:12]
    assert placed == sum(low)
    assert st.seed != real.seed and st.decks == [] and st.decks_used == []
    # the shown trump card keeps its known place in the stock
    assert st.stock[st.trump_stock_index] == 1 << real.trump_card


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_every_level_chooses_a_legal_action(variant: str, players: int) -> None:
    for m, _ in random_positions(variant, players, 30, seed=players * 10 + len(variant)):
        seat = m.to_move
        assert seat is not None
        # the concealed state offers the seat exactly its legal actions
        for s in range(players):
            got = sorted(str(to_action(a)) for a in Observation.of(m, s).legal())
            assert got == sorted(str(a) for a in m.legal_actions(s))
        for level in LEVELS:
            rng = random.Random(m.ply)
            a = choose(m, seat, level=level, rng=rng, budget=SMALL)
            assert m.is_legal(a), (level, str(a), m.history)
        for other in {a.seat for a in m.legal_actions()} - {seat}:
            for level in LEVELS:
                sp = interrupt(m, other, level=level, rng=random.Random(1))
                assert sp is None or (sp.verb.is_special and m.is_legal(sp))


def test_choices_are_deterministic_given_the_rng() -> None:
    for m, _ in random_positions("street", 4, 6, seed=4):
        seat = m.to_move
        assert seat is not None
        a = choose(m, seat, level="strong", rng=random.Random(9), budget=SMALL)
        b = choose(m.copy(), seat, level="strong", rng=random.Random(9), budget=SMALL)
        assert a == b


def test_basic_and_strong_declare_a_molodka() -> None:
    # seat 2 holds four hearts: basic and strong declare out of turn at once
    m = new_match("street", {1: "6♠ 7♠ 8♣ 9♦", 2: "6♥ 7♥ 9♥ J♥"}, trump="A♣")
    assert m.to_move == 1
    for level in ("basic", "strong"):
        sp = interrupt(m, 2, level=level, rng=random.Random(0))
        assert sp is not None and str(sp) == "2 molodka 6♥ 7♥ 9♥ J♥"
    assert interrupt(m, 3, level="basic", rng=random.Random(0)) is None


def test_ziege_seven_catches_the_queen() -> None:
    # dealer 0 leads; seat 1 plays the Q♣ on a heart lead; seat 2 (seat 0's partner) holds the
    # 7♣ and no heart: basic and strong catch the queen
    m = new_match(
        "ziege",
        {0: "A♥ 8♠ 9♠ K♠", 1: "Q♣ 8♦ 9♦ K♦", 2: "7♣ 7♠ 8♣ 10♠", 3: "7♥ 8♥ 9♥ 10♥"},
    )
    m.apply_text("0 lead A♥")
    m.apply_text("1 play Q♣")
    for level in ("basic", "strong"):
        a = choose(m, 2, level=level, rng=random.Random(0), budget=SMALL)
        assert str(a) == "2 play 7♣", level


def test_unknown_level_and_no_action() -> None:
    m = Match.new("street", players=4, seed=1)
    with pytest.raises(ValueError):
        choose(m, 0, level="genius", rng=random.Random(0))
    idle = next(s for s in range(4) if s != m.to_move and not m.legal_actions(s))
    with pytest.raises(ValueError):
        choose(m, idle, level="basic", rng=random.Random(0))


def test_budget_parse() -> None:
    assert Budget.parse("4800").work == 4800
    b = Budget.parse("150ms")
    assert b.seconds == pytest.approx(0.15)
    b = Budget.parse("4800,200ms")
    assert b.work == 4800 and b.seconds == pytest.approx(0.2)
    with pytest.raises(ValueError):
        Budget.parse("fast")


def test_ziege_exchange_positions_sample_consistent_worlds() -> None:
    """A leader about to give a trump: every sampled world keeps the exchange's premise (the
    partner holds a plain card), and every level acts legally."""
    from kozel_rules.ai.observation import _consistent

    rng = random.Random(2)
    found = 0
    for i in range(400):
        m = Match.new("ziege", seed=f"give/{i}")
        while not m.is_over and m.deal_number == 1 and m.phase != "give":
            m.apply(rng.choice(m.legal_actions()))
        if m.phase != "give":
            continue
        found += 1
        seat = m.to_move
        assert seat is not None
        obs = Observation.of(m, seat)
        for k in range(20):
            assert _consistent(obs.sample(random.Random(k)))
        for level in LEVELS:
            assert m.is_legal(choose(m, seat, level=level, rng=random.Random(0), budget=SMALL))
        if found >= 5:
            break
    assert found >= 5


def test_win_chance_of_defeat_points() -> None:
    from kozel_rules.ai.value import going_out, win_chance

    even = win_chance("street", 4, (0, 0), (0, 0), (0, 1), 0)
    assert even == pytest.approx(0.5)
    three = win_chance("moscow", 3, (0, 0, 0), (0, 0, 0), (0, 1, 2), 1)
    assert three == pytest.approx(1 / 3)
    # two points to the opponents are worth more the nearer they are to 12
    early = win_chance("street", 4, (0, 0), (0, 2), (0, 1), 0)
    late = win_chance("street", 4, (0, 8), (0, 2), (0, 1), 0)
    assert 0.5 < early < late < 1
    assert win_chance("street", 4, (10, 4), (2, 0), (0, 1), 0) == 0.0
    assert win_chance("street", 4, (4, 10), (0, 2), (0, 1), 0) == 1.0
    # moscow 60:60 at 10:10 puts nobody out (both at 12): the match goes on
    assert win_chance("moscow", 2, (10, 10), (2, 2), (0, 1), 0) == pytest.approx(0.5)
    assert going_out((12, 12)) == set() and going_out((14, 12)) == {0}
    assert going_out((13, 4, 12)) == {0, 2}
