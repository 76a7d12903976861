"""A trick's actions: :meth:`TrickRules.legal` lists every legal compact action of every
seat, :meth:`TrickRules.step` applies one (leads, responses, special leads, the ziege follow,
exchange and queen catch). A trick's start and end are in ``deal.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._tables import bits_of, can_pair, cards_of, subsets_k
from .action import Verb
from .card import CARDS
from .compact import (
    FORCED_LEAD,
    GIVE,
    LEAD,
    OVER,
    PHASES,
    RESPOND,
    RETURN,
    V_BEAT,
    V_DISCARD,
    V_GIVE,
    V_LEAD,
    V_PLAY,
    V_RETURN,
    VERB_OF_CODE,
    CAction,
    Log,
)
from .deal import DealRules
from .event import CardGiven, CardsPlayed, CardsReturned, ExchangeMade, QueenCaught
from .view import Phase


class TrickRules(DealRules):
    """``legal()`` and ``step()``: the rules of play within a trick."""

    __slots__ = ()

    # ------------------------------------------------------------------ queries

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

    def legal(self) -> list[CAction]:
        """Every legal compact action of every seat, in a fixed order."""
        if self.tables.follow:
            return self._follow_legal()
        ph = self.phase
        if ph == RESPOND:
            seat = self.order[self.turn]
            h = self.hands[seat]
            k = self.set_size
            out = [(seat, V_DISCARD, s) for s in subsets_k(h, k)]
            for s in self._beats(h, k):
                out.append((seat, V_BEAT, s))
        elif ph == LEAD:
            seat = self.due_leader
            h = self.hands[seat]
            tables = self.tables
            out = [(seat, V_LEAD, s) for s in tables.leads_memo.get(h) or tables.leads(h)]
        else:
            return []
        if self.any_special:
            out += self._specials()
        return out

    def _follow_legal(self) -> list[CAction]:
        """ziege: one card at a time; follow the led key if you can; no trump lead while the
        leader holds a plain card (with the ban); the exchange."""
        ph = self.phase
        tables = self.tables
        hands = self.hands
        if ph == RESPOND:
            seat = self.order[self.turn]
            h = hands[seat]
            return _each_card(seat, V_PLAY, h & tables.follow_mask[self.led_key] or h)
        if ph == LEAD:
            seat = self.due_leader
            h = hands[seat]
            return _each_card(seat, V_LEAD, (h & tables.plain_mask if tables.lead_ban else h) or h)
        if ph == GIVE:
            seat = self.due_leader
            return _each_card(seat, V_GIVE, hands[seat])
        if ph == RETURN:
            seat = self.partner[self.due_leader]
            return _each_card(seat, V_RETURN, hands[seat] & tables.plain_mask)
        if ph == FORCED_LEAD:
            return [(self.due_leader, V_LEAD, self.forced_card)]
        return []

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

    # ------------------------------------------------------------------ applying

    def step(self, a: CAction, log: Log | None = None) -> None:
        """Apply a legal compact action (unchecked). With ``log``, append the events."""
        seat, verb, m = a
        if verb == V_PLAY:
            self._play(seat, m, log)
        elif verb in (V_DISCARD, V_BEAT):
            self._respond(seat, verb, m, log)
        elif verb == V_LEAD:
            self._lead(seat, m, log)
        elif verb == V_GIVE:
            self._give(seat, m, log)
        elif verb == V_RETURN:
            self._return(seat, m, log)
        else:  # a special lead
            self._declare(seat, verb, m, log)

    def _play(self, seat: int, m: int, log: Log | None) -> None:
        """ziege: ``seat`` follows with card ``m``."""
        self.hands[seat] ^= m
        self.plays.append((seat, V_PLAY, m))
        self.table_cards |= m
        self.table_face_up |= m
        c = m.bit_length() - 1
        tables = self.tables
        led = self.led_key
        p = tables.power[led][c]
        if p > self.best_power:
            self.best_power = p
            self.best_seat = seat
        if not m & tables.follow_mask[led]:
            self.voids[seat] |= 1 << led
        if log is not None:
            log.append(CardsPlayed(seat, Verb.PLAY, (CARDS[c],), 1))
        if m & tables.catch_mask and self._catches(seat, m):
            self._catch_queen(log)
            return
        self.turn += 1
        if self.turn == len(self.order):
            self._end_trick(self.best_seat, log)

    def _give(self, seat: int, m: int, log: Log | None) -> None:
        """ziege exchange: the leader gives its partner the trump ``m``."""
        partner = self.partner[seat]
        self.hands[seat] ^= m
        self.hands[partner] |= m
        self.voids[partner] &= ~(1 << self.tables.TRUMP_KEY)
        self.gifts.append((seat, partner, m))
        self.phase = RETURN
        if log is not None:
            log.append(CardGiven(seat, partner, CARDS[m.bit_length() - 1]))

    def _return(self, seat: int, m: int, log: Log | None) -> None:
        """ziege exchange: the partner returns the plain card ``m``, which the leader must
        lead."""
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
                self._catches(seat, m)  # a lead alone completes no catch
        else:
            if self.special_of[seat]:
                self.special_of[seat] = 0
                self.any_special = any(self.special_of)
            self.set_size = m.bit_count()
            self.top_seat = seat
            self.top_mask = m

    def _catches(self, seat: int, m: int) -> bool:
        """Note that ``seat`` played ``m``, the queen or the catcher of a queen catch: does it
        complete a catch (both played this trick, by opposing sides)?"""
        if m & self.tables.queen_bit:
            self.queen_seat = seat
        else:
            self.catcher_seat = seat
        q, s = self.queen_seat, self.catcher_seat
        return q >= 0 and s >= 0 and self.side_of[q] != self.side_of[s]

    def _catch_queen(self, log: Log | None) -> None:
        """The queen is caught: the deal ends at once (the trick is not completed)."""
        q = self.queen_seat
        if log is not None:
            log.append(QueenCaught(queen_seat=q, seven_seat=self.catcher_seat))
        self._end_deal(self.side_of[q], log)

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


def _each_card(seat: int, verb: int, cards: int) -> list[CAction]:
    """One action of ``seat`` with ``verb`` for each card of the mask ``cards``."""
    out = []
    while cards:
        b = cards & -cards
        out.append((seat, verb, b))
        cards ^= b
    return out
