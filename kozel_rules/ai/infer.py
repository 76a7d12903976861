"""Worlds consistent with everything one seat saw this deal, drawn in proportion to how
likely the other seats' plays were in each: the ``expert``'s determinization
(:class:`WorldSampler`).

A *world* is one way the deal could have gone: the cards the other seats were dealt and drew
and the cards they put face down. It is built from the seat's :class:`~.trace.DealTrace`
and what it tells (:class:`~.known.Knowledge`):

1. **Places.** Every card another seat played face up was in its hand then: it goes into one
   of that seat's places filled no later (earliest deadline first, at random). In ziege,
   where a seat's places must also respect hard facts (it did not follow a suit; it gave a
   trump in an exchange, so it held no plain card), every place of every seat is filled by
   a bipartite matching with augmenting paths, in random order; a known card may also come
   from a partner's place through an exchange the seat did not see. The remaining cards go
   to the remaining places at random.
2. **Replay.** The deal is replayed in the world from its first state (concealed: nothing
   of the real hidden cards) with every action the seat saw; each face-down play takes
   cards from the player's hand (never one it plays face up later), chosen as the behaviour
   model would. A world in which an action would be illegal is dropped; the replayed state
   is the world (hands, stock, piles, the table). Its *weight* is the likelihood of the
   other seats' actions under the behaviour model.
3. **Posterior.** Worlds are drawn by a Metropolis chain over the places' cards (swap two
   unknown cards between places; accept with the ratio of the weights raised to ``tau``),
   restarted from a fresh random world now and then. A plain importance sample
   (:meth:`WorldSampler.sample`) collapses onto a few worlds after a dozen plays; the chain
   keeps every world it gives likely.

**Behaviour model** (the inference): a seat plays what the ``basic`` strategy would play in
its place (from its own hand and what it could see then) with probability ``1 - eps``, and
any of its legal actions at random otherwise. That is the convention every level here
shares, so the model reads from the plays what they reveal: a seat that discarded when it
could have beaten cheaply probably could not; points go face down on a partner's safe
trick; a ziege follower that did not take a cheap trick probably had no cheap winner; a
seat holding a molodka or Moscow declares it at once, so a world where one was held and not
declared is unlikely. ``eps`` (:data:`EPS`) is about how often the ``strong`` level departs
from ``basic`` (measured: half of its decisions).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .._tables import bits_of, subsets_k
from ..state import (
    GIVE,
    V_DISCARD,
    V_GIVE,
    V_MOLODKA,
    V_MOSCOW,
    V_RETURN,
    CAction,
    GameState,
)
from .basic import basic_policy
from .known import Knowledge
from .trace import DealTrace

EPS = 0.5  # the behaviour model's chance of any legal action instead of basic's
TAU = 0.5  # the chain's target: the weight to this power (softer than the model alone)
STEPS = 3  # chain moves between two worlds
BURN = 8  # chain moves after a restart
RESTART = 8  # worlds between restarts of a chain
CHAINS = 4  # chains taken in turn: the search's first worlds come from independent starts
MISSED_SPECIAL = 0.02  # likelihood of a play while a special lead was there to declare
_SPECIALS = (V_MOLODKA, V_MOSCOW)
_TRIES = 12  # deals tried for one consistent world


@dataclass
class _Deal:
    """A world's first hands and first stock list; ``free`` lists the places whose card is
    not known: ``(0, seat, card)`` in a first hand, ``(1, index, card)`` a place of the
    stock already drawn, ``(2, index, card)`` one still in the stock."""

    hands: list[int]
    stock: list[int]
    free: list[tuple[int, int, int]]
    routes: dict[int, int]  # time of a hidden ziege gift -> the known card it carried


@dataclass
class _Link:
    deal: _Deal
    state: GameState
    weight: float


class WorldSampler:
    """Worlds for ``trace.seat`` (see the module docstring). ``next_world(rng)`` is the
    chain's next world; ``sample(rng)`` an independent (state, weight) importance sample."""

    def __init__(
        self,
        trace: DealTrace,
        current: GameState,
        *,
        eps: float = EPS,
        model: bool = True,
        tau: float = TAU,
        steps: int = STEPS,
        restart: int = RESTART,
    ) -> None:
        self.trace = trace
        self.steps = steps
        self.restart = restart
        self.current = current
        self.eps = eps
        self.model = model
        self.tau = tau
        self.know = Knowledge(trace, current)
        self.me = trace.seat
        self.tables = trace.start.tables
        # CHAINS chains, taken in turn: consecutive worlds of one chain differ by a few swaps,
        # and the search judges its candidates from its first few worlds (``_prune``), which
        # must not all be one world seen again.
        self._links: list[_Link | None] = [None] * CHAINS
        self._visits = [0] * CHAINS
        self._turn = 0
        self._link: _Link | None = None
        self._memo: dict[tuple[object, ...], tuple[CAction, int, int]] = {}
        self.moves = 0  # chain moves proposed
        self.accepted = 0  # ... and accepted
        self.replays = 0  # deals replayed
        self.evals = 0  # behaviour-model decisions computed (not remembered)

    # ------------------------------------------------------------------ the chain

    def next_world(self, rng: random.Random) -> GameState | None:
        """The chain's next world (``None`` if no consistent world was found)."""
        i = self._turn % CHAINS
        self._turn += 1
        self._link = self._links[i]
        steps = self.steps
        if self._link is None or self._visits[i] >= self.restart:
            got = self._fresh(rng)
            if got is None:
                return None
            self._link = got
            self._visits[i] = 0
            steps = BURN if self.model else 0
        elif not self.model:
            got = self._fresh(rng)
            if got is None:
                return None
            self._link = got
            steps = 0
        for _ in range(steps):
            self._move(rng)
        self._visits[i] += 1
        self._links[i] = self._link
        return self._link.state

    def _fresh(self, rng: random.Random) -> _Link | None:
        for attempt in range(_TRIES):
            deal = self._deal(rng, latest=attempt % 2 == 1)
            if deal is None:
                continue
            got = self._replay(deal, rng)
            if got is not None and got[1] > 0:
                return _Link(deal, got[0], got[1])
        return None

    def _move(self, rng: random.Random) -> None:
        """One Metropolis step: swap the cards of two unknown places."""
        link = self._link
        assert link is not None
        free = link.deal.free
        if len(free) < 2:
            return
        i = int(rng.random() * len(free))
        j = int(rng.random() * (len(free) - 1))
        if j >= i:
            j += 1
        if free[i][0] == free[j][0] and (free[i][0] == 2 or free[i][1] == free[j][1]):
            return  # two places of the stock left, or of one hand: the same world
        deal = _swap(link.deal, i, j)
        self.moves += 1
        got = self._replay(deal, rng)
        if got is None:
            return
        st, w = got
        if w >= link.weight or rng.random() < (w / link.weight) ** self.tau:
            self._link = _Link(deal, st, w)
            self.accepted += 1

    # ------------------------------------------------------------------ independent samples

    def sample(self, rng: random.Random) -> tuple[GameState, float] | None:
        """A world from the prior (uniform over consistent deals) and its weight."""
        got = self._fresh(rng)
        return None if got is None else (got.state, got.weight)

    # ------------------------------------------------------------------ dealing

    def _deal(self, rng: random.Random, latest: bool) -> _Deal | None:
        """A random deal that puts every known card where it can have come from."""
        know = self.know
        st = self.trace.start
        hands = st.hands[:]
        stock = st.stock[:]
        for i, b in know.own_slots.items():
            stock[i] = b
        pool = bits_of(self.tables.deck_mask & ~know.placed)
        rng.shuffle(pool)
        routes: dict[int, int] = {}
        if know.ruled:
            got = self._match_all(pool, rng, routes)
        else:
            got = self._place_each(pool, rng, latest)
        if got is None:
            return None
        free: list[tuple[int, int, int]] = []
        for s, info in know.seats.items():
            hands[s] = 0
            known = info.needs.keys() | set(info.fixed.values())
            for (_, idx), b in zip(info.slots, got[s], strict=True):
                if idx < 0:
                    hands[s] |= b
                else:
                    stock[idx] = b
                if b not in known and b not in routes.values():
                    free.append((0, s, b) if idx < 0 else (1, idx, b))
        for i in know.undrawn:
            stock[i] = pool.pop()
            free.append((2, i, stock[i]))
        return _Deal(hands, stock, free, routes)

    def _place_each(
        self, pool: list[int], rng: random.Random, latest: bool
    ) -> dict[int, list[int]] | None:
        """No hard facts beyond the known cards (street, moscow): per seat, each known card
        in a place filled no later than it was first seen (earliest deadline first, at
        random or in the latest such place), every other place from ``pool``."""
        out: dict[int, list[int]] = {}
        for s, info in self.know.seats.items():
            slots = info.slots
            cards = [0] * len(slots)
            for j, b in info.fixed.items():
                cards[j] = b
            fixed_cards = set(info.fixed.values())
            for b, t in sorted(info.needs.items(), key=lambda x: x[1]):
                if b in fixed_cards:
                    continue
                free = [j for j, (a, _) in enumerate(slots) if a <= t and not cards[j]]
                if not free:
                    return None
                cards[free[-1] if latest else free[int(rng.random() * len(free))]] = b
            for j in range(len(cards)):
                if not cards[j]:
                    if not pool:
                        return None
                    cards[j] = pool.pop()
            out[s] = cards
        return out

    def _match_all(
        self, pool: list[int], rng: random.Random, routes: dict[int, int]
    ) -> dict[int, list[int]] | None:
        """ziege: every place of every other seat gets a card so that known cards are held
        when played and no card breaks a hard fact while held (a bipartite matching, built
        in random order with augmenting paths). The cards left in ``pool`` go to the stock."""
        seats = self.know.seats
        places = [(s, j) for s, info in seats.items() for j in range(len(info.slots))]
        owner: dict[int, int] = {}  # place index -> card
        taken: dict[int, int] = {}  # card -> place index
        for s, info in seats.items():
            for j, b in info.fixed.items():
                i = places.index((s, j))
                owner[i], taken[b] = b, i
        cand: dict[int, list[int]] = {}
        for s, info in seats.items():
            for b, t in info.needs.items():
                if b not in taken:
                    cand[b] = self._known_places(places, s, b, t, rng)
        known = sorted(cand, key=lambda b: len(cand[b]))
        for b in pool:
            ok = [
                i
                for i, (x, j) in enumerate(places)
                if not b & seats[x].forbidden(seats[x].slots[j][0])
            ]
            rng.shuffle(ok)
            cand[b] = ok
        for b in known:
            if not _augment(b, cand, owner, taken, set()):
                return None
        left = []
        for b in pool:
            if len(owner) < len(places) and _augment(b, cand, owner, taken, set()):
                continue
            left.append(b)
        if len(owner) != len(places) or not self._route_gifts(places, owner, set(pool), routes):
            return None
        pool[:] = left
        out: dict[int, list[int]] = {s: [0] * len(info.slots) for s, info in seats.items()}
        for i, (s, j) in enumerate(places):
            out[s][j] = owner[i]
        return out

    def _known_places(
        self, places: list[tuple[int, int]], s: int, b: int, t: int, rng: random.Random
    ) -> list[int]:
        """Where known card ``b`` of ``s`` (held at ``t``) may have been dealt or drawn: one
        of its places, or (ziege) a place of a partner that gave it a trump unseen."""
        seats = self.know.seats
        info = seats[s]
        givers = self.know.giver_times(s, b, t)
        ok = []
        for i, (x, j) in enumerate(places):
            a = seats[x].slots[j][0]
            if x == s:
                if a <= t and not info.ruled_out(b, a, t):
                    ok.append(i)
            elif x in givers and a <= givers[x] and not seats[x].ruled_out(b, a, givers[x]):
                ok.append(i)
        rng.shuffle(ok)
        return ok

    def _route_gifts(
        self,
        places: list[tuple[int, int]],
        owner: dict[int, int],
        pool: set[int],
        routes: dict[int, int],
    ) -> bool:
        """Known cards placed with a partner travel in its hidden gifts, one card a gift."""
        seats = self.know.seats
        for i, (x, j) in enumerate(places):
            b = owner[i]
            if b in pool or b in seats[x].needs or b in seats[x].fixed.values():
                continue
            a = seats[x].slots[j][0]
            for k, giver, to in self.know.gifts:
                t = seats[to].needs.get(b, -1) if to in seats else -1
                if giver == x and a <= k <= t and k not in routes:
                    routes[k] = b
                    break
            else:
                return False
        return True

    # ------------------------------------------------------------------ replay

    def _replay(self, deal: _Deal, rng: random.Random) -> tuple[GameState, float] | None:
        """The deal replayed in the world: its state now and its weight (or ``None``)."""
        self.replays += 1
        st = self.trace.start.copy()
        st.hands = deal.hands[:]
        st.stock = deal.stock[:]
        tables = self.tables
        if tables.has_specials:
            st.special_of = [tables.special_kind(h) if h else 0 for h in st.hands]
            st.any_special = any(st.special_of)
        if tables.exchange and not _start_phase_ok(st):
            return None
        weight = 1.0
        acts = self.trace.acts
        for k, act in enumerate(acts):
            s = act.seat
            a: CAction
            if act.cards:
                a = (s, act.verb, act.cards)
            elif act.verb == V_DISCARD:
                got = self._discard(st, k, s, act.count, rng)
                if got is None:
                    return None
                a, w = got
                weight *= w
                st.step(a)
                continue
            elif act.verb == V_GIVE:
                b = self._give(st, k, s, deal.routes, rng)
                if not b:
                    return None
                a = (s, V_GIVE, b)
            else:  # a return the observer did not see: the card is led next
                a = (s, V_RETURN, acts[k + 1].cards)
            if a[2] & ~st.hands[s] or not _may_act(st, a):
                return None
            if self.model and s != self.me:
                weight *= self._likelihood(st, k, a)
            st.step(a)
        cur = self.current
        if st.phase != cur.phase or st.to_move != cur.to_move:
            return None
        return st, weight

    def _discard(
        self, st: GameState, k: int, s: int, count: int, rng: random.Random
    ) -> tuple[CAction, float] | None:
        """Face-down cards of ``s`` at time ``k``: chosen as the behaviour model would,
        among cards it does not play face up later; with the likelihood of a discard."""
        info = self.know.seats.get(s)
        free = st.hands[s] & ~(info.held_later(k) if info else 0)
        if free.bit_count() < count:
            return None
        options = subsets_k(free, count)
        if not self.model or s == self.me:
            m = options[int(rng.random() * len(options))]
            return (s, V_DISCARD, m), 1.0
        choice, n_own, _ = self._model(st, k, s)
        if choice[1] in _SPECIALS:  # a special lead was there to declare, and was not
            return (s, V_DISCARD, options[int(rng.random() * len(options))]), MISSED_SPECIAL
        base = self.eps / max(n_own, 1)
        probs = [base + (1 - self.eps if (s, V_DISCARD, m) == choice else 0.0) for m in options]
        total = sum(probs)
        r = rng.random() * total
        for m, p in zip(options, probs, strict=True):
            r -= p
            if r < 0:
                return (s, V_DISCARD, m), total
        return (s, V_DISCARD, options[-1]), total

    def _give(
        self, st: GameState, k: int, s: int, routes: dict[int, int], rng: random.Random
    ) -> int:
        b = routes.get(k, 0)
        if b:
            return b if st.hands[s] & b else 0
        info = self.know.seats.get(s)
        cards = bits_of(st.hands[s] & ~(info.held_later(k) if info else 0))
        return cards[int(rng.random() * len(cards))] if cards else 0

    def _model(self, st: GameState, k: int, s: int) -> tuple[CAction, int, int]:
        """The behaviour model at time ``k`` for ``s``: the ``basic`` choice, how many legal
        actions ``s`` had and how many there were in all (others' special leads count: a
        seat holding one declares first). The ``basic`` choice depends only on the seat's
        own cards and what is public, so it is remembered across worlds."""
        specials: tuple[CAction, ...] = ()
        if st.any_special:
            me = self.me
            specials = tuple(
                a for a in st.legal() if a[1] in _SPECIALS and a[0] != s and a[0] != me
            )
        key = (k, s, st.hands[s], st.face_down[s], specials)
        got = self._memo.get(key)
        if got is None:
            self.evals += 1
            legal = [a for a in st.legal() if a[0] == s]
            n_own = len(legal)
            legal += specials
            choice = basic_policy(st, legal) if len(legal) > 1 else legal[0]
            got = self._memo[key] = (choice, n_own, len(legal))
        return got

    def _likelihood(self, st: GameState, k: int, a: CAction) -> float:
        choice, n_own, n_all = self._model(st, k, a[0])
        if n_all <= 1:
            return 1.0
        if choice[1] in _SPECIALS and a[1] not in _SPECIALS:
            return MISSED_SPECIAL  # a seat that holds a molodka or Moscow declares it
        return self.eps / max(n_own, 1) + (1 - self.eps if choice == a else 0.0)


