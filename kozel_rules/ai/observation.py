"""What one seat knows, in a form computer players can search: :class:`Observation`.

An observation is built from a :class:`~kozel_rules.match.Match` for one seat through the
engine's view and knowledge APIs (:meth:`Match.view`, :meth:`Match.seen`,
:meth:`GameState.unseen_by`) and holds

* ``view``: the seat's :class:`~kozel_rules.view.SeatView` (its hand, the public table);
* ``seen``: the seat's :class:`~kozel_rules.view.Seen` (face-up cards of the deal, cards shown
  and taken back, ziege voids, its own face-down cards, the cards it cannot place);
* a *concealed* :class:`~kozel_rules.state.GameState`: a playable copy of the match in which
  every card the seat cannot place (other hands, the stock, other seats' face-down cards) has
  been put back in a canonical order (lowest card first, places in a fixed order), and every
  other trace of hidden information has been wiped (other seats' face-down records, exchanges
  the seat did not take part in, the decks and the seed from which future deals would be
  shuffled). Two matches that differ only in what the seat cannot see give equal concealed
  states (the tests check this field by field).

Players choose from an observation only: they read the seat's own hand and public fields of
the concealed state, or search over :meth:`Observation.sample` -- a random world consistent
with the observation (``GameState.determinize`` over the concealed state).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .._tables import bits_of
from ..match import Match
from ..state import FORCED_LEAD, GIVE, LEAD, RESPOND, V_DISCARD, CAction, GameState
from ..view import SeatView, Seen

_CONCEALED_SEED = "concealed"


def conceal(st: GameState, seat: int) -> GameState:
    """Turn ``st`` (a private copy, changed in place and returned) into what ``seat`` knows:
    every card it cannot place is put in a canonical place, hidden records are wiped."""
    hands = st.hands
    # cards shown and taken back that are still held stay known; nothing else of them matters
    for s in range(st.players):
        st.revealed[s] &= hands[s]
    # exchanges (ziege) this seat took no part in are not known to it
    st.gifts = [g for g in st.gifts if seat in (g[0], g[1])]
    due = st.due_leader
    forced_hidden = st.phase == FORCED_LEAD and seat not in (due, st.partner[due])
    _place_unseen(st, seat)
    _hide_face_down(st, seat)
    if forced_hidden:
        _fix_forced(st)
    tables = st.tables
    if tables.has_specials:
        st.special_of = [tables.special_kind(h) if h else 0 for h in hands]
        st.any_special = any(st.special_of)
    # nothing of the real decks or of the seed that would shuffle future deals
    st.decks = []
    st.decks_used = []
    st.seed = _CONCEALED_SEED
    return st


class _Pool:
    """The cards a seat cannot place, handed out lowest first: where they go then depends
    only on which cards are unseen, never on where they really are."""

    def __init__(self, unseen: int) -> None:
        self.unseen = unseen
        self.bits = bits_of(unseen)
        self.used = 0

    def replace(self, mask: int) -> int:
        """``mask`` with its unseen cards swapped for the next ones of the pool."""
        cnt = (mask & self.unseen).bit_count()
        got = 0
        for b in self.bits[self.used : self.used + cnt]:
            got |= b
        self.used += cnt
        return (mask & ~self.unseen) | got


def _place_unseen(st: GameState, seat: int) -> None:
    """Hands of the others, the stock, the piles and the trick's cards, in canonical order."""
    pool = _Pool(st.unseen_by(seat))
    for s in range(st.players):
        if s != seat:
            st.hands[s] = pool.replace(st.hands[s])
    stock = st.stock
    for j in range(len(stock)):
        stock[j] = pool.replace(stock[j])
    for s in range(st.players):
        st.piles[s] = pool.replace(st.piles[s])
    table_cards = 0
    for j, (s, vb, m) in enumerate(st.plays):
        m = pool.replace(m)
        st.plays[j] = (s, vb, m)
        table_cards |= m
    assert pool.used == len(pool.bits)
    st.table_cards = table_cards


