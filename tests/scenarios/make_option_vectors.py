"""Make the house-rule scenario vectors (``options-*.json``; RULES.md "Options").

    .venv/bin/python tests/scenarios/make_option_vectors.py

Each vector's decks are built here on purpose (hands chosen, the rest of the deck in a fixed
order). The engine is used only to find a line of play with the outcome a vector needs
(random legal actions, special leads left out, tried until the deal ends as wanted). The
``expected`` result is then worked out here from the actions alone, without the engine:
who takes each trick (street/moscow: the last seat that beat, else the leader; ziege: the
highest trump, else the highest card of the led suit; a caught queen ends the deal), the card
points, the next dealer, and the defeat points, eggs factor and match end as RULES.md says
under the vector's options. The script refuses to write a vector whose replay differs.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE.parent / "engine"))

from kozel_testkit import build_deck  # noqa: E402

from kozel_rules import Action, Card, DealResult, Match, Options, replay  # noqa: E402

POINTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}
ZIEGE_TRUMPS = ["8♣", "9♣", "K♣", "10♣", "A♣", "J♦", "J♥", "J♠", "J♣", "Q♦", "Q♥", "Q♠", "Q♣", "7♣"]
ZIEGE_PLAIN = ["7", "8", "9", "K", "10", "A"]
HAND = 4


def points(card: str) -> int:
    return POINTS.get(card[:-1], 0)


def norm(card: str) -> str:
    return str(Card.parse(card))


# ------------------------------------------------------------------ the reference, from RULES.md


def award_of(
    variant: str, opts: Options, cp: list[int], tricks: list[int], queen: int | None
) -> tuple[list[int], bool]:
    """A deal's defeat points for the sides in it (before the eggs factor), and eggs."""
    n = len(cp)
    if queen is not None:
        out = [0] * n
        out[queen] = 4
        return out, False
    if n == 3:
        best = max(cp)
        tie = cp.count(best) > 1
        return [
            (2 if tie else 0) if p == best else 6 if t == 0 else 4 if p <= 20 else 2
            for p, t in zip(cp, tricks, strict=True)
        ], False
    if cp[0] == cp[1]:
        both = 2 if variant == "moscow" and not opts.eggs_double else 0
        return [both, both], True
    loser = 0 if cp[0] < cp[1] else 1
    out = [0, 0]
    p, t = cp[loser], tricks[loser]
    if variant == "ziege" and not opts.tiers:
        out[loser] = 2
    else:
        out[loser] = 6 if t == 0 else 4 if p <= 30 else 2
    return out, False


def going_out(totals: list[int], sides_in: list[int], goat_at: int) -> list[int]:
    going = [x for x in sides_in if totals[x] >= goat_at]
    if len(going) == len(sides_in):
        most = max(totals[x] for x in going)
        going = [x for x in going if totals[x] == most]
        if len(going) == len(sides_in):
            going = []
    return going


def ziege_power(card: str, led: str) -> int:
    """Higher takes; 0 for a card that cannot take the trick."""
    if card in ZIEGE_TRUMPS:
        return 100 + ZIEGE_TRUMPS.index(card)
    key = "T" if led in ZIEGE_TRUMPS else led[-1]
    if card[-1] == key:
        return 1 + ZIEGE_PLAIN.index(card[:-1])
    return 0


@dataclass
class Table:
    variant: str
    players: int
    opts: Options
    dealer: int
    sides: int = field(init=False)
    side_of: list[int] = field(init=False)
    in_game: list[bool] = field(init=False)

    def __post_init__(self) -> None:
        teams = self.players == 4
        self.sides = 2 if teams else self.players
        self.side_of = [s % 2 if teams else s for s in range(self.players)]
        self.in_game = [True] * self.players

    def next_in(self, seat: int) -> int:
        for i in range(1, self.players + 1):
            s = (seat + i) % self.players
            if self.in_game[s]:
                return s
        raise AssertionError

    def prev_in(self, seat: int) -> int:
        for i in range(1, self.players + 1):
            s = (seat - i) % self.players
            if self.in_game[s]:
                return s
        raise AssertionError