def _swap(deal: _Deal, i: int, j: int) -> _Deal:
    """``deal`` with the cards of free places ``i`` and ``j`` exchanged."""
    hands = deal.hands[:]
    stock = deal.stock[:]
    free = deal.free[:]
    (ki, xi, bi), (kj, xj, bj) = free[i], free[j]
    for kind, x, old, new in ((ki, xi, bi, bj), (kj, xj, bj, bi)):
        if kind == 0:
            hands[x] = (hands[x] & ~old) | new
        else:
            stock[x] = new
    free[i] = (ki, xi, bj)
    free[j] = (kj, xj, bi)
    return _Deal(hands, stock, free, deal.routes)


def _start_phase_ok(st: GameState) -> bool:
    """ziege: an exchange opens the deal exactly when the world's hands call for one."""
    plain = st.tables.plain_mask
    lead = st.due_leader
    give = not st.hands[lead] & plain and bool(st.hands[st.partner[lead]] & plain)
    return give == (st.phase == GIVE)


def _may_act(st: GameState, a: CAction) -> bool:
    """Is ``a`` legal in ``st``? (The trace's actions were legal; a world can only break the
    rules that depend on hidden cards: following suit, the exchange's premises.)"""
    if a[1] in _SPECIALS:
        return True
    if st.to_move != a[0]:
        return False
    return a in st.legal() if st.tables.follow else True


def _augment(
    b: int, cand: dict[int, list[int]], owner: dict[int, int], taken: dict[int, int], seen: set[int]
) -> bool:
    """Kuhn's augmenting path: find card ``b`` a place, moving other cards along."""
    for i in cand.get(b, ()):
        if i in seen:
            continue
        seen.add(i)
        if i not in owner or _augment(owner[i], cand, owner, taken, seen):
            owner[i] = b
            taken[b] = i
            return True
    return False


__all__ = ["EPS", "TAU", "WorldSampler"]
