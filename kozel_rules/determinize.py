"""What a seat cannot see, and a random world consistent with what it can (for computer
players that sample the hidden cards before a playout)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import islice

from ._tables import BIT, bits_of
from .deal import DealRules


class Determinization(DealRules):
    """:meth:`unseen_by` and :meth:`determinize`."""

    __slots__ = ()

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
        deal_cards = self.table_cards
        for h in self.hands:
            deal_cards |= h
        for p in self.piles:
            deal_cards |= p
        for b in self.stock:
            deal_cards |= b
        return deal_cards & ~known

    def determinize(self, seat: int, rng: random.Random, tries: int = 20) -> None:
        """Redistribute at random every card ``seat`` cannot place (see :meth:`unseen_by`)
        among the places it cannot see, keeping every count; in ziege, known voids are
        respected when ``tries`` shuffles allow. Future deals are reseeded from ``rng`` so a
        playout never sees the real next decks."""
        unseen = self.unseen_by(seat)
        pool = bits_of(unseen)
        n = self.players
        # the places, counted before anything moves: other hands, the stock, and the unseen
        # cards of the piles and the table (other seats' face-down cards)
        hand_slots = [(self.hands[s] & unseen).bit_count() if s != seat else 0 for s in range(n)]
        stock_idx = [i for i, b in enumerate(self.stock) if b & unseen]
        pile_slots = [(p & unseen).bit_count() for p in self.piles]
        table_idx = [i for i, (_, _, m) in enumerate(self.plays) if m & unseen]
        new_hands = _shuffle_hands(pool, hand_slots, self._void_masks(), rng, tries)
        for s in range(n):
            if s != seat:
                self.hands[s] = (self.hands[s] & ~unseen) | new_hands[s]
        rest = iter(pool[sum(hand_slots) :])
        for j in stock_idx:
            self.stock[j] = next(rest)
        for s in range(n):
            self.piles[s] = (self.piles[s] & ~unseen) | _take(rest, pile_slots[s])
        for j in table_idx:
            s, vb, m = self.plays[j]
            self.plays[j] = (s, vb, _take(rest, m.bit_count()))
        self.table_cards = 0
        for _, _, m in self.plays:
            self.table_cards |= m
        if self.tables.has_specials:
            special_kind = self.tables.special_kind
            self.special_of = [special_kind(h) if h else 0 for h in self.hands]
            self.any_special = any(self.special_of)
        self.decks = self.decks[: self.deal_number]
        self.seed = rng.random()

    def _void_masks(self) -> list[int]:
        """Per seat: the cards it showed it lacks (ziege voids)."""
        follow_mask = self.tables.follow_mask
        forbid = [0] * self.players
        for s, voids in enumerate(self.voids):
            for key in range(5):
                if voids >> key & 1:
                    forbid[s] |= follow_mask[key]
        return forbid


def _shuffle_hands(
    pool: list[int], counts: list[int], forbid: list[int], rng: random.Random, tries: int
) -> list[int]:
    """Shuffle ``pool`` (in place) and deal its first cards into hands of ``counts`` cards,
    until no hand holds a card its ``forbid`` mask excludes (the last of ``tries`` + 1
    shuffles is kept in any case)."""
    for attempt in range(tries + 1):
        rng.shuffle(pool)
        cards = iter(pool)
        hands = [_take(cards, k) for k in counts]
        if attempt == tries or not any(h & f for h, f in zip(hands, forbid, strict=True)):
            break
    return hands


def _take(cards: Iterator[int], k: int) -> int:
    """The mask of the next ``k`` single-card masks of ``cards``."""
    m = 0
    for b in islice(cards, k):
        m |= b
    return m