def expected_of(record: dict[str, Any]) -> dict[str, Any]:
    """The replay result of ``record`` by the rules, from its decks and actions alone."""
    variant = record["variant"]
    opts = Options.from_json(record.get("options"), variant)
    t = Table(variant, record["players"], opts, record["dealer"])
    deck_size = 32 if variant == "ziege" else 36
    totals = [0] * t.sides
    sides_in = list(range(t.sides))
    streak = 0
    deals: list[dict[str, Any]] = []
    actions = [Action.parse(a) for a in record["actions"]]
    i = 0
    dealer = t.dealer
    leader = dealer if variant == "ziege" else t.next_in(dealer)
    number = 0
    while len(sides_in) > 1 and i < len(actions):
        deck = [norm(c) for c in record["decks"][number]]
        number += 1
        seats = [s for s in range(t.players) if t.in_game[s]]
        trump = None
        if variant == "moscow":
            trump = deck[HAND * len(seats)][-1]
        elif variant == "street":
            rest = deck[HAND * len(seats) :]
            trump = rest[len(rest) // 2][-1]
        first_leader = leader
        tricks = [0] * t.sides
        cp = [0] * t.sides
        played = 0
        takers: list[int] = []
        queen_side: int | None = None
        trick_leader = leader
        while played < deck_size and queen_side is None:
            plays: list[tuple[int, str, list[str]]] = []
            while len(plays) < len(seats):
                a = actions[i]
                i += 1
                verb = str(a.verb)
                if verb in ("give", "return"):
                    continue
                assert verb in ("lead", "play", "beat", "discard"), verb
                plays.append((a.seat, verb, [str(c) for c in a.cards]))
                cards_here = [c for _, _, cs in plays for c in cs]
                if variant == "ziege" and "Q♣" in cards_here and "7♣" in cards_here:
                    q = next(s for s, _, cs in plays if "Q♣" in cs)
                    k = next(s for s, _, cs in plays if "7♣" in cs)
                    if t.side_of[q] != t.side_of[k]:
                        queen_side = t.side_of[q]
                        break
            if queen_side is not None:
                break
            cards = [c for _, _, cs in plays for c in cs]
            played += len(cards)
            if variant == "ziege":
                led = plays[0][2][0]
                taker = max(plays, key=lambda p: ziege_power(p[2][0], led))[0]
            else:
                beaters = [s for s, verb, _ in plays if verb == "beat"]
                taker = beaters[-1] if beaters else plays[0][0]
            assert plays[0][0] == trick_leader
            takers.append(taker)
            tricks[t.side_of[taker]] += 1
            cp[t.side_of[taker]] += sum(points(c) for c in cards)
            trick_leader = taker
        if queen_side is not None:
            cp = [0] * t.sides
        base, eggs = award_of(
            variant,
            t.opts,
            [cp[x] for x in sides_in],
            [tricks[x] for x in sides_in],
            sides_in.index(queen_side) if queen_side is not None else None,
        )
        factor = 2**streak
        award = [0] * t.sides
        for j, x in enumerate(sides_in):
            award[x] = base[j] * factor
            totals[x] += award[x]
        if t.opts.eggs_double:
            streak = streak + 1 if eggs else 0
        deals.append(
            {
                "dealer": dealer,
                "trump": trump,
                "first_leader": first_leader,
                "tricks": tricks,
                "card_points": cp,
                "defeat_points": award,
                "eggs": eggs,
                "queen_caught": queen_side is not None,
                "last_trick_seat": takers[-1] if takers else None,
            }
        )
        # the next deal's dealer, from the seats in before anyone leaves
        if variant == "moscow":
            order = [t.next_in(dealer)]
            while len(order) < len(seats):
                order.append(t.next_in(order[-1]))
            best = max(cp)
            winner = next(s for s in order if cp[t.side_of[s]] == best)
        going = going_out(totals, sides_in, t.opts.goat_at)
        for s in range(t.players):
            if t.side_of[s] in going:
                t.in_game[s] = False
        sides_in = [x for x in sides_in if x not in going]
        if len(sides_in) <= 1:
            break
        if variant == "ziege":
            dealer = t.next_in(dealer)
            leader = dealer
        elif variant == "street":
            leader = takers[-1]
            dealer = t.prev_in(leader)
        else:
            dealer = winner if t.in_game[winner] else t.next_in(winner)
            leader = t.next_in(dealer)
    assert i == len(actions), "actions left after the match or the deals"
    return {
        "ok": True,
        "error": None,
        "legal": None,
        "deals": deals,
        "defeat_points": totals,
        "match_over": len(sides_in) <= 1,
        "out": sorted(x for x in range(t.sides) if x not in sides_in),
    }


# ------------------------------------------------------------------ finding lines of play

Want = Callable[[DealResult, Match], bool]


def play_deal(m: Match, rng: random.Random) -> list[str]:
    """Random legal actions (no special lead) to the end of the current deal."""
    number = m.deal_number
    done: list[str] = []
    while not m.is_over and m.deal_number == number:
        legal = [a for a in m.legal_actions() if str(a.verb) not in ("molodka", "moscow")]
        a = rng.choice(legal)
        m.apply(a)
        done.append(str(a))
    return done


def find_match(
    variant: str,
    players: int,
    options: dict[str, Any],
    dealer: int,
    decks: Callable[[int, int], list[str]],
    wants: list[Want],
    *,
    seed: int,
    tries: int = 20000,
    to_the_end: bool = False,
) -> dict[str, Any]:
    """A record whose deals end as ``wants`` say, one deal after the other; ``decks(number,
    dealer)`` builds deal ``number``'s deck. With ``to_the_end``, deals go on (any outcome
    once ``wants`` are met) until the match is over."""
    rng = random.Random(seed)
    m = Match.new(variant, players, dealer=dealer, decks=[decks(1, dealer)], options=options)
    actions: list[str] = []
    given = [decks(1, dealer)]
    k = 0
    while not m.is_over and (k < len(wants) or to_the_end):
        want = wants[k] if k < len(wants) else (lambda r, m: True)
        for _ in range(tries):
            trial = Match.from_json(m.to_json())
            line = play_deal(trial, rng)
            r = trial.deal_results[-1]
            if want(r, trial):
                break
        else:
            raise SystemExit(f"no line found for deal {k + 1}")
        m = trial
        actions += line
        k += 1
        if not m.is_over:
            nxt = decks(m.deal_number, m.dealer)
            given.append(nxt)
            m = Match.new(variant, players, dealer=dealer, decks=given, options=options)
            for a in actions:
                m.apply_text(a)
    record: dict[str, Any] = {"variant": variant, "players": players, "dealer": dealer}
    record["options"] = options
    record.update(decks=given, seed=seed, actions=actions, with_legal=False)
    return record


# ------------------------------------------------------------------ the vectors


def moscow_deck(players: int) -> Callable[[int, int], list[str]]:
    """Deal ``n``: a fixed hand for the seat after the dealer, turned card by the deal."""
    suits = "♠♥♦♣"

    def make(n: int, dealer: int) -> list[str]:
        first = (dealer + 1) % players
        hands = {first: f"A{suits[n % 4]} 10{suits[(n + 1) % 4]} 7♥ 8♦"}
        trump = f"9{suits[(n + 2) % 4]}"
        return build_deck("moscow", hands, players=players, dealer=dealer, trump=trump)

    return make


def ziege_deck(hands_by_deal: dict[int, dict[int, str]]) -> Callable[[int, int], list[str]]:
    def make(n: int, dealer: int) -> list[str]:
        return build_deck("ziege", hands_by_deal.get(n, {}), dealer=dealer)

    return make


def street_deck(n: int, dealer: int) -> list[str]:
    suits = "♠♥♦♣"
    hands = {(dealer + 1) % 4: f"A{suits[n % 4]} K{suits[n % 4]} 7♥ 8♦"}
    return build_deck("street", hands, dealer=dealer, trump=f"10{suits[(n + 3) % 4]}")


def eggs(r: DealResult, m: Match) -> bool:
    return r.eggs


def not_eggs(r: DealResult, m: Match) -> bool:
    return not r.eggs and not r.queen_caught


def loser_gets(n: int, side: int) -> Want:
    def want(r: DealResult, m: Match) -> bool:
        return not r.queen_caught and r.defeat_points[side] == n

    return want


def queen_caught(r: DealResult, m: Match) -> bool:
    return r.queen_caught


def some_out(r: DealResult, m: Match) -> bool:
    return bool(r.out) and not m.is_over


VECTORS: list[tuple[str, str, str, Callable[[], dict[str, Any]]]] = [
    (
        "options-moscow2-eggs-double-twice-then-x4-01",
        "mined",
        "moscow 2 players, eggs double: two deals of 60:60 give nobody anything (not 2 each), "
        "the third deal counts 4 times: seat 1's 2 becomes 8",
        lambda: find_match(
            "moscow", 2, {"eggs": "double"}, 0, moscow_deck(2), [eggs, eggs, not_eggs], seed=1
        ),
    ),
    (
        "options-ziege-eggs-double-queen-caught-8-01",
        "mined",
        "ziege, eggs double: a deal of 60:60 (0:0), then the Q♣ caught by the 7♣ costs team 0 "
        "8 instead of 4",
        lambda: find_match(
            "ziege",
            4,
            {"eggs": "double"},
            0,
            ziege_deck({2: {0: "Q♣ 7♠ 8♠ 9♥", 1: "7♣ 7♥ 8♥ 9♦"}}),
            [eggs, queen_caught],
            seed=2,
        ),
    ),
    (
        "options-moscow4-eggs-double-nobody-gets-2-01",
        "mined",
        "moscow 4 players, eggs double: 60:60 gives neither team 2 (without the option: 2 "
        "each); the next deal counts double: team 0's 6 (no trick) becomes 12, out",
        lambda: find_match(
            "moscow", 4, {"eggs": "double"}, 3, moscow_deck(4), [eggs, not_eggs], seed=3
        ),
    ),
    (
        "options-moscow3-goat-at-6-01",
        "mined",
        "moscow 3 players, goat_at 6: seat 1 is out after deal 1 with 6, seats 0 and 2 play "
        "on with two-side scoring until seat 2 has 8 (4+4): seat 0 wins with 2",
        lambda: find_match(
            "moscow", 3, {"goat_at": 6}, 1, moscow_deck(3), [some_out], seed=4, to_the_end=True
        ),
    ),
    (
        "options-ziege-tiers-2-4-6-01",
        "mined",
        "ziege, ziege_scoring tiers: the losing team gets 2 (31-59 card points), then 4 (30 or "
        "fewer with a trick), then 6 (no trick); totals 4:8, the match goes on",
        lambda: find_match(
            "ziege",
            4,
            {"ziege_scoring": "tiers"},
            0,
            ziege_deck(
                {3: {0: "7♣ Q♣ Q♠ Q♥", 1: "7♠ 8♠ 9♠ K♠", 2: "Q♦ J♣ J♠ J♥", 3: "7♥ 8♥ 9♥ K♥"}}
            ),
            [loser_gets(2, 1), loser_gets(4, 0), loser_gets(6, 1)],
            seed=5,
        ),
    ),
    (
        "options-street-goat-at-6-01",
        "mined",
        "street, goat_at 6: 4:0, 0:4 (4:4, both under 6), then team 1 gets 6: 10, out",
        lambda: find_match(
            "street", 4, {"goat_at": 6}, 2, street_deck, [], seed=6, to_the_end=True
        ),
    ),
]

RECORD_ERRORS = [
    (
        "options-record-error-goat-at-string-01",
        'street, options goat_at "6" (a string, not the number 6): an error of the record',
        {"variant": "street", "players": 4, "dealer": 0, "options": {"goat_at": "6"}},
    ),
    (
        "options-record-error-ziege-scoring-in-moscow-01",
        "moscow 2 players, options ziege_scoring: an option of ziege only, an error of the record",
        {"variant": "moscow", "players": 2, "dealer": 0, "options": {"ziege_scoring": "tiers"}},
    ),
    (
        "options-record-error-unknown-option-01",
        "ziege, options with an unknown key: an error of the record",
        {"variant": "ziege", "players": 4, "dealer": 0, "options": {"goats": 6}},
    ),
]


def write(name: str, kind: str, about: str, record: dict[str, Any], exp: dict[str, Any]) -> None:
    vector = {
        "name": name,
        "about": about,
        "kind": kind,
        "variant": record["variant"],
        "players": record["players"],
        "record": record,
        "expected": exp,
    }
    text = json.dumps(vector, ensure_ascii=False)
    (HERE / f"{name}.json").write_text(text + "\n", encoding="utf-8")


def main() -> None:
    for name, kind, about, make in VECTORS:
        record = make()
        exp = expected_of(record)
        got = replay(record)
        for key in ("ok", "error", "deals", "defeat_points", "match_over", "out"):
            if got[key] != exp[key]:
                raise SystemExit(f"{name}: {key} differs:\n rules  {exp[key]}\n engine {got[key]}")
        write(name, kind, about, record, exp)
        print(name, exp["defeat_points"], [d["defeat_points"] for d in exp["deals"]])
    for name, about, record in RECORD_ERRORS:
        record = {**record, "decks": [], "seed": 0, "actions": ["1 lead 9♠"], "with_legal": True}
        got = replay(record)
        assert got["ok"] is False and got["error"]["index"] is None, got
        error = {"index": None, "action": None, "reason": got["error"]["reason"]}  # free wording
        exp = {"ok": False, "error": error, "legal": None, "deals": [], "defeat_points": []}
        exp.update(match_over=False, out=[])
        write(name, "record-error", about, record, exp)
        print(name, got["error"]["reason"])


if __name__ == "__main__":
    main()
