"""What one seat knows of the other seats' cards this deal, read from its
:class:`~.trace.DealTrace`: :class:`Knowledge` (used by :mod:`.infer`).

Every card of the deal was dealt or drawn into a *place*: one of the four cards a seat was
dealt, or a place of the stock (the draw order is a rule, so which seat drew each place,
and when, is public). For every other seat this module lists

* its places, with the time each was filled (0: the deal; a draw after action ``k``: ``k+1``)
  and the card when it is known (the shown or turned trump card lies at a known place);
* the cards it is known to have held (it played them face up, returned them in a ziege
  exchange, or gave them to the observer) and from when: a known card must lie in one of
  its places filled no later than that;
* ziege's hard facts: at time ``k`` it held no card of a mask (it did not follow a suit or a
  trump lead; it gave a trump in an exchange, so it had no plain card; its partner led a
  trump, so neither had a plain card; an exchange is about to start now);
* the exchanges the observer did not see (a trump went from a leader to its partner).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..state import GIVE, V_GIVE, V_LEAD, V_PLAY, V_RETURN, GameState
from .trace import FACE_UP, DealTrace


@dataclass
class SeatCards:
    """What the observer knows of one other seat's cards this deal."""

    slots: list[tuple[int, int]]  # (time filled, stock index or -1 for the deal)
    fixed: dict[int, int] = field(default_factory=dict)  # slot number -> known card there
    needs: dict[int, int] = field(default_factory=dict)  # card -> first time known held
    last: dict[int, int] = field(default_factory=dict)  # card -> last time known held
    rules: list[tuple[int, int]] = field(default_factory=list)  # (time, mask it had none of)

    def ruled_out(self, b: int, start: int, end: int) -> bool:
        """Would holding card ``b`` from ``start`` to ``end`` break a hard fact?"""
        return any(start <= k <= end and b & mask for k, mask in self.rules)

    def forbidden(self, t: int) -> int:
        """Cards it cannot have held from ``t`` to now."""
        bad = 0
        for k, mask in self.rules:
            if k >= t:
                bad |= mask
        return bad

    def held_later(self, k: int) -> int:
        """Cards it is known to hold after time ``k`` (it plays them face up later)."""
        m = 0
        for b, t in self.last.items():
            if t > k:
                m |= b
        return m


class Knowledge:
    """The observer's knowledge of the other seats' cards (see the module docstring)."""

    def __init__(self, trace: DealTrace, current: GameState) -> None:
        self.trace = trace
        st = trace.start
        self.me = trace.seat
        self.tables = st.tables
        self.seats: dict[int, SeatCards] = {}
        self.own_slots: dict[int, int] = {}  # stock index -> the observer's card
        self.gifts: list[tuple[int, int, int]] = []  # hidden ziege gifts: (time, giver, to)
        for s in range(st.players):
            if s != self.me and st.in_game[s]:
                self.seats[s] = SeatCards([(0, -1)] * st.hands[s].bit_count())
        drawn = set()
        for d in trace.draws:
            drawn.add(d.index)
            if d.seat == self.me:
                self.own_slots[d.index] = d.card
                continue
            info = self.seats[d.seat]
            if d.card:
                info.fixed[len(info.slots)] = d.card
            info.slots.append((d.after + 1, d.index))
        self.undrawn = [
            i for i in range(trace.stock_size) if i not in drawn and i != trace.trump_index
        ]
        self._read_acts()
        if current.phase == GIVE and current.due_leader in self.seats:
            # an exchange about to start: the leader holds no plain card now
            self.seats[current.due_leader].rules.append((trace.now, self.tables.plain_mask))
        self.ruled = any(info.rules for info in self.seats.values())
        self.placed = self._placed()

    def _need(self, s: int, b: int, t: int) -> None:
        info = self.seats.get(s)
        if info is None:
            return
        while b:
            c = b & -b
            b ^= c
            info.needs[c] = min(info.needs.get(c, t), t)
            info.last[c] = max(info.last.get(c, t), t)

    def _read_acts(self) -> None:
        tables = self.tables
        st = self.trace.start
        acts = self.trace.acts
        arrivals: dict[int, dict[int, int]] = {s: {} for s in self.seats}
        led_key = -1
        for k, a in enumerate(acts):
            s, vb = a.seat, a.verb
            if vb == V_LEAD and tables.follow:
                led_key = tables.key[a.cards.bit_length() - 1]
            if s == self.me:
                if vb in (V_GIVE, V_RETURN) and st.partner[s] in arrivals:
                    arrivals[st.partner[s]][a.cards] = k  # the observer's own card
                continue
            self._read_other(k, led_key)
        # cards the observer handed to a seat need no place of that seat
        for s, got in arrivals.items():
            info = self.seats[s]
            for b, t in got.items():
                if b in info.needs and info.needs[b] >= t:
                    del info.needs[b]

    def _read_other(self, k: int, led_key: int) -> None:
        """What act ``k``, another seat's, says of where cards are."""
        tables = self.tables
        acts = self.trace.acts
        a = acts[k]
        s, vb = a.seat, a.verb
        if vb in FACE_UP:
            prev = acts[k - 1] if k else None
            if prev is not None and prev.verb == V_RETURN and vb == V_LEAD:
                if prev.seat != self.me:
                    self._need(prev.seat, a.cards, k - 1)  # the partner returned it
            else:
                self._need(s, a.cards, k)
            if tables.follow:
                self._follow_rules(k, s, a.cards, led_key, vb)
        elif vb == V_RETURN and a.cards:
            self._need(s, a.cards, k)  # returned to the observer
        elif vb == V_GIVE:
            if a.cards:
                self._need(s, a.cards, k)  # given to the observer
            else:
                self.gifts.append((k, s, self.trace.start.partner[s]))
            self.seats[s].rules.append((k, tables.plain_mask))

    def _follow_rules(self, k: int, s: int, card: int, led_key: int, vb: int) -> None:
        """ziege: what a play says about the hand (a void; a trump lead: no plain card)."""
        tables = self.tables
        if vb == V_PLAY and not card & tables.follow_mask[led_key]:
            self.seats[s].rules.append((k, tables.follow_mask[led_key]))
        elif vb == V_LEAD and not card & tables.plain_mask:
            partner = self.trace.start.partner[s]
            for x in (s, partner):
                if x in self.seats:
                    self.seats[x].rules.append((k, tables.plain_mask))

    def _placed(self) -> int:
        """Cards whose place is known: the observer's, the trump card, known cards."""
        placed = self.trace.start.hands[self.me] | self.trace.trump_card
        for b in self.own_slots.values():
            placed |= b
        for info in self.seats.values():
            for b in info.needs:
                placed |= b
            for b in info.fixed.values():
                placed |= b
        return placed

    def giver_times(self, s: int, b: int, t: int) -> dict[int, int]:
        """ziege: partners that gave ``s`` a trump unseen before ``t`` (giver -> time), so
        ``s``'s known card ``b`` may have come from them."""
        info = self.seats[s]
        return {
            giver: k
            for k, giver, to in self.gifts
            if to == s and k <= t and not info.ruled_out(b, k, t)
        }


__all__ = ["Knowledge", "SeatCards"]
