"""The game state: the one implementation of the rules, in a compact form built for speed.

:class:`Match` (``match.py``) is the checked, friendly API around a :class:`GameState`; computer
players use :class:`GameState` directly for playouts.

Representation
--------------
* A card is its index ``c`` (``suit * 9 + rank``); a set of cards is an ``int`` mask with bit ``c``
  set (``1 << c``). Hands, piles and played sets are masks.
* A *compact action* is a tuple ``(seat, verb_code, mask)``; ``VERB_OF_CODE[verb_code]`` is the
  :class:`~kozel_rules.action.Verb`. :func:`to_action` / :func:`from_action` convert to and from
  :class:`~kozel_rules.action.Action`.
* :meth:`GameState.legal` lists every legal compact action of every seat (the seat to move and
  seats that may declare a special lead); :meth:`GameState.step` applies one **without checking**
  it (pass only actions from :meth:`legal`; :class:`Match` does the checking).

Playouts (for computer players)
-------------------------------
::

    st = match.state_copy()              # or GameState.copy(); cheap
    st.determinize(seat, rng)            # resample what ``seat`` cannot see (optional)
    result = st.playout(rng)             # uniform random legal actions to the deal's end
    result.card_points, result.defeat_points

or drive it yourself: ``while not st.deal_done(number): st.step(policy(st.legal()))`` (set
``st.hold = True`` first to stop at the deal's end instead of dealing the next one).
``playout`` uses tighter loops than ``legal()``/``step()``, but makes exactly the same choices
from the same ``rng`` and ends in the same state (tests check this from thousands of positions).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from ._tables import (
    BIT,
    COMBOS,
    SUIT_MASK,
    Tables,
    bits_of,
    can_pair,
    cards_of,
    mask_points,
    subsets_k,
    tables_for,
)
from .action import Action, Verb
from .card import CARDS, Suit
from .errors import RecordError
from .event import (
    CardGiven,
    CardsPlayed,
    CardsReturned,
    DealEnded,
    DealStarted,
    Event,
    ExchangeMade,
    MatchEnded,
    QueenCaught,
    TrickTaken,
)
from .result import DealResult, MatchResult
from .scoring import score_deal, sides_going_out
from .variant import FirstLeader, NextDeal, TrumpKind, Variant, get_variant
from .view import Phase

# Phase codes (GameState.phase): small ints for the hot path, PHASES[code] is the Phase.
# DEAL_OVER: a playout state stopped after its deal was scored (``hold``); nothing more happens.
LEAD, RESPOND, GIVE, RETURN, FORCED_LEAD, OVER, DEAL_OVER = range(7)
PHASES: tuple[Phase, ...] = (
    Phase.LEAD,
    Phase.RESPOND,
    Phase.GIVE,
    Phase.RETURN,
    Phase.FORCED_LEAD,
    Phase.OVER,
    Phase.DEAL_OVER,
)

# Verb codes of compact actions
V_LEAD, V_BEAT, V_DISCARD, V_MOLODKA, V_MOSCOW, V_PLAY, V_GIVE, V_RETURN = range(8)
VERB_OF_CODE: tuple[Verb, ...] = (
    Verb.LEAD,
    Verb.BEAT,
    Verb.DISCARD,
    Verb.MOLODKA,
    Verb.MOSCOW,
    Verb.PLAY,
    Verb.GIVE,
    Verb.RETURN,
)
CODE_OF_VERB: dict[Verb, int] = {v: i for i, v in enumerate(VERB_OF_CODE)}

_SUITS = tuple(Suit)

CAction = tuple[int, int, int]
"""A compact action: ``(seat, verb_code, card_mask)``."""

Log = list[Event]


def to_action(a: CAction) -> Action:
    """The :class:`Action` of a compact action."""
    return Action(a[0], VERB_OF_CODE[a[1]], cards_of(a[2]))


def from_action(action: Action) -> CAction:
    """The compact form of an :class:`Action` (no checks)."""
    m = 0
    for c in action.cards:
        m |= 1 << int(c)
    return (action.seat, CODE_OF_VERB[action.verb], m)


def shuffled_deck(variant: Variant, seed: object, number: int) -> list[int]:
    """Deal ``number``'s deck (top first) when the record gives none: a deterministic shuffle
    from ``(seed, number)``, never the global ``random``."""
    deck = list(tables_for(variant).deck)
    random.Random(f"{seed}/{number}").shuffle(deck)
    return deck


def default_dealer(seed: object, players: int) -> int:
    """The first dealer when none is given: drawn from the match seed."""
    return random.Random(f"{seed}/dealer").randrange(players)


def check_deck(variant: Variant, deck: Sequence[int]) -> list[int]:
    """``deck`` as a list of card indices; raises RecordError unless it is exactly the
    variant's cards, each once."""
    cards = [int(c) for c in deck]
    want = sorted(int(c) for c in variant.deck)
    if len(cards) != len(want):
        raise RecordError(f"a {variant.name} deck has {len(want)} cards, not {len(cards)}")
    if sorted(cards) != want:
        seen: set[int] = set()
        for c in cards:
            if c in seen:
                raise RecordError(f"card {CARDS[c]} appears twice in a deck")
            seen.add(c)
        extra = [str(CARDS[c]) if 0 <= c < 36 else str(c) for c in cards if c not in set(want)]
        raise RecordError(f"cards not in a {variant.name} deck: {' '.join(extra)}")
    return cards


