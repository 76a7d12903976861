"""Fast playouts for computer players: a deal played to its end by uniform random legal
actions (or by a policy).

The loops choose as :meth:`~kozel_rules.trick.TrickRules.legal` would, without building the
list, and apply each choice through the same rules as ``step()`` (``_lead``, ``_respond``,
``_end_trick``, ...): they make exactly the choices ``legal()`` + ``step()`` make from the
same ``rng`` and end in the same state (tests compare both from thousands of positions).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Self

from ._tables import COMBOS, bits_of
from .compact import (
    FORCED_LEAD,
    GIVE,
    LEAD,
    OVER,
    RESPOND,
    RETURN,
    V_BEAT,
    V_DISCARD,
    V_LEAD,
    V_PLAY,
    CAction,
)
from .result import DealResult
from .trick import TrickRules


class Playouts(TrickRules):
    """:meth:`playout`: the current deal played to its end."""

    __slots__ = ()

    def playout(
        self,
        rng: random.Random,
        policy: Callable[[Self, list[CAction]], CAction] | None = None,
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
        """Uniform random play of a FOLLOW (ziege) deal. Each trick's lead and follows are
        chosen as ``legal()`` lists them (follow the led key if you can; no trump lead while
        the ban allows a plain card) and played in local variables, then written to the state
        as ``step()`` leaves it; the trick ends through ``_end_trick``, a caught queen through
        ``_catch_queen``, and the exchange goes through ``_give`` and ``_return``."""
        tables = self.tables
        follow_mask = tables.follow_mask
        plain = tables.plain_mask
        ban = tables.lead_ban
        catch = tables.catch_mask
        power = tables.power
        key = tables.key
        hands = self.hands  # the same list until the deal ends (the state is held)
        end_trick = self._end_trick
        self.set_size = 1
        while self.phase < OVER:
            ph = self.phase
            due = self.due_leader
            if ph == LEAD:
                h = hands[due]
                c = (h & plain if ban else h) or h
            elif ph == FORCED_LEAD:
                c = self.forced_card  # the card returned: a draw all the same
            elif ph == GIVE:
                self._give(due, _pick(hands[due], rand()), None)
                continue
            elif ph == RETURN:
                seat = self.partner[due]
                self._return(seat, _pick(hands[seat] & plain, rand()), None)
                continue
            else:  # the playout started mid-trick
                acts = self.legal()
                self.step(acts[int(rand() * len(acts))])
                continue
            i = int(rand() * c.bit_count())  # as _pick(c, rand()), inline for speed
            while i:
                c &= c - 1
                i -= 1
            m = c & -c
            hands[due] ^= m
            self.plays = plays = [(due, V_LEAD, m)]
            card = m.bit_length() - 1
            led = key[card]
            fm = follow_mask[led]
            row = power[led]
            best_power = row[card]
            best_seat = due
            table_cards = m
            if m & catch:
                self._catches(due, m)  # a lead alone completes no catch
            caught = False
            for seat in self.order[1:]:
                h = hands[seat]
                c = h & fm or h
                i = int(rand() * c.bit_count())
                while i:
                    c &= c - 1
                    i -= 1
                m = c & -c
                hands[seat] = h ^ m
                plays.append((seat, V_PLAY, m))
                table_cards |= m
                p = row[m.bit_length() - 1]
                if p > best_power:
                    best_power = p
                    best_seat = seat
                if not m & fm:
                    self.voids[seat] |= 1 << led
                if m & catch and self._catches(seat, m):
                    caught = True
                    break
            # the trick as step() leaves it
            self.led_key = led
            self.best_power = best_power
            self.best_seat = best_seat
            self.table_cards = self.table_face_up = table_cards
            if caught:  # the deal ends at once, mid-trick
                self.phase = RESPOND
                self.turn = len(plays) - 1
                self._catch_queen(None)
                return
            self.turn = len(plays)
            end_trick(best_seat, None)


def _pick(cards: int, r: float) -> int:
    """The card of the mask ``cards`` that the draw ``r`` (0 <= r < 1) picks, as ``legal()``
    lists them (lowest first): the same choice as ``legal()[int(r * len(legal))]``."""
    if not cards:  # nothing legal (a world determinize() left inconsistent), as legal()[0]
        raise IndexError("no legal action to choose from")
    i = int(r * cards.bit_count())
    while i:
        cards &= cards - 1
        i -= 1
    return cards & -cards
