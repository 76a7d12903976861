"""Achievements one by one from crafted match facts, the facts and the moment from real engine
matches, and the one 🏅 line the awarder puts in the match result."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import pytest

from bot.i18n import LANGUAGES, get_translator
from bot.render.achievements import (
    NAMES,
    PAIRS_SHOWN,
    MomentText,
    Pair,
    achievements_screen,
    awards_line,
    best_first,
    moment_line,
    pairs_screen,
    stats_lines,
)
from bot.render.labels import SeatInfo
from bot.screen import MAX_TEXT, shown_length
from bot.service import achievements, match_facts, match_feed
from bot.service.achievements import ACHIEVEMENTS, earned
from bot.service.awarding import awarder
from bot.service.finished_match import Waits, match_record, waits
from bot.service.match_facts import MomentKind, SeatFacts, moment, seat_facts
from bot.storage import (
    Actor,
    LogEntry,
    LogKind,
    OutboxKind,
    Owed,
    PlayerPast,
    Priority,
    SeatRecord,
    TableRecord,
    TableStatus,
)
from kozel_rules.action import Verb
from kozel_rules.match import Match

PLAIN = SeatFacts(
    user_id=1,
    seat=0,
    won=False,
    goat=False,
    goat_with_eggs=False,
    defeat_points=6,
    eggs=0,
    queens=0,
    molodkas=0,
    moscows=0,
    clean_deals=0,
    comeback=False,
    partner=None,
)
"""Lost, not the goat, nothing special: earns nothing with a past of a few matches."""
SEASONED = PlayerPast(matches=3, wins=1, goats=1, recent=((False, True), (True, False)))

WON = replace(PLAIN, won=True, defeat_points=4)
GOAT = replace(PLAIN, goat=True, defeat_points=12)

# (achievement, facts that earn it, the past, facts or past one step short of it)
CASES: list[tuple[str, SeatFacts, PlayerPast, SeatFacts, PlayerPast]] = [
    ("first_match", PLAIN, PlayerPast(), PLAIN, SEASONED),
    ("first_win", WON, replace(SEASONED, wins=0), WON, SEASONED),
    ("dry_win", replace(WON, defeat_points=0), SEASONED, WON, SEASONED),
    ("comeback", replace(WON, comeback=True), SEASONED, WON, SEASONED),
    (
        "wins_3",
        WON,
        replace(SEASONED, recent=((True, False), (True, False))),
        WON,
        replace(SEASONED, recent=((True, False), (False, False))),
    ),
    (
        "wins_5",
        WON,
        replace(SEASONED, matches=4, wins=4, recent=((True, False),) * 4),
        WON,
        replace(SEASONED, matches=3, wins=3, recent=((True, False),) * 3),
    ),
    ("wins_10", WON, replace(SEASONED, wins=9), WON, replace(SEASONED, wins=8)),
    (
        "no_goat_10",
        PLAIN,
        replace(SEASONED, matches=9, recent=((False, False),) * 9),
        PLAIN,
        replace(SEASONED, matches=9, recent=((False, False),) * 8 + ((False, True),)),
    ),
    ("goat_5", GOAT, replace(SEASONED, goats=4), GOAT, replace(SEASONED, goats=3)),
    ("goat_eggs", replace(GOAT, goat_with_eggs=True), SEASONED, GOAT, SEASONED),
    ("eggs", replace(PLAIN, eggs=1), SEASONED, PLAIN, SEASONED),
    ("queen", replace(PLAIN, queens=1), SEASONED, PLAIN, SEASONED),
    ("two_queens", replace(PLAIN, queens=2), SEASONED, replace(PLAIN, queens=1), SEASONED),
    ("molodka", replace(PLAIN, molodkas=1), SEASONED, PLAIN, SEASONED),
    ("moscow", replace(PLAIN, moscows=1), SEASONED, replace(PLAIN, molodkas=2), SEASONED),
    ("clean_deal", replace(PLAIN, clean_deals=1), SEASONED, PLAIN, SEASONED),
    ("matches_10", PLAIN, replace(SEASONED, matches=9), PLAIN, replace(SEASONED, matches=8)),
    ("matches_50", PLAIN, replace(SEASONED, matches=49), PLAIN, replace(SEASONED, matches=48)),
    ("matches_100", PLAIN, replace(SEASONED, matches=99), PLAIN, replace(SEASONED, matches=98)),
    (
        "partner_10",
        replace(PLAIN, partner=2),
        replace(SEASONED, partners={2: 9, 3: 20}),
        replace(PLAIN, partner=2),
        replace(SEASONED, partners={2: 8, 3: 20}),
    ),
]


def test_every_achievement_has_a_case_and_a_name() -> None:
    ids = [a.id for a in ACHIEVEMENTS]
    assert len(ids) == len(set(ids)) == 20
    assert sorted(ids) == sorted(case[0] for case in CASES)
    assert sorted(NAMES) == sorted([*ids, "cup_won"])  # the cup's is awarded by the cup


def test_plain_facts_earn_nothing() -> None:
    assert earned(PLAIN, SEASONED) == []


@pytest.mark.parametrize(("name", "facts", "past", "short_facts", "short_past"), CASES)
def test_achievement(
    name: str,
    facts: SeatFacts,
    past: PlayerPast,
    short_facts: SeatFacts,
    short_past: PlayerPast,
) -> None:
    assert name in earned(facts, past)
    assert name not in earned(short_facts, short_past)
    # Earned once per chat: a person who holds it does not earn it again.
    assert name not in earned(facts, replace(past, earned=frozenset({name})))


def test_award_all_names_each_person_in_seat_order() -> None:
    alice = replace(WON, user_id=10, seat=0)
    bob = replace(PLAIN, user_id=20, seat=1, eggs=1)
    awards = achievements.award_all([alice, bob], {10: PlayerPast(), 20: SEASONED})
    assert awards == [(10, "first_match"), (10, "first_win"), (20, "eggs")]


# ------------------------------------------------------------------ facts from real matches


def random_match(variant: str, players: int, seed: int, special: float = 0.0) -> Match:
    """A whole match of random moves; ``special``: how often a special lead is declared when
    one may be."""
    match = Match.new(variant, players=players, seed=seed)
    rng = random.Random(seed)
    while not match.is_over:
        specials = [a for a in match.legal_actions() if a.verb.is_special]
        if specials and rng.random() < special:
            match.apply(rng.choice(specials))
        else:
            match.apply(rng.choice(match.legal_actions(match.to_move)))
    return match


def table_for(match: Match, people: list[int | None]) -> TableRecord:
    seats = [
        SeatRecord(seat, who, f"P{who}" if who else "Ivan", None if who else "strong")
        for seat, who in enumerate(people)
    ]
    return TableRecord(1, -100, TableStatus.FINISHED, match.variant.name, 1, 7, seats=seats)


def find(variant: str, players: int, test: Callable[[Match], bool], special: float = 0.0) -> Match:
    for seed in range(400):
        match = random_match(variant, players, seed, special)
        if test(match):
            return match
    raise AssertionError("no such match in 400 seeds")


def test_a_caught_queen_counts_for_the_seven_that_caught_it() -> None:
    match = find(
        "ziege",
        4,
        lambda m: any(d.queen_caught and d.queen_seats for d in m.deal_results),
    )
    deal = next(d for d in match.deal_results if d.queen_caught)
    assert deal.queen_seats is not None
    queen, seven = deal.queen_seats
    facts = {f.seat: f for f in seat_facts(table_for(match, [1, 2, 3, 4]), match)}
    assert facts[seven].queens >= 1
    assert facts[queen].queens == 0
    assert "queen" in earned(facts[seven], SEASONED)
    found = moment(match)
    assert found is not None
    assert found.kind in (MomentKind.COMEBACK, MomentKind.QUEEN)


def test_a_declared_molodka_counts_for_its_declarer() -> None:
    match = find("street", 4, lambda m: any(" molodka " in a for a in m.history), special=0.5)
    declarer = next(int(a.split()[0]) for a in match.history if " molodka " in a)
    facts = {f.seat: f for f in seat_facts(table_for(match, [1, 2, 3, 4]), match)}
    assert facts[declarer].molodkas >= 1
    assert "molodka" in earned(facts[declarer], SEASONED)
    assert Verb.MOLODKA.is_special


def test_partners_and_computers() -> None:
    match = random_match("street", 4, 3)
    facts = seat_facts(table_for(match, [1, None, 3, 4]), match)
    by_user = {f.user_id: f for f in facts}
    assert set(by_user) == {1, 3, 4}  # a computer earns nothing
    side = {seat: match.side_of(seat) for seat in range(4)}
    partner_of_1 = next(s for s in range(1, 4) if side[s] == side[0])
    assert by_user[1].partner == [1, None, 3, 4][partner_of_1]
    three = random_match("moscow", 3, 3)
    assert all(f.partner is None for f in seat_facts(table_for(three, [1, 2, 3]), three))


def test_a_comeback_is_a_win_from_two_points_short_of_the_goat() -> None:
    match = find(
        "street",
        4,
        lambda m: any(
            max(
                sum(d.defeat_points[s] for d in m.deal_results[:k])
                for k in range(len(m.deal_results))
            )
            >= m.variant.out_at - 2
            for s in (m.result.winners if m.result else ())
        ),
    )
    assert match.result is not None
    winner = match.result.winners[0]
    facts = seat_facts(table_for(match, [1, 2, 3, 4]), match)
    assert all(f.comeback == (match.side_of(f.seat) == winner) for f in facts)
    found = moment(match)
    assert found is not None and found.kind is MomentKind.COMEBACK and found.side == winner
    assert found.points >= match_facts.goat_at(match) - 2


def test_the_moment_of_a_quiet_match_is_its_largest_deal() -> None:
    match = find(
        "street",
        4,
        lambda m: getattr(moment(m), "kind", None) is MomentKind.BIG_DEAL,
    )
    found = moment(match)
    assert found is not None and found.deal is not None and found.side is not None
    largest = max(max(d.defeat_points) for d in match.deal_results)
    assert found.points == largest
    assert match.deal_results[found.deal - 1].defeat_points[found.side] == largest


# ------------------------------------------------------------------ the awarder


def test_the_awarder_puts_one_line_in_the_match_result() -> None:
    match = random_match("street", 4, 3)
    table = table_for(match, [1, 2, 3, 4])
    t = get_translator("en")
    award = awarder(t, table, match, [])
    plain = match_feed.result_text(t, match, award.seats)
    posts = [
        Owed(OutboxKind.POST, -100, Priority.TURN, 1, text="deal"),
        Owed(OutboxKind.POST, -100, Priority.TURN, 1, text=plain),
        Owed(OutboxKind.TABLE, -100, Priority.PRESSER, 1),
    ]
    award.owe = posts
    first = award(5, {1: PlayerPast(), 2: SEASONED, 3: SEASONED, 4: SEASONED})
    assert next(a for a in first.awards if a[0] == 1) == (1, "first_match")
    text = first.owe[1].text
    assert text is not None and text != plain
    medal = [line for line in text.splitlines() if line.startswith("🏅")]
    assert len(medal) == 1 and "P1: First match" in medal[0]
    assert sum(1 for line in text.splitlines() if line.startswith("✨")) == 1
    assert first.owe[0] == posts[0] and first.owe[2] == posts[2]
    # Nothing earned: the result stays as it was.
    quiet = award(6, {u: replace(SEASONED, earned=frozenset(NAMES)) for u in (1, 2, 3, 4)})
    assert quiet.awards == [] and quiet.owe[1].text == plain


# ------------------------------------------------------------------ who waits for whom


def test_waits_count_timeouts_and_deals_a_computer_played_for_a_person() -> None:
    table = TableRecord(
        1,
        -100,
        TableStatus.FINISHED,
        "street",
        1,
        7,
        seats=[
            SeatRecord(0, 1, "Anna"),
            SeatRecord(1, None, "Ivan", "strong"),
            SeatRecord(2, 3, "Vera", away=True),
            SeatRecord(3, None, "Gleb", "basic", left_user_id=4, replaced=True),
        ],
    )

    def act(seat: int, by: Actor) -> LogEntry:
        return LogEntry(LogKind.ACTION, None, seat, f"{seat} lead 9♠", by=by)

    deal_over = LogEntry(LogKind.DEAL, None, None, "deal")
    log = [
        act(0, Actor.TIMER),
        act(1, Actor.COMPUTER),  # a computer's own seat: nobody waited
        act(2, Actor.COMPUTER),
        act(3, Actor.PERSON),
        deal_over,
        act(0, Actor.PERSON),
        act(2, Actor.TIMER),
        act(2, Actor.COMPUTER),
        act(3, Actor.COMPUTER),
        deal_over,
        act(2, Actor.COMPUTER),
        act(3, Actor.COMPUTER),
        act(3, Actor.COMPUTER),
        act(0, Actor.TIMER),
    ]
    assert waits(table, log) == {
        0: Waits(timeouts=2, stand_in_deals=0),
        2: Waits(timeouts=1, stand_in_deals=3),
        3: Waits(timeouts=0, stand_in_deals=2),
    }
    match = random_match("street", 4, 3)
    record = match_record(table, match, waits(table, log))
    assert [(p.timeouts, p.stand_in_deals) for p in record.players_list] == [
        (2, 0),
        (0, 0),
        (1, 3),
        (0, 2),
    ]
    assert record.players_list[3].user_id == 4  # the removed person's seat is still theirs


# ------------------------------------------------------------------ every language


def evening_texts(lang: str) -> list[str]:
    t = get_translator(lang)
    seats = [SeatInfo("Anna"), SeatInfo("Ivan", "strong"), SeatInfo("Vera"), SeatInfo("Gleb")]
    sides = [0, 1, 0, 1]
    holders = {name: ["Anna", "Vera"] for name in NAMES}
    pair = Pair(("Anna", "Vera"), 5, 3, 21)
    texts = [
        achievements_screen(t, chat_title="Club", holders=holders).text,
        pairs_screen(t, chat_title="Club", pairs=[pair], least=3).text,
        pairs_screen(t, chat_title="Club", pairs=[], least=3).text,
        awards_line(t, [("Anna", list(NAMES))]) or "",
    ]
    for n in (1, 2, 5, 21):
        texts.append("\n".join(stats_lines(t, ["first_match"] * n, pair, timeouts=n, stood_in=n)))
        for kind in ("comeback", "big_deal"):
            texts.append(moment_line(t, MomentText(kind, 3, None, None, 1, n), seats, sides) or "")
    for kind in ("queen", "moscow", "molodka", "eggs"):
        texts.append(moment_line(t, MomentText(kind, 3, 0, 2, None, 0), seats, sides) or "")
    return texts


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_evening_text_is_translated(lang: str) -> None:
    english = evening_texts("en")
    texts = evening_texts(lang)
    for source, text in zip(english, texts, strict=True):
        assert text and text != source
        assert "{" not in text
        assert shown_length(text) <= MAX_TEXT


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_achievements_list_is_cut_to_one_message(lang: str) -> None:
    t = get_translator(lang)
    many = {name: [f"Player number {i}" for i in range(60)] for name in NAMES}
    many["eggs"] = ["Anna"]
    text = achievements_screen(t, chat_title="Club", holders=many).text
    assert shown_length(text) <= MAX_TEXT
    for _emoji, name, how in NAMES.values():  # every achievement, its "how" whole
        assert f"<b>{t._(name)}</b> — {t._(how)}" in text
    assert t._("and others") in text
    assert "\n    Anna\n" in text  # a short list is left whole
    assert "Player number 0, Player number 1" in text


def test_a_deal_the_other_side_took_no_trick_in_is_a_clean_deal() -> None:
    match = find("street", 4, lambda m: any(0 in d.tricks for d in m.deal_results))
    deal = next(d for d in match.deal_results if 0 in d.tricks)
    empty = deal.tricks.index(0)
    facts = seat_facts(table_for(match, [1, 2, 3, 4]), match)
    for seat in facts:
        other = 1 - match.side_of(seat.seat)
        assert seat.clean_deals == sum(
            1
            for d in match.deal_results
            if d.tricks[other] == 0 and d.defeat_points[other] > 0 and not d.queen_caught
        )
    winners = [f for f in facts if match.side_of(f.seat) != empty]
    assert all("clean_deal" in earned(f, SEASONED) for f in winners)


def test_eggs_are_the_moment_when_nothing_stronger_happened() -> None:
    def quiet_eggs(m: Match) -> bool:
        found = moment(m)
        return found is not None and found.kind is MomentKind.EGGS

    match = find("street", 4, quiet_eggs)
    found = moment(match)
    assert found is not None and found.deal is not None
    assert match.deal_results[found.deal - 1].eggs
    assert not any(" molodka " in a or " moscow " in a for a in match.history)
    facts = seat_facts(table_for(match, [1, 2, 3, 4]), match)
    assert all(f.eggs >= 1 for f in facts)  # 60 to 60: both sides were in it
    assert all("eggs" in earned(f, SEASONED) for f in facts)
    assert all(f.goat_with_eggs == f.goat for f in facts)  # eggs fell in this match


def test_pairs_shows_the_best_first_and_cuts_the_rest() -> None:
    t = get_translator("en")
    pairs = [Pair((f"Anna{i}", f"Vera{i}"), 3 + i % 5, i % 4, 10 + i) for i in range(400)]
    text = pairs_screen(t, chat_title="Club", pairs=pairs, least=3).text
    lines = text.splitlines()
    assert shown_length(text) <= MAX_TEXT
    assert len(lines) == 1 + PAIRS_SHOWN + 1 and lines[-1] == "…"
    best = best_first(pairs)[0]
    assert lines[1].startswith(f"1. <b>{best.names[0]} &amp; {best.names[1]}</b> — ")
    shares = [best_first(pairs)[i].share for i in range(PAIRS_SHOWN)]
    assert shares == sorted(shares, reverse=True)
    few = pairs_screen(t, chat_title="Club", pairs=pairs[:2], least=3).text
    assert not few.endswith("…") and len(few.splitlines()) == 3


def test_a_mean_is_written_as_each_language_writes_decimals() -> None:
    pair = Pair(("Anna", "Vera"), 3, 2, 20)
    english = pairs_screen(get_translator("en"), chat_title="Club", pairs=[pair], least=3)
    russian = pairs_screen(get_translator("ru"), chat_title="Club", pairs=[pair], least=3)
    assert "6.7 defeat points a match" in english.text
    assert "штрафных очков за партию: 6,7" in russian.text