class GameState:
    """A whole match in compact form. See the module docstring."""

    # copy() shares the fields of SHARED_FIELDS (never changed in place: numbers, tuples and
    # what is fixed for the match) and gives each copy its own copy of the lists of
    # OWN_LISTS (changed in place; their items are immutable, so a shallow copy will do).
    SHARED_FIELDS: ClassVar[tuple[str, ...]] = (
        # fixed for the match
        "variant",
        "tables",
        "players",
        "seed",
        "decks",
        "side_of",
        "side_count",
        "partner",
        "verb_of_kind",
        "first_dealer",
        "hold",
        # match
        "sides_in",
        "order_from",
        "distance",
        "eggs_fell",
        "match_result",
        "deal_number",
        "dealer",
        # deal
        "trump",
        "trump_card",
        "trump_stock_index",
        "beaters",
        "first_leader",
        "last_taker",
        "seen_face_up",
        "any_special",
        # trick
        "phase",
        "due_leader",
        "leader",
        "order",
        "turn",
        "set_size",
        "top_seat",
        "top_mask",
        "declared_kind",
        "declared_distance",
        "table_cards",
        "table_face_up",
        "led_key",
        "best_seat",
        "best_power",
        "queen_seat",
        "catcher_seat",
        "forced_card",
        "last_trick",
    )
    OWN_LISTS: ClassVar[tuple[str, ...]] = (
        # match
        "in_game",
        "defeat_points",
        "sides_out",
        "deal_results",
        "decks_used",
        # deal
        "hands",
        "stock",
        "piles",
        "tricks_taken",
        "trick_takers",
        "revealed",
        "face_down",
        "voids",
        "gifts",
        "special_of",
        # trick
        "plays",
    )
    __slots__ = SHARED_FIELDS + OWN_LISTS

    # fixed for the match
    variant: Variant
    tables: Tables  # the variant's precomputed tables
    players: int
    seed: object  # shuffles the decks of the deals ``decks`` does not give
    decks: list[list[int]]  # decks given for the first deals (card indices, top first)
    side_of: tuple[int, ...]  # per seat: its side (its team, or the seat itself)
    side_count: int
    partner: tuple[int, ...]  # per seat: its partner (the seat itself without teams)
    verb_of_kind: tuple[int, ...]  # per special kind (1, 2, ...): the verb code declaring it
    first_dealer: int
    hold: bool  # stop once the current deal is scored (phase DEAL_OVER), for playouts
    # the match
    in_game: list[bool]  # per seat
    sides_in: tuple[int, ...]  # the sides still in, ascending
    order_from: tuple[tuple[int, ...], ...]  # per seat: the seats still in, in play order from it
    distance: tuple[tuple[int, ...], ...]  # [a][b]: b's place in order_from[a] (players if out)
    defeat_points: list[int]  # per side
    sides_out: list[int]  # in the order they went out (the last one is the goat)
    deal_results: list[DealResult]
    eggs_fell: bool  # some deal ended in eggs
    match_result: MatchResult | None  # set when the match ends
    deal_number: int  # of the current deal, from 1
    dealer: int
    decks_used: list[list[int]]  # the deck of every deal dealt so far
    # the deal
    trump: int  # the trump suit, -1 for none (fixed trumps)
    trump_card: int  # the shown or turned trump card, -1 for none
    trump_stock_index: int  # where the trump card lies in ``stock`` while there (-1: none)
    beaters: tuple[int, ...]  # per card: the mask of the cards that beat it under this trump
    first_leader: int
    hands: list[int]  # per seat
    stock: list[int]  # one single-card mask per card; the next card drawn is the last
    piles: list[int]  # per seat: the cards of the tricks it took
    tricks_taken: list[int]  # per seat
    trick_takers: list[int]  # who took each trick, in order
    last_taker: int  # -1 before the first trick is taken
    seen_face_up: int  # the face-up cards of the deal's completed tricks
    revealed: list[int]  # per seat: face-up cards it took back when a special was declared
    face_down: list[int]  # per seat: the cards it put face down (and did not take back)
    voids: list[int]  # follow play, per seat: bit ``key`` set if it showed it lacks that key
    gifts: list[tuple[int, int, int]]  # the exchanges: (giver, receiver, card mask)
    special_of: list[int]  # per seat: the special kind its hand forms (0: none)
    any_special: bool  # any(special_of)
    # the trick
    phase: int  # a phase code: LEAD, RESPOND, ... (PHASES[phase] is the Phase)
    due_leader: int  # the seat due to lead this trick
    leader: int  # the seat leading now (a special's declarer once one is declared)
    order: tuple[int, ...]  # the trick's seats in play order, from the leader
    turn: int  # the index in ``order`` of the seat to play
    set_size: int  # cards in each play of the trick (1 in follow play)
    plays: list[CAction]
    top_seat: int  # beat play: the owner of the top set
    top_mask: int  # beat play: the top set, the cards to beat
    declared_kind: int  # beat play: the special kind declared this trick (0: none)
    declared_distance: int  # its declarer's distance from the due leader (players: none)
    table_cards: int  # every card on the table, face up or down
    table_face_up: int  # the face-up cards on the table
    led_key: int  # follow play: the follow key of the led card (a suit, or TRUMP_KEY)
    best_seat: int  # follow play: the seat of the best card so far
    best_power: int  # follow play: that card's trick power
    queen_seat: int  # queen catch: the seat that played the queen this trick (-1: none)
    catcher_seat: int  # queen catch: the seat that played the catcher this trick (-1: none)
    forced_card: int  # exchange: the card the leader must lead (its partner returned it)
    last_trick: tuple[int, int, list[CAction], int] | None  # (leader, due leader, plays, taker)

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        variant: str | Variant,
        players: int = 4,
        seed: object = 0,
        dealer: int | None = None,
        decks: Sequence[Sequence[int]] | None = None,
        log: Log | None = None,
    ) -> GameState:
        """A new match, its first deal dealt. ``decks``: card indices (or Cards), top first."""
        v = get_variant(variant)
        if not isinstance(players, int) or players not in v.player_counts:
            counts = ", ".join(map(str, v.player_counts))
            raise RecordError(f"{v.name} is played by {counts} players, not {players!r}")
        if dealer is None:
            dealer = default_dealer(seed, players)
        if not isinstance(dealer, int) or not 0 <= dealer < players:
            raise RecordError(f"dealer must be a seat 0..{players - 1}, not {dealer!r}")
        st = cls.__new__(cls)
        st.variant = v
        st.tables = tables_for(v)
        st.players = players
        st.seed = seed
        st.decks = [check_deck(v, d) for d in (decks or [])]
        if players == v.team_players:
            st.side_of = tuple(s % 2 for s in range(players))
            st.partner = tuple((s + players // 2) % players for s in range(players))
        else:
            st.side_of = tuple(range(players))
            st.partner = tuple(range(players))
        st.side_count = v.sides_for(players)
        st.verb_of_kind = (0, *(CODE_OF_VERB[s.verb] for s in v.specials))
        st.first_dealer = dealer
        st.hold = False
        st.in_game = [True] * players
        st.sides_in = tuple(range(st.side_count))
        st._seat_tables()
        st.defeat_points = [0] * st.side_count
        st.sides_out = []
        st.deal_results = []
        st.eggs_fell = False
        st.match_result = None
        st.deal_number = 0
        st.decks_used = []
        leader = dealer if v.first_leader is FirstLeader.DEALER else st.next_in(dealer)
        st._start_deal(dealer, leader, log)
        return st

    def _seat_tables(self) -> None:
        n = self.players
        ing = self.in_game
        order_from = []
        distance = []
        for s in range(n):
            order = tuple((s + i) % n for i in range(n) if ing[(s + i) % n])
            order_from.append(order)
            d = [n] * n
            for i, x in enumerate(order):
                d[x] = i
            distance.append(tuple(d))
        self.order_from = tuple(order_from)
        self.distance = tuple(distance)

    def next_in(self, seat: int) -> int:
        """The next seat still in, clockwise after ``seat``."""
        for i in range(1, self.players + 1):
            s = (seat + i) % self.players
            if self.in_game[s]:
                return s
        raise AssertionError("no seat in the game")

    def prev_in(self, seat: int) -> int:
        """The previous seat still in, counter-clockwise before ``seat``."""
        for i in range(1, self.players + 1):
            s = (seat - i) % self.players
            if self.in_game[s]:
                return s
        raise AssertionError("no seat in the game")

    def copy(self) -> GameState:
        """An independent copy: every list of ``OWN_LISTS`` is copied, every other field
        is shared."""
        return _copy_state(self)

    # ------------------------------------------------------------------ deals

    def _start_deal(self, dealer: int, leader: int, log: Log | None) -> None:
        self.deal_number += 1
        no = self.deal_number
        if no <= len(self.decks):
            deck = self.decks[no - 1]
        else:
            deck = shuffled_deck(self.variant, self.seed, no)
        self.decks_used.append(deck)
        self.dealer = dealer
        tables = self.tables
        n = self.players
        hands = [0] * n
        order = self.order_from[self.next_in(dealer)]
        i = 0
        for _ in range(tables.hand_size):
            for s in order:
                hands[s] |= BIT[deck[i]]
                i += 1
        rest = deck[i:]
        kind = tables.trump_kind
        if kind is TrumpKind.MIDDLE:
            mid = len(rest) // 2
            tc = rest[mid]
            self.trump_stock_index = len(rest) - 1 - mid  # index in the stock list (top at the end)
        elif kind is TrumpKind.TURNED:
            tc = rest[0]
            rest = [*rest[1:], tc]
            self.trump_stock_index = 0
        else:
            tc = -1
            self.trump_stock_index = -1
        self.stock = [BIT[c] for c in reversed(rest)]
        self.trump_card = tc
        self.trump = tc // 9 if tc >= 0 else -1
        self.beaters = tables.beaters[self.trump] if tc >= 0 else ()
        self.hands = hands
        self.piles = [0] * n
        self.tricks_taken = [0] * n
        self.trick_takers = []
        self.last_taker = -1
        self.seen_face_up = 0
        self.revealed = [0] * n
        self.face_down = [0] * n
        self.voids = [0] * n
        self.gifts = []
        if tables.has_specials:
            self.special_of = [tables.special_kind(h) if h else 0 for h in hands]
        else:
            self.special_of = [0] * n
        self.any_special = any(self.special_of)
        self.first_leader = leader
        self.last_trick = None
        self.table_cards = 0
        self.table_face_up = 0
        self.set_size = 0
        self.top_seat = -1
        self.top_mask = 0
        self.declared_kind = 0
        self.declared_distance = n
        self.queen_seat = -1
        self.catcher_seat = -1
        self.led_key = 0
        self.best_seat = -1
        self.best_power = -1
        self.forced_card = 0
        if log is not None:
            log.append(
                DealStarted(
                    number=no,
                    dealer=dealer,
                    first_leader=leader,
                    trump=Suit(self.trump) if self.trump >= 0 else None,
                    trump_card=CARDS[tc] if tc >= 0 else None,
                )
            )
        self._begin_trick(leader)

    def _begin_trick(self, due: int) -> None:
        # Only what a new trick resets; the lead sets the rest (set size, led key, top, best card).
        self.due_leader = due
        self.leader = due
        self.order = self.order_from[due]
        self.turn = 0
        self.plays = []
        tables = self.tables
        if tables.follow:
            self.queen_seat = -1
            self.catcher_seat = -1
            if tables.exchange:
                hands = self.hands
                if (
                    not hands[due] & tables.plain_mask
                    and hands[self.partner[due]] & tables.plain_mask
                ):
                    self.phase = GIVE
                    return
        else:
            self.declared_kind = 0
            self.declared_distance = self.players
        self.phase = LEAD

    def _end_trick(self, taker: int, log: Log | None) -> None:
        table_cards = self.table_cards
        self.piles[taker] |= table_cards
        self.table_cards = 0
        self.tricks_taken[taker] += 1
        self.trick_takers.append(taker)
        self.last_taker = taker
        self.seen_face_up |= self.table_face_up
        self.table_face_up = 0
        self.last_trick = (self.leader, self.due_leader, self.plays, taker)
        hands = self.hands
        if log is not None:
            log.append(
                TrickTaken(seat=taker, side=self.side_of[taker], cards=table_cards.bit_count())
            )
        stock = self.stock
        if stock:
            order = self.order_from[taker]
            k = self.set_size
            if k == 1:  # one round (the stock is a multiple of the player count)
                for s in order:
                    hands[s] |= stock.pop()
            else:
                for _ in range(min(k, len(stock) // len(order))):
                    for s in order:
                        hands[s] |= stock.pop()
            tables = self.tables
            if tables.follow:
                self.voids = [0] * self.players
            elif tables.has_specials:
                special_kind = tables.special_kind
                special_of = self.special_of
                not_wild = tables.not_wild
                not_moscow = tables.not_moscow
                for s in order:
                    h = hands[s]
                    r = h & not_wild
                    low = r & -r
                    if r & ~SUIT_MASK[(low.bit_length() - 1) // 9] and h & not_moscow:
                        special_of[s] = 0  # neither of one suit nor of aces and tens: no special
                    else:
                        special_of[s] = special_kind(h)
                self.any_special = any(special_of)
        if hands[taker]:
            self._begin_trick(taker)
        else:
            self._end_deal(-1, log)

    def _end_deal(self, queen_side: int, log: Log | None) -> None:
        v = self.variant
        n = self.players
        side_of = self.side_of
        ns = self.side_count
        sides_in = self.sides_in
        tricks = [0] * ns
        cp = [0] * ns
        award = [0] * ns
        side_cards = [0] * ns
        for s in range(n):
            x = side_of[s]
            tricks[x] += self.tricks_taken[s]
            side_cards[x] |= self.piles[s]
        caught = queen_side >= 0
        eggs = False
        best = 0
        if caught:
            assert v.queen_catch is not None
            award[queen_side] = v.queen_catch.award
        else:
            for x in sides_in:
                cp[x] = mask_points(side_cards[x])
            award, eggs = score_deal(self.tables.scoring[len(sides_in)], cp, tricks, sides_in)
            best = max(cp)
        defeat = self.defeat_points
        for x in sides_in:
            defeat[x] += award[x]
        going = sides_going_out(defeat, sides_in, v.out_at)
        result = DealResult(
            number=self.deal_number,
            dealer=self.dealer,
            trump=_SUITS[self.trump] if self.trump >= 0 else None,
            first_leader=self.first_leader,
            tricks=tuple(tricks),
            card_points=tuple(cp),
            defeat_points=tuple(award),
            eggs=eggs,
            queen_caught=caught,
            queen_side=queen_side if caught else None,
            last_trick_seat=self.last_taker if self.last_taker >= 0 else None,
            out=tuple(sorted(going)) if going else (),
        )
        self.deal_results.append(result)
        winner = -1
        if v.next_deal is NextDeal.WINNER_DEALS:
            # the deal's winner: the first seat from D+1 (before anyone leaves) whose side
            # has the most card points
            deal_order = self.order_from[self.next_in(self.dealer)]
            winner = deal_order[0]
            if not caught:
                for s in deal_order:
                    if cp[side_of[s]] == best:
                        winner = s
                        break
        if eggs:
            self.eggs_fell = True
        if log is not None:
            log.append(DealEnded(result))
        if going:
            # within one deal: fewer defeat points first, so the last one out is the goat
            for x in sorted(going, key=lambda x: (defeat[x], -x)):
                self.sides_out.append(x)
            for s in range(n):
                if side_of[s] in going:
                    self.in_game[s] = False
            self.sides_in = tuple(x for x in sides_in if x not in going)
            self._seat_tables()
        if len(self.sides_in) <= 1:
            self.phase = OVER
            self.match_result = MatchResult(
                defeat_points=tuple(defeat),
                winners=self.sides_in,
                losers=tuple(self.sides_out),
                goat=self.sides_out[-1],
                goat_with_eggs=self.eggs_fell,
                deals=self.deal_number,
            )
            if log is not None:
                log.append(MatchEnded(self.match_result))
            return
        if self.hold:
            self.phase = DEAL_OVER
            return
        rule = v.next_deal
        if rule is NextDeal.LAST_TRICK_LEADS:
            leader = self.last_taker if self.last_taker >= 0 else self.next_in(self.dealer)
            if not self.in_game[leader]:
                leader = self.next_in(leader)
            self._start_deal(self.prev_in(leader), leader, log)
            return
        if rule is NextDeal.WINNER_DEALS:
            dealer = winner if self.in_game[winner] else self.next_in(winner)
        else:
            dealer = self.next_in(self.dealer)
        leader = dealer if v.first_leader is FirstLeader.DEALER else self.next_in(dealer)
        self._start_deal(dealer, leader, log)

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def to_move(self) -> int | None:
        ph = self.phase
        if ph == RESPOND:
            return self.order[self.turn]
        if ph >= OVER:
            return None
        if ph == RETURN:
            return self.partner[self.due_leader]
        return self.due_leader

    @property
    def phase_name(self) -> Phase:
        return PHASES[self.phase]

    def trump_card_in_stock(self) -> bool:
        return self.trump_stock_index >= 0 and len(self.stock) > self.trump_stock_index

    def deal_done(self, number: int) -> bool:
        """Has deal ``number`` been scored (or the match ended)?"""
        return len(self.deal_results) >= number

    def legal(self) -> list[CAction]:
        """Every legal compact action of every seat, in a fixed order."""
        ph = self.phase
        tables = self.tables
        hands = self.hands
        if tables.follow:
            if ph == RESPOND:
                seat = self.order[self.turn]
                h = hands[seat]
                c = h & tables.follow_mask[self.led_key]
                if not c:
                    c = h
                out = []
                while c:
                    b = c & -c
                    out.append((seat, V_PLAY, b))
                    c ^= b
                return out
            if ph == LEAD:
                seat = self.due_leader
                h = hands[seat]
                c = h & tables.plain_mask if self.variant.trump_lead_ban else h
                if not c:
                    c = h
                out = []
                while c:
                    b = c & -c
                    out.append((seat, V_LEAD, b))
                    c ^= b
                return out
            if ph == GIVE:
                seat = self.due_leader
                return [(seat, V_GIVE, b) for b in bits_of(hands[seat])]
            if ph == RETURN:
                seat = self.partner[self.due_leader]
                return [(seat, V_RETURN, b) for b in bits_of(hands[seat] & tables.plain_mask)]
            if ph == FORCED_LEAD:
                return [(self.due_leader, V_LEAD, self.forced_card)]
            return []
        if ph == RESPOND:
            seat = self.order[self.turn]
            h = hands[seat]
            k = self.set_size
            out = [(seat, V_DISCARD, s) for s in subsets_k(h, k)]
            for s in self._beats(h, k):
                out.append((seat, V_BEAT, s))
        elif ph == LEAD:
            seat = self.due_leader
            h = hands[seat]
            out = [(seat, V_LEAD, s) for s in tables.leads_memo.get(h) or tables.leads(h)]
        else:
            return []
        if self.any_special:
            out += self._specials()
        return out

    def _beats(self, h: int, k: int) -> Sequence[int]:
        """The ``k``-card submasks of hand ``h`` that beat the top set, in ``subsets_k`` order."""
        beaters = self.beaters
        top = self.top_mask
        if k == 1:
            c = h & beaters[top.bit_length() - 1]
            return bits_of(c) if c else ()
        tops = []
        while top:
            b = top & -top
            t = b.bit_length() - 1
            if not h & beaters[t]:
                return ()
            tops.append(t)
            top ^= b
        if k == 2:
            b0 = beaters[tops[0]]
            b1 = beaters[tops[1]]
            out = []
            for s in subsets_k(h, 2):
                lo = s & -s
                hi = s ^ lo
                if (lo & b0 and hi & b1) or (lo & b1 and hi & b0):
                    out.append(s)
            return out
        return [s for s in subsets_k(h, k) if can_pair(bits_of(s), tops, beaters)]

    def _specials(self) -> list[CAction]:
        """The special leads seats may declare now (seat order from the seat due to lead)."""
        out = []
        hands = self.hands
        special_of = self.special_of
        declared_kind = self.declared_kind
        declared_distance = self.declared_distance
        distance = self.distance[self.due_leader]
        verb_of_kind = self.verb_of_kind
        for s in self.order_from[self.due_leader]:
            kind = special_of[s]
            if kind and (
                kind > declared_kind or (kind == declared_kind and distance[s] < declared_distance)
            ):
                out.append((s, verb_of_kind[kind], hands[s]))
        return out

    def legal_for(self, seat: int) -> list[CAction]:
        return [a for a in self.legal() if a[0] == seat]

    # ------------------------------------------------------------------ applying

    def step(self, a: CAction, log: Log | None = None) -> None:
        """Apply a legal compact action (unchecked). With ``log``, append the events."""
        seat, verb, m = a
        if verb == V_PLAY:
            self.hands[seat] ^= m
            self.plays.append(a)
            self.table_cards |= m
            self.table_face_up |= m
            c = m.bit_length() - 1
            tables = self.tables
            p = tables.power[self.led_key][c]
            if p > self.best_power:
                self.best_power = p
                self.best_seat = seat
            if not m & tables.follow_mask[self.led_key]:
                self.voids[seat] |= 1 << self.led_key
            if log is not None:
                log.append(CardsPlayed(seat, Verb.PLAY, (CARDS[c],), 1))
            if m & tables.catch_mask and self._queen_caught(seat, m, log):
                return
            self.turn += 1
            if self.turn == len(self.order):
                self._end_trick(self.best_seat, log)
        elif verb in (V_DISCARD, V_BEAT):
            self._respond(seat, verb, m, log)
        elif verb == V_LEAD:
            self._lead(seat, m, log)
        elif verb == V_GIVE:
            partner = self.partner[seat]
            self.hands[seat] ^= m
            self.hands[partner] |= m
            self.voids[partner] &= ~(1 << self.tables.TRUMP_KEY)
            self.gifts.append((seat, partner, m))
            self.phase = RETURN
            if log is not None:
                log.append(CardGiven(seat, partner, CARDS[m.bit_length() - 1]))
        elif verb == V_RETURN:
            leader = self.due_leader
            self.hands[seat] ^= m
            self.hands[leader] |= m
            self.forced_card = m
            self.phase = FORCED_LEAD
            if log is not None:
                given = self.gifts[-1][2]
                log.append(
                    ExchangeMade(
                        leader,
                        seat,
                        given=CARDS[given.bit_length() - 1],
                        returned=CARDS[m.bit_length() - 1],
                    )
                )
        else:  # a special lead
            self._declare(seat, verb, m, log)

    def _respond(self, seat: int, verb: int, m: int, log: Log | None) -> None:
        """street/moscow: ``seat`` beats (face up, becomes the top set) or discards (face down)."""
        self.hands[seat] ^= m
        if self.special_of[seat]:
            self.special_of[seat] = 0
            self.any_special = any(self.special_of)
        self.plays.append((seat, verb, m))
        self.table_cards |= m
        if verb == V_BEAT:
            self.top_seat = seat
            self.top_mask = m
            self.table_face_up |= m
        else:
            self.face_down[seat] |= m
        if log is not None:
            log.append(CardsPlayed(seat, VERB_OF_CODE[verb], cards_of(m), m.bit_count()))
        self.turn += 1
        if self.turn == len(self.order):
            self._end_trick(self.top_seat, log)

    def _lead(self, seat: int, m: int, log: Log | None) -> None:
        """An ordinary lead by the seat due to lead."""
        self.hands[seat] ^= m
        self.plays = [(seat, V_LEAD, m)]
        self.table_cards = m
        self.table_face_up = m
        self.turn = 1
        self.phase = RESPOND
        tables = self.tables
        if log is not None:
            log.append(CardsPlayed(seat, Verb.LEAD, cards_of(m), m.bit_count()))
        if tables.follow:
            c = m.bit_length() - 1
            self.set_size = 1
            self.led_key = tables.key[c]
            self.best_power = tables.power[self.led_key][c]
            self.best_seat = seat
            if m & tables.catch_mask:
                self._queen_caught(seat, m, log)
        else:
            if self.special_of[seat]:
                self.special_of[seat] = 0
                self.any_special = any(self.special_of)
            self.set_size = m.bit_count()
            self.top_seat = seat
            self.top_mask = m

    def _queen_caught(self, seat: int, m: int, log: Log | None) -> bool:
        tables = self.tables
        if m & tables.queen_bit:
            self.queen_seat = seat
        else:
            self.catcher_seat = seat
        q, s = self.queen_seat, self.catcher_seat
        if q < 0 or s < 0 or self.side_of[q] == self.side_of[s]:
            return False
        if log is not None:
            log.append(QueenCaught(queen_seat=q, seven_seat=s))
        self._end_deal(self.side_of[q], log)
        return True

    def _declare(self, seat: int, verb: int, m: int, log: Log | None) -> None:
        hands = self.hands
        special_of = self.special_of
        plays = self.plays
        if plays:
            special_kind = self.tables.special_kind
            for s, vb, mm in plays:
                hands[s] |= mm
                if vb == V_DISCARD:
                    self.face_down[s] &= ~mm
                else:
                    self.revealed[s] |= mm
            for s, _, _ in plays:
                special_of[s] = special_kind(hands[s])
            if log is not None:
                log.append(CardsReturned(declarer=seat, verb=VERB_OF_CODE[verb]))
        kind = special_of[seat]
        hands[seat] ^= m
        special_of[seat] = 0
        self.any_special = any(special_of)
        self.leader = seat
        self.order = self.order_from[seat]
        self.turn = 1
        self.set_size = m.bit_count()
        self.plays = [(seat, verb, m)]
        self.top_seat = seat
        self.top_mask = m
        self.table_cards = m
        self.table_face_up = m
        self.declared_kind = kind
        self.declared_distance = self.distance[self.due_leader][seat]
        self.phase = RESPOND
        if log is not None:
            log.append(CardsPlayed(seat, VERB_OF_CODE[verb], cards_of(m), m.bit_count()))

    # ------------------------------------------------------------------ playouts

    def playout(
        self,
        rng: random.Random,
        policy: Callable[[GameState, list[CAction]], CAction] | None = None,
    ) -> DealResult | None:
        """Play the current deal to its end and return its result (``None`` if nothing is left
        to play). The state is then *held*: phase ``"deal-over"`` (or ``"over"`` if the match
        ended), and nothing more can be applied; play out a :meth:`copy`.

        Without ``policy``: uniform random legal actions, exactly the choices ``rng`` makes
        over ``legal()`` (``legal()[int(rng.random() * len(legal))]``), through a faster loop.
        With ``policy``: ``policy(state, legal)`` picks each action from ``legal()``."""
        if self.phase >= OVER:
            return None
        number = self.deal_number
        self.hold = True
        if policy is not None:
            while self.phase < OVER:
                self.step(policy(self, self.legal()))
        elif self.tables.follow:
            self._playout_follow(rng.random)
        else:
            self._playout_beat(rng.random)
        return self.deal_results[number - 1]

    def _playout_beat(self, rand: Callable[[], float]) -> None:
        """Uniform random play of a BEAT (street, moscow) deal: the choice ``legal()`` would
        give, without building the list (discards, and single-card beats, are counted)."""
        tables = self.tables
        leads_memo = tables.leads_memo
        respond = self._respond
        combos = COMBOS
        hands = self.hands  # the same list until the deal ends (the state is held)
        while self.phase < OVER:
            if self.phase == RESPOND:
                seat = self.order[self.turn]
                h = hands[seat]
                k = self.set_size
                sp = self._specials() if self.any_special else ()
                if k == 1:
                    nd = h.bit_count()
                    c = h & self.beaters[self.top_mask.bit_length() - 1]
                    n = nd + c.bit_count()
                    r = int(rand() * (n + len(sp)))
                    if r < nd:
                        verb = V_DISCARD
                        c = h
                    elif r < n:
                        verb = V_BEAT
                        r -= nd
                    else:
                        self.step(sp[r - n])
                        continue
                    while r:
                        c &= c - 1
                        r -= 1
                    respond(seat, verb, c & -c, None)
                    continue
                b = bits_of(h)
                cmb = combos[len(b)][k]
                nd = len(cmb)
                beats = self._beats(h, k)
                n = nd + len(beats)
                r = int(rand() * (n + len(sp)))
                if r < nd:
                    m = 0
                    for i in cmb[r]:
                        m |= b[i]
                    respond(seat, V_DISCARD, m, None)
                elif r < n:
                    respond(seat, V_BEAT, beats[r - nd], None)
                else:
                    self.step(sp[r - n])
            else:
                seat = self.due_leader
                h = hands[seat]
                leads = leads_memo.get(h) or tables.leads(h)
                if self.any_special:
                    sp = self._specials()
                    r = int(rand() * (len(leads) + len(sp)))
                    if r >= len(leads):
                        self.step(sp[r - len(leads)])
                        continue
                else:
                    r = int(rand() * len(leads))
                self._lead(seat, leads[r], None)

    def _playout_follow(self, rand: Callable[[], float]) -> None:
        """Uniform random play of a FOLLOW (ziege) deal: runs of whole tricks (lead, follows,
        trick end, refill) in local variables, written back to the state whenever the shared
        methods take over (the give/return of an exchange, a trick already under way, a caught
        queen, the deal's end). The same choices and the same final state as ``legal()`` +
        ``step()`` (tests compare both from thousands of positions)."""
        tables = self.tables
        follow_mask = tables.follow_mask
        plain = tables.plain_mask
        ban = self.variant.trump_lead_ban
        exchange = tables.exchange
        catch = tables.catch_mask
        queen_bit = tables.queen_bit
        power = tables.power
        key = tables.key
        partner = self.partner
        side_of = self.side_of
        order_from = self.order_from
        # these lists keep their identity until the deal ends (the state is held)
        hands = self.hands
        piles = self.piles
        tricks = self.tricks_taken
        takers = self.trick_takers
        stock = self.stock
        n = self.players
        vlead = V_LEAD
        vplay = V_PLAY
        self.set_size = 1
        while self.phase < OVER:
            ph = self.phase
            if ph != LEAD and ph != FORCED_LEAD:
                acts = self.legal()
                self.step(acts[int(rand() * len(acts))])
                continue
            due = self.due_leader
            order = self.order
            seen_face_up = self.seen_face_up
            last_taker = self.last_taker
            last = self.last_trick
            forced = ph == FORCED_LEAD
            while True:  # one trick, led by `due`
                h = hands[due]
                if forced:
                    c = self.forced_card  # the card the partner returned
                    forced = False
                else:
                    c = h & plain if ban else h
                    if not c:
                        c = h
                i = int(rand() * c.bit_count())
                while i:
                    c &= c - 1
                    i -= 1
                m = c & -c
                hands[due] = h ^ m
                plays = [(due, vlead, m)]
                card = m.bit_length() - 1
                led = key[card]
                fm = follow_mask[led]
                row = power[led]
                best_power = row[card]
                best_seat = due
                table_cards = m
                queen_seat = catcher_seat = -1
                if m & catch:
                    if m & queen_bit:
                        queen_seat = due
                    else:
                        catcher_seat = due
                caught = False
                for seat in order[1:]:
                    h = hands[seat]
                    c = h & fm
                    if not c:
                        c = h
                    i = int(rand() * c.bit_count())
                    while i:
                        c &= c - 1
                        i -= 1
                    m = c & -c
                    hands[seat] = h ^ m
                    plays.append((seat, vplay, m))
                    table_cards |= m
                    p = row[m.bit_length() - 1]
                    if p > best_power:
                        best_power = p
                        best_seat = seat
                    if not m & fm:
                        self.voids[seat] |= 1 << led
                    if m & catch:
                        if m & queen_bit:
                            queen_seat = seat
                        else:
                            catcher_seat = seat
                        if (
                            queen_seat >= 0
                            and catcher_seat >= 0
                            and side_of[queen_seat] != side_of[catcher_seat]
                        ):
                            caught = True
                            break
                self.due_leader = self.leader = due
                self.order = order
                self.led_key = led
                self.best_power = best_power
                self.best_seat = best_seat
                self.queen_seat = queen_seat
                self.catcher_seat = catcher_seat
                if caught:  # the trick in progress, as step() leaves it, then the deal ends
                    self.plays = plays
                    self.table_cards = self.table_face_up = table_cards
                    self.turn = len(plays) - 1
                    self.seen_face_up = seen_face_up
                    self.last_taker = last_taker
                    self.last_trick = last
                    self.phase = RESPOND
                    self._queen_caught(seat, m, None)
                    break
                # the trick is complete: what _end_trick does
                taker = best_seat
                piles[taker] |= table_cards
                tricks[taker] += 1
                takers.append(taker)
                seen_face_up |= table_cards
                if stock:
                    for s in order_from[taker]:
                        hands[s] |= stock.pop()
                    self.voids = [0] * n
                if not hands[taker]:  # the deal is over
                    self.plays = plays
                    self.turn = len(plays)
                    self.table_cards = self.table_face_up = 0
                    self.seen_face_up = seen_face_up
                    self.last_taker = taker
                    self.last_trick = (due, due, plays, taker)
                    self.phase = RESPOND
                    self._end_deal(-1, None)
                    break
                # what _begin_trick does
                last = (due, due, plays, taker)
                last_taker = taker
                due = taker
                order = order_from[taker]
                if exchange and not hands[due] & plain and hands[partner[due]] & plain:
                    self.due_leader = self.leader = due
                    self.order = order
                    self.turn = 0
                    self.plays = []
                    self.table_cards = self.table_face_up = 0
                    self.seen_face_up = seen_face_up
                    self.last_taker = taker
                    self.last_trick = last
                    self.queen_seat = self.catcher_seat = -1
                    self.phase = GIVE
                    break

    # ------------------------------------------------------------------ knowledge

    def unseen_by(self, seat: int) -> int:
        """Mask of the cards ``seat`` cannot place: other hands (except cards it saw returned
        to them or gave them), the stock (except a trump card known to be in it), and other
        seats' face-down cards."""
        known = self.hands[seat] | self.seen_face_up | self.table_face_up | self.face_down[seat]
        for s in range(self.players):
            known |= self.revealed[s] & self.hands[s]
        for giver, receiver, m in self.gifts:
            if giver == seat and self.hands[receiver] & m:
                known |= m
        if self.trump_card_in_stock():
            known |= BIT[self.trump_card]
        deal_cards = 0
        for h in self.hands:
            deal_cards |= h
        for p in self.piles:
            deal_cards |= p
        for b in self.stock:
            deal_cards |= b
        deal_cards |= self.table_cards
        return deal_cards & ~known

    def determinize(self, seat: int, rng: random.Random, tries: int = 20) -> None:
        """Redistribute at random every card ``seat`` cannot place (see :meth:`unseen_by`)
        among the places it cannot see, keeping every count; in ziege, known voids are
        respected when ``tries`` shuffles allow. Future deals are reseeded from ``rng`` so a
        playout never sees the real next decks."""
        unseen = self.unseen_by(seat)
        pool = [b for b in bits_of(unseen)]
        n = self.players
        # the places: other hands, the stock, other seats' face-down cards (piles, table)
        hand_slots = [0] * n
        for s in range(n):
            if s != seat:
                hand_slots[s] = (self.hands[s] & unseen).bit_count()
        stock_idx = [i for i, b in enumerate(self.stock) if b & unseen]
        pile_slots = [(self.piles[s] & unseen).bit_count() for s in range(n)]
        table_idx = [i for i, (_, _, m) in enumerate(self.plays) if m & unseen]
        voids = self.voids
        follow_mask = self.tables.follow_mask
        forbid = [0] * n
        for s in range(n):
            for key in range(5):
                if voids[s] >> key & 1:
                    forbid[s] |= follow_mask[key]
        for attempt in range(tries + 1):
            rng.shuffle(pool)
            i = 0
            new_hands = [0] * n
            ok = True
            for s in range(n):
                cnt = hand_slots[s]
                got = 0
                for b in pool[i : i + cnt]:
                    got |= b
                i += cnt
                if got & forbid[s] and attempt < tries:
                    ok = False
                    break
                new_hands[s] = got
            if ok:
                break
        for s in range(n):
            if s != seat:
                self.hands[s] = (self.hands[s] & ~unseen) | new_hands[s]
        for j in stock_idx:
            self.stock[j] = pool[i]
            i += 1
        for s in range(n):
            cnt = pile_slots[s]
            got = 0
            for b in pool[i : i + cnt]:
                got |= b
            i += cnt
            self.piles[s] = (self.piles[s] & ~unseen) | got
        for j in table_idx:
            s, vb, m = self.plays[j]
            cnt = m.bit_count()
            got = 0
            for b in pool[i : i + cnt]:
                got |= b
            i += cnt
            self.plays[j] = (s, vb, got)
        self.table_cards = 0
        for _, _, m in self.plays:
            self.table_cards |= m
        if self.tables.has_specials:
            special_kind = self.tables.special_kind
            self.special_of = [special_kind(h) if h else 0 for h in self.hands]
            self.any_special = any(self.special_of)
        self.decks = self.decks[: self.deal_number]
        self.seed = rng.random()

    # ------------------------------------------------------------------ state as data

    def snapshot(self) -> dict[str, Any]:
        """Every field, for tests and debugging (not a save format: use Match.to_json)."""
        return {name: getattr(self, name) for name in GameState.__slots__ if name != "tables"}


def _state_copier(shared: Sequence[str], own: Sequence[str]) -> Callable[[GameState], GameState]:
    """GameState.copy as straight-line code generated from the field groups: as fast as
    writing every field out (a loop of getattr/setattr makes a playout about 10% slower)."""
    body = [f"    st.{name} = self.{name}" for name in shared]
    body += [f"    st.{name} = self.{name}[:]" for name in own]
    source = "\n".join(["def copy(self):", "    st = new(GameState)", *body, "    return st"])
    namespace: dict[str, Any] = {"new": object.__new__, "GameState": GameState}
    exec(source, namespace)
    copy: Callable[[GameState], GameState] = namespace["copy"]
    return copy


_copy_state = _state_copier(GameState.SHARED_FIELDS, GameState.OWN_LISTS)
