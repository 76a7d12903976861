"""Precomputed per-variant tables for the engine's hot path (internal).

Cards are bits: card index ``c`` (``suit * 9 + rank``) is the bit ``1 << c``; a hand, a stock
pile or a set of played cards is one ``int`` mask. Everything the rules need per card (suit
masks, "which cards beat card c" for each trump suit, ziege follow groups and trick power,
special leads) is computed once per variant here, from the :class:`Variant` parameters.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

from .card import POINTS, Card, Rank
from .variant import Special, TrickKind, Variant

BIT: tuple[int, ...] = tuple(1 << c for c in range(36))
SUIT_MASK: tuple[int, ...] = tuple(0x1FF << (9 * s) for s in range(4))
ALL_MASK = (1 << 36) - 1

# Card points of a 9-bit chunk (one suit), so mask_points is four lookups.
_CHUNK_POINTS: tuple[int, ...] = tuple(
    sum(POINTS[r] for r in range(9) if m >> r & 1) for m in range(512)
)


def mask_points(m: int) -> int:
    """Card points of the cards in mask ``m``."""
    cp = _CHUNK_POINTS
    return cp[m & 511] + cp[(m >> 9) & 511] + cp[(m >> 18) & 511] + cp[m >> 27]


def bits_of(m: int) -> list[int]:
    """The single-bit masks of ``m``, lowest card first."""
    out = []
    while m:
        b = m & -m
        out.append(b)
        m ^= b
    return out


def cards_of(m: int) -> tuple[Card, ...]:
    """The cards of mask ``m`` in index order."""
    from .card import CARDS

    out = []
    while m:
        b = m & -m
        out.append(CARDS[b.bit_length() - 1])
        m ^= b
    return tuple(out)


def mask_of(cards: tuple[int, ...] | list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# Index combinations: COMBOS[n][k] = every k-subset of range(n).
COMBOS: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...] = tuple(
    tuple(tuple(combinations(range(n), k)) for k in range(n + 1)) for n in range(9)
)


def subsets_k(m: int, k: int) -> list[int]:
    """Every submask of ``m`` with exactly ``k`` cards (``m`` holds at most 8 cards)."""
    b = bits_of(m)
    n = len(b)
    if k == n:
        return [m]
    if k == 1:
        return b
    out = []
    for idx in COMBOS[n][k]:
        s = 0
        for i in idx:
            s |= b[i]
        out.append(s)
    return out


def subsets_upto(m: int, kmax: int) -> list[int]:
    """Every non-empty submask of ``m`` with at most ``kmax`` cards."""
    b = bits_of(m)
    n = len(b)
    out = list(b)
    for k in range(2, min(kmax, n) + 1):
        if k == n:
            out.append(m)
            continue
        for idx in COMBOS[n][k]:
            s = 0
            for i in idx:
                s |= b[i]
            out.append(s)
    return out


def can_pair(resp: list[int], tops: list[int], beaters: tuple[int, ...]) -> bool:
    """Is there a one-to-one pairing in which each card of ``resp`` (single-bit masks)
    beats a different card of ``tops`` (card indices)? ``len(resp) == len(tops)``."""
    t = tops[0]
    bt = beaters[t]
    if len(tops) == 1:
        return bool(resp[0] & bt)
    rest_tops = tops[1:]
    for i, r in enumerate(resp):
        if r & bt and can_pair(resp[:i] + resp[i + 1 :], rest_tops, beaters):
            return True
    return False


CACHE_LIMIT = 1 << 17  # entries per memo table before it is cleared (bounds memory)


class Tables:
    """Everything the engine precomputes for one variant.

    Besides fixed tables it memoizes the ordinary leads of a hand; the memo is cleared when
    it grows past ``CACHE_LIMIT`` entries.
    """

    def __init__(self, v: Variant) -> None:
        self.variant = v
        self.deck: tuple[int, ...] = tuple(int(c) for c in v.deck)
        self.deck_mask = mask_of(self.deck)
        self.follow = v.trick_kind is TrickKind.FOLLOW
        self.exchange = v.partner_exchange
        self.lead_ban = v.trump_lead_ban
        self.plain_pos = {r: i for i, r in enumerate(v.plain_order)}
        self.hand_size = v.hand_size
        self.scoring = dict(v.scoring)
        self.trump_kind = v.trump_kind
        self._follow_tables(v)
        self._beat_tables(v)

    def _follow_tables(self, v: Variant) -> None:
        """Fixed trumps and follow play (ziege): follow keys, trick power, the queen catch."""
        self.trump_mask = mask_of([int(c) for c in v.fixed_trumps])
        self.plain_mask = self.deck_mask & ~self.trump_mask
        # follow key: a plain card's suit (0..3); every fixed trump is key 4 ("the trump suit")
        self.TRUMP_KEY = 4
        self.key: tuple[int, ...] = tuple(
            4 if self.trump_mask >> c & 1 else c // 9 for c in range(36)
        )
        self.follow_mask: tuple[int, ...] = tuple(
            mask_of([c for c in self.deck if self.key[c] == k]) for k in range(5)
        )
        self.power: tuple[tuple[int, ...], ...] = tuple(self._power_row(v, led) for led in range(5))
        qc = v.queen_catch
        self.queen_bit = 1 << int(qc.queen) if qc else 0
        self.catcher_bit = 1 << int(qc.catcher) if qc else 0
        self.catch_mask = self.queen_bit | self.catcher_bit

    def _power_row(self, v: Variant, led: int) -> tuple[int, ...]:
        """Per card: its trick power when ``led`` is the led key (-1: it cannot win)."""
        tpos = {int(c): i for i, c in enumerate(v.fixed_trumps)}
        row = [-1] * 36
        for c in self.deck:
            if c in tpos:
                row[c] = 100 + tpos[c]
            elif self.key[c] == led:
                row[c] = self.plain_pos[Rank(c % 9)]
        return tuple(row)

    def _beat_tables(self, v: Variant) -> None:
        """Beat play (street, moscow): what beats what under each trump, the special leads."""
        self.top_card = int(v.top_card) if v.top_card is not None else -1
        self.wild_mask = 1 << int(v.molodka_wild) if v.molodka_wild is not None else 0
        # beaters[trump][c]: mask of the cards that beat card c with that trump suit
        self.beaters: tuple[tuple[int, ...], ...] = (
            () if self.follow else tuple(self._beaters_for(t) for t in range(4))
        )
        # special leads: kind codes 1..len(specials), higher outranks lower
        self.kind_of_special = {s: i + 1 for i, s in enumerate(v.specials)}
        self.molodka_kind = self.kind_of_special.get(Special.MOLODKA, 0)
        self.moscow_kind = self.kind_of_special.get(Special.MOSCOW, 0)
        moscow_set = mask_of([c for c in self.deck if c % 9 in (Rank.ACE, Rank.TEN)])
        if self.top_card >= 0:
            moscow_set |= 1 << self.top_card
        self.moscow_set = moscow_set
        self.not_moscow = ALL_MASK & ~moscow_set
        self.not_wild = ALL_MASK & ~self.wild_mask
        self.aces = mask_of([c for c in self.deck if c % 9 == Rank.ACE])
        self.has_specials = bool(v.specials)
        self.leads_memo: dict[int, tuple[int, ...]] = {}

    def _beaters_for(self, trump: int) -> tuple[int, ...]:
        v = self.variant
        pos = self.plain_pos
        top = int(v.top_card) if v.top_card is not None else -1
        out = []
        for b in range(36):
            m = 0
            if b != top and b in self.deck:
                for a in self.deck:
                    if a == b:
                        continue
                    if a == top:
                        beats = True
                    elif a // 9 == b // 9:
                        beats = pos[Rank(a % 9)] > pos[Rank(b % 9)]
                    else:
                        beats = a // 9 == trump
                    if beats:
                        m |= 1 << a
            out.append(m)
        return tuple(out)

    def leads(self, hand: int) -> tuple[int, ...]:
        """Every ordinary lead from ``hand``: 1..max_lead cards of one suit (memoized)."""
        memo = self.leads_memo
        r = memo.get(hand)
        if r is None:
            if len(memo) >= CACHE_LIMIT:
                memo.clear()
            out: list[int] = []
            for sm in SUIT_MASK:
                hs = hand & sm
                if hs:
                    out += subsets_upto(hs, self.variant.max_lead)
            r = memo[hand] = tuple(out)
        return r

    def special_kind(self, hand: int) -> int:
        """Kind code of the special lead ``hand`` forms (0: none); a special is exactly
        ``hand_size`` cards."""
        if not self.has_specials or hand.bit_count() != 4:
            return 0
        if self.moscow_kind and not hand & ~self.moscow_set and hand & self.aces:
            return self.moscow_kind
        if self.molodka_kind:
            rest = hand & ~self.wild_mask
            low = rest & -rest
            if not rest & ~SUIT_MASK[(low.bit_length() - 1) // 9]:
                return self.molodka_kind
        return 0


@cache
def tables_for(v: Variant) -> Tables:
    return Tables(v)


__all__ = [
    "ALL_MASK",
    "BIT",
    "SUIT_MASK",
    "Tables",
    "bits_of",
    "can_pair",
    "cards_of",
    "mask_of",
    "mask_points",
    "subsets_k",
    "subsets_upto",
    "tables_for",
]