def _hide_face_down(st: GameState, seat: int) -> None:
    """Other seats' face-down cards: only those on the table now (placed canonically), and
    none of the last trick's."""
    for s in range(st.players):
        if s != seat:
            st.face_down[s] = 0
    for s, vb, m in st.plays:
        if vb == V_DISCARD and s != seat:
            st.face_down[s] |= m
    if st.last_trick is not None:
        ll, ld, lp, lt = st.last_trick
        st.last_trick = (
            ll,
            ld,
            [(s, vb, 0 if vb == V_DISCARD and s != seat else m) for s, vb, m in lp],
            lt,
        )


def _fix_forced(st: GameState) -> None:
    """ziege, after an exchange the seat did not see: the card the leader must lead is one of
    its plain cards (any one, as far as the seat knows)."""
    h = st.hands[st.due_leader]
    if st.forced_card & h:
        return
    plain = h & st.tables.plain_mask
    st.forced_card = (plain or h) & -(plain or h)


@dataclass(frozen=True, eq=False)
class Observation:
    """Everything ``seat`` may know now, and nothing more (see the module docstring)."""

    seat: int
    view: SeatView
    seen: Seen
    _state: GameState

    @classmethod
    def of(cls, match: Match, seat: int) -> Observation:
        """The observation of ``seat`` in ``match``."""
        if not 0 <= seat < match.players:
            raise ValueError(f"no seat {seat}")
        view = match.view(seat)
        seen = match.seen(seat)
        return cls(seat, view, seen, conceal(match.state_copy(), seat))

    @property
    def state(self) -> GameState:
        """A copy of the concealed state (hidden cards in canonical places)."""
        return self._state.copy()

    def legal(self) -> list[CAction]:
        """This seat's legal compact actions now."""
        return [a for a in self._state.legal() if a[0] == self.seat]

    def sample(self, rng: random.Random) -> GameState:
        """A random world consistent with the observation: the unseen cards dealt at random
        to the places the seat cannot see (counts, known cards, the known trump card's place
        and ziege voids kept), future decks reseeded from ``rng``."""
        for _ in range(_TRIES):
            st = self._state.copy()
            st.determinize(self.seat, rng)
            if _consistent(st):
                break
        if st.phase == GIVE:
            _give_partner_a_plain_card(st, self.seat)
        if st.phase == FORCED_LEAD and not st.forced_card & st.hands[st.due_leader]:
            _fix_forced(st)
        return st


_TRIES = 30  # samples tried before a world is repaired by hand


def _consistent(st: GameState) -> bool:
    """ziege: what the exchange rule tells everybody. The exchange under way: the leader
    holds no plain card and the partner holds one. A leader to lead without an exchange:
    it holds a plain card or its partner holds none. A trump led: neither the leader nor
    its partner holds a plain card. (A world that breaks this is redrawn.)"""
    tables = st.tables
    if not tables.exchange:
        return True
    plain = tables.plain_mask
    lead_plain = st.hands[st.due_leader] & plain
    partner_plain = st.hands[st.partner[st.due_leader]] & plain
    if st.phase == GIVE:
        return not lead_plain and bool(partner_plain)
    if st.phase == LEAD:
        return bool(lead_plain) or not partner_plain
    if st.phase == RESPOND and st.led_key == tables.TRUMP_KEY:
        return not lead_plain and not partner_plain
    return True


def _give_partner_a_plain_card(st: GameState, seat: int) -> None:
    """Last resort when no sample kept the exchange's premise: swap one of the partner's
    unseen trumps with an unseen plain card held by an opponent."""
    plain = st.tables.plain_mask
    partner = st.partner[st.due_leader]
    if st.hands[partner] & plain or partner == seat:
        return
    unseen = st.unseen_by(seat)
    mine = st.hands[partner] & unseen
    for s in range(st.players):
        if s in (seat, partner, st.due_leader):
            continue
        theirs = st.hands[s] & unseen & plain
        if theirs and mine:
            a = mine & -mine
            b = theirs & -theirs
            st.hands[partner] ^= a | b
            st.hands[s] ^= a | b
            return


def observe(match: Match, seat: int) -> Observation:
    """The observation of ``seat`` in ``match`` (same as :meth:`Observation.of`)."""
    return Observation.of(match, seat)


__all__ = ["Observation", "conceal", "observe"]
