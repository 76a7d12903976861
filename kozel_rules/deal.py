"""The course of a match, deal by deal: dealing, a trick's start and end, scoring a deal,
putting sides out, and who deals next.

:class:`DealRules` holds the rules that both :meth:`~kozel_rules.trick.TrickRules.step` and
the fast playouts (``playout.py``) call, so each is written once: ``_begin_trick``,
``_end_trick`` (the taker's pile, the refill from the stock, the next trick or the deal's
end) and ``_end_deal``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Self

from ._tables import BIT, SUIT_MASK, cards_of, mask_points, tables_for
from .card import CARDS, Suit
from .compact import CODE_OF_VERB, DEAL_OVER, GIVE, LEAD, OVER, V_DISCARD, VERB_OF_CODE, Log
from .errors import RecordError
from .event import DealEnded, DealStarted, MatchEnded, TrickTaken
from .options import Options
from .result import DealResult, MatchResult, PlayView, placings
from .scoring import multiplier, score_deal, scoring_for, sides_going_out
from .state_fields import StateFields
from .variant import FirstLeader, NextDeal, TrumpKind, Variant, get_variant

_SUITS = tuple(Suit)


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


class DealRules(StateFields):
    """A match's deals from dealing to scoring (see the module docstring)."""

    __slots__ = ()

    # ------------------------------------------------------------------ a new match

    @classmethod
    def new(
        cls,
        variant: str | Variant,
        players: int = 4,
        seed: object = 0,
        dealer: int | None = None,
        decks: Sequence[Sequence[int]] | None = None,
        log: Log | None = None,
        options: Options | Mapping[str, Any] | None = None,
    ) -> Self:
        """A new match, its first deal dealt. ``decks``: card indices (or Cards), top first.
        ``options``: the house rules (:meth:`Options.of`; ``None``: the defaults)."""
        v = get_variant(variant)
        opts = Options.of(options, v)
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
        st.options = opts
        st.out_at = opts.goat_total(v)
        st.scoring = scoring_for(st.tables.scoring, opts)
        st.hold = False
        st.in_game = [True] * players
        st.sides_in = tuple(range(st.side_count))
        st._seat_tables()
        st.defeat_points = [0] * st.side_count
        st.sides_out = []
        st.deal_results = []
        st.eggs_fell = False
        st.eggs_streak = 0
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

    # ------------------------------------------------------------------ dealing

    def _start_deal(self, dealer: int, leader: int, log: Log | None) -> None:
        self.deal_number += 1
        no = self.deal_number
        if no <= len(self.decks):
            deck = self.decks[no - 1]
        else:
            deck = shuffled_deck(self.variant, self.seed, no)
        self.decks_used.append(deck)
        self.dealer = dealer
        rest = self._deal_hands(deck)
        self._lay_stock(rest)
        n = self.players
        tables = self.tables
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
            self.special_of = [tables.special_kind(h) if h else 0 for h in self.hands]
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
                    trump_card=CARDS[self.trump_card] if self.trump_card >= 0 else None,
                    multiplier=multiplier(self.eggs_streak),
                )
            )
        self._begin_trick(leader)

    def _deal_hands(self, deck: list[int]) -> list[int]:
        """Deal the hands one card at a time from the seat after the dealer; the rest of the
        deck is returned (top first)."""
        hands = [0] * self.players
        order = self.order_from[self.next_in(self.dealer)]
        i = 0
        for _ in range(self.tables.hand_size):
            for s in order:
                hands[s] |= BIT[deck[i]]
                i += 1
        self.hands = hands
        return deck[i:]

    def _lay_stock(self, rest: list[int]) -> None:
        """The stock from the rest of the deck, and the trump the variant shows or turns."""
        kind = self.tables.trump_kind
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
        self.beaters = self.tables.beaters[self.trump] if tc >= 0 else ()

    # ------------------------------------------------------------------ a trick's start and end

    def _begin_trick(self, due: int) -> None:
        # Only what a new trick resets; the lead sets the rest (set size, led key, top, best card).
        self.due_leader = self.leader = due
        self.order = self.order_from[due]
        self.turn = 0
        self.plays = []
        tables = self.tables
        if tables.follow:
            self.queen_seat = self.catcher_seat = -1
            if tables.exchange:
                # the exchange: the leader holds only trumps, its partner a plain card
                plain = tables.plain_mask
                hands = self.hands
                if not hands[due] & plain and hands[self.partner[due]] & plain:
                    self.phase = GIVE
                    return
        else:
            self.declared_kind = 0
            self.declared_distance = self.players
        self.phase = LEAD

    def _end_trick(self, taker: int, log: Log | None) -> None:
        """``taker`` takes the cards on the table; the hands are refilled from the stock,
        from the taker on; the taker leads the next trick, or the deal ends with the hands."""
        cards = self.table_cards
        self.piles[taker] |= cards
        self.tricks_taken[taker] += 1
        self.trick_takers.append(taker)
        self.last_taker = taker
        self.seen_face_up |= self.table_face_up
        self.table_cards = self.table_face_up = 0
        self.last_trick = (self.leader, self.due_leader, self.plays, taker)
        if log is not None:
            log.append(TrickTaken(seat=taker, side=self.side_of[taker], cards=cards.bit_count()))
        hands = self.hands
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
            if self.tables.follow:
                self.voids = [0] * self.players  # a draw may bring a suit back
            elif self.tables.has_specials:
                self._drawn_specials(order)
        if hands[taker]:
            self._begin_trick(taker)
        else:
            self._end_deal(-1, log)

    def _drawn_specials(self, order: tuple[int, ...]) -> None:
        """After a draw: the special lead each seat's hand now forms."""
        tables = self.tables
        special_kind = tables.special_kind
        special_of = self.special_of
        hands = self.hands
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

    # ------------------------------------------------------------------ a deal's end

    def _end_deal(self, queen_side: int, log: Log | None) -> None:
        """Score the deal (``queen_side``: the side whose queen was caught, -1 for none), put
        out the sides that reached the threshold, then end the match, hold (a playout), or
        deal the next deal."""
        result = self._score_deal(queen_side)
        self.deal_results.append(result)
        if result.eggs:
            self.eggs_fell = True
        if log is not None:
            log.append(DealEnded(result))
        winner = -1
        if self.variant.next_deal is NextDeal.WINNER_DEALS and not self.hold:
            winner = self._deal_winner(result)  # from the seats in before anyone leaves
        if result.out:
            self._put_out(result.out)
        if len(self.sides_in) <= 1:
            self._end_match(log)
        elif self.hold:
            self.phase = DEAL_OVER
        else:
            self._next_deal(winner, log)

    def _score_deal(self, queen_side: int) -> DealResult:
        """The deal's result; the defeat points are added to the sides' totals."""
        v = self.variant
        side_of = self.side_of
        ns = self.side_count
        sides_in = self.sides_in
        tricks_taken = self.tricks_taken
        piles = self.piles
        tricks = [0] * ns
        cp = [0] * ns
        side_cards = [0] * ns
        for s, x in enumerate(side_of):
            tricks[x] += tricks_taken[s]
            side_cards[x] |= piles[s]
        caught = queen_side >= 0
        eggs = False
        if caught:
            assert v.queen_catch is not None
            award = [0] * ns
            award[queen_side] = v.queen_catch.award
        else:
            for x in sides_in:
                cp[x] = mask_points(side_cards[x])
            award, eggs = score_deal(self.scoring[len(sides_in)], cp, tricks, sides_in)
        # eggs "double": every eggs deal in a row before this one doubles its award (a caught
        # queen too); the streak is only ever counted under that option
        factor = multiplier(self.eggs_streak)
        if factor > 1:
            award = [a * factor for a in award]
        if self.options.eggs_double:
            self.eggs_streak = self.eggs_streak + 1 if eggs else 0
        defeat = self.defeat_points
        for x in sides_in:
            defeat[x] += award[x]
        going = sides_going_out(defeat, sides_in, self.out_at)
        return DealResult(
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
            last_trick=self._public_last_trick(),
            queen_seats=(self.queen_seat, self.catcher_seat) if caught else None,
            trick_seats=tuple(self.trick_takers),
            multiplier=factor,
            next_multiplier=multiplier(self.eggs_streak),
        )

    def _public_last_trick(self) -> tuple[PlayView, ...]:
        """The last trick taken, as every seat saw it: face-down cards without their faces."""
        if self.last_trick is None:
            return ()
        return tuple(
            PlayView(s, VERB_OF_CODE[verb], () if verb == V_DISCARD else cards_of(m), m.bit_count())
            for s, verb, m in self.last_trick[2]
        )

    def _deal_winner(self, result: DealResult) -> int:
        """The deal's winner: the first seat from D+1 whose side has the most card points
        (D+1 itself when the queen was caught)."""
        deal_order = self.order_from[self.next_in(self.dealer)]
        if not result.queen_caught:
            cp = result.card_points
            best = max(cp)
            for s in deal_order:
                if cp[self.side_of[s]] == best:
                    return s
        return deal_order[0]

    def _put_out(self, going: tuple[int, ...]) -> None:
        defeat = self.defeat_points
        # within one deal: fewer defeat points first (they share their place all the same)
        self.sides_out.extend(sorted(going, key=lambda x: (defeat[x], -x)))
        for s in range(self.players):
            if self.side_of[s] in going:
                self.in_game[s] = False
        self.sides_in = tuple(x for x in self.sides_in if x not in going)
        self._seat_tables()

    def _end_match(self, log: Log | None) -> None:
        self.phase = OVER
        out_by_deal = [r.out for r in self.deal_results if r.out]
        self.match_result = MatchResult(
            defeat_points=tuple(self.defeat_points),
            winners=self.sides_in,
            losers=tuple(self.sides_out),
            goats=out_by_deal[0],
            places=placings(self.sides_in, out_by_deal),
            goat_with_eggs=self.eggs_fell,
            deals=self.deal_number,
            goat_at=self.out_at,
        )
        if log is not None:
            log.append(MatchEnded(self.match_result))

    def _next_deal(self, winner: int, log: Log | None) -> None:
        """Deal the next deal: its dealer and first leader by the variant's rule."""
        v = self.variant
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

    def deal_done(self, number: int) -> bool:
        """Has deal ``number`` been scored (or the match ended)?"""
        return len(self.deal_results) >= number

    def trump_card_in_stock(self) -> bool:
        return self.trump_stock_index >= 0 and len(self.stock) > self.trump_stock_index
