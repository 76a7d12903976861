"""The ``basic`` player: a hand-written strategy over the compact state.

:func:`basic_policy` picks an action for the seat to move (or an out-of-turn special lead)
of a :class:`~kozel_rules.state.GameState`. It reads only what that seat may know: its own
hand, the cards on the table (face-down ones as counts), the face-up cards of the deal
(``seen_face_up``), its own face-down cards, the trump, the trick's order and the sides. It is
used for the ``basic`` level (on an observation's concealed state) and as the rollout policy
of the ``strong`` level (on sampled worlds, each seat playing from its own hand).

The strategy, in short:

* keep trumps and high cards; throw away (discard, or play) the cards of least value;
* a special lead (molodka, Moscow) is declared at once: it nearly always takes the trick
  and everybody's whole hand;
* street/moscow lead: a set that cannot be beaten (it holds a card no unseen card beats,
  the moscow 6♠ for one) takes as many cards as it can; otherwise a single low plain card;
* street/moscow response: never overtake a partner's set; put points on it (tens, kings)
  when it is safe; against an opponent beat as cheaply as possible when the trick is worth
  it (or costs next to nothing), else discard the least valuable cards;
* ziege: lead an ace that is still the best of its suit, else a low plain card; follow by
  taking a trick cheaply from an opponent, smearing points on a partner's safe trick, and
  otherwise play the least valuable card; catch an opponent's Q♣ with the 7♣, keep the 7♣
  while the Q♣ is out, and never play the Q♣ while an opponent after us may hold the 7♣;
  in the exchange give the lowest trump and return an ace or the lowest plain card.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._tables import SUIT_MASK, mask_points
from ..card import POINTS, Rank
from ..state import (
    FORCED_LEAD,
    GIVE,
    LEAD,
    RETURN,
    V_BEAT,
    V_DISCARD,
    V_LEAD,
    V_MOLODKA,
    V_MOSCOW,
    CAction,
    GameState,
)
from ..variant import Variant

_SPECIAL_VERBS = (V_MOLODKA, V_MOSCOW)
_EST_HIDDEN_POINTS = 3  # expected card points of a face-down card we cannot see
TRUMP_KEEP = 14.0
CHEAP_BEAT = 10.0
BEAT_RATIO = 0.15
TOP_LEAD_MIN = 10
Z_CHEAP = 5.0
Z_WORTH = 3.0


def _beat_values(v: Variant, trump: int) -> tuple[tuple[float, ...], tuple[int, ...]]:
    r = _BEAT_VALUES.get((v.name, trump))
    if r is None:
        r = _BEAT_VALUES[(v.name, trump)] = _make_beat_values(v, trump)
    return r


_BEAT_VALUES: dict[tuple[str, int], tuple[tuple[float, ...], tuple[int, ...]]] = {}


def _make_beat_values(v: Variant, trump: int) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """street/moscow, per card: (keep value, smear value) for this trump suit.

    Keep value: how much a card is worth holding (trumps and high cards most; its points
    count half, since they come back when we win with it). Smear value: how good a card is to
    put face down on a partner's trick that is safe (points, but aces and trumps are kept).
    """
    pos = {r: i for i, r in enumerate(v.plain_order)}
    top = int(v.top_card) if v.top_card is not None else -1
    keep = [0.0] * 36
    smear = [0] * 36
    for c in (int(x) for x in v.deck):
        p = POINTS[c]
        r = pos[Rank(c % 9)]
        if c == top:
            keep[c] = 40.0
            smear[c] = -100
        elif c // 9 == trump:
            keep[c] = TRUMP_KEEP + r + 0.5 * p
            smear[c] = -20 - r
        else:
            keep[c] = r + 0.5 * p
            smear[c] = p if p < 11 else 3
    return tuple(keep), tuple(smear)


def _follow_values(v: Variant) -> tuple[float, ...]:
    r = _FOLLOW_VALUES.get(v.name)
    if r is None:
        r = _FOLLOW_VALUES[v.name] = _make_follow_values(v)
    return r


_FOLLOW_VALUES: dict[str, tuple[float, ...]] = {}


def _make_follow_values(v: Variant) -> tuple[float, ...]:
    """ziege, per card: keep value (trumps by rank among trumps, plain cards by rank)."""
    pos = {r: i for i, r in enumerate(v.plain_order)}
    tpos = {int(c): i for i, c in enumerate(v.fixed_trumps)}
    keep = [0.0] * 36
    for c in (int(x) for x in v.deck):
        p = POINTS[c]
        if c in tpos:
            keep[c] = 10.0 + tpos[c] + 0.3 * p
        else:
            keep[c] = pos[Rank(c % 9)] + 0.3 * p
    return tuple(keep)


def _higher(st: GameState) -> list[dict[int, int]]:
    """ziege, per led key: trick power -> mask of the cards with more power."""
    r = _HIGHER.get(st.variant.name)
    if r is None:
        tables = st.tables
        r = []
        for row in tables.power:
            table: dict[int, int] = {}
            for p in set(row):
                m = 0
                for c in tables.deck:
                    if row[c] > p:
                        m |= 1 << c
                table[p] = m
            r.append(table)
        _HIGHER[st.variant.name] = r
    return r


_HIGHER: dict[str, list[dict[int, int]]] = {}


def _cards(m: int) -> list[int]:
    out = []
    while m:
        b = m & -m
        out.append(b.bit_length() - 1)
        m ^= b
    return out


def outstanding(st: GameState, seat: int) -> int:
    """Cards ``seat`` cannot place now (other hands, the stock, others' face-down cards),
    computed from what it may know only; the trump card known to lie in the stock is left out
    (nobody can play it this trick)."""
    known = st.hands[seat] | st.seen_face_up | st.table_face_up | st.face_down[seat]
    if st.trump_card_in_stock():
        known |= 1 << st.trump_card
    return st.tables.deck_mask & ~known


def basic_policy(st: GameState, legal: list[CAction]) -> CAction:
    """The ``basic`` choice among ``legal`` (every legal action of ``st``: the seat to move
    and any seat that may declare a special lead)."""
    if len(legal) == 1:
        return legal[0]
    if st.any_special:
        for a in legal:
            if a[1] in _SPECIAL_VERBS:
                return a  # declared at once, by the first seat (from the leader) that can
    if st.tables.follow:
        return _follow_choice(st, legal)
    if st.phase == LEAD:
        return _beat_lead(st, legal)
    return _beat_respond(st, legal)


def wants_special(st: GameState, a: CAction) -> bool:
    """Does the ``basic`` player declare special lead ``a`` now (out of turn or not)? Yes:
    a molodka or Moscow takes the trick and everybody's whole hand nearly always."""
    return a[1] in _SPECIAL_VERBS


# ---------------------------------------------------------------------- street / moscow


def _beat_lead(st: GameState, legal: list[CAction]) -> CAction:
    seat = st.due_leader
    h = st.hands[seat]
    keep, _ = _beat_values(st.variant, st.trump)
    beaters = st.beaters
    out = outstanding(st, seat)
    top = st.tables.top_card
    room = st.variant.max_lead - 1
    best = 0
    best_key = (0, 0)
    for c in _cards(h):
        if beaters[c] & out:
            continue
        # c cannot be beaten, so no lead holding it can: add the suit's richest cards
        rest = sorted(_cards(h & SUIT_MASK[c // 9] & ~(1 << c)), key=lambda x: -POINTS[x])
        m = 1 << c
        for x in rest[:room]:
            m |= 1 << x
        pts = mask_points(m)
        if c == top and pts < TOP_LEAD_MIN:
            continue  # the 6♠ is kept to beat a rich trick or to lead with points
        k = (m.bit_count(), pts)
        if k > best_key:
            best_key = k
            best = m
    if best:
        a = (seat, V_LEAD, best)
        if a in legal:
            return a
    # nothing sure: the least valuable single card
    c = min(_cards(h), key=lambda x: keep[x])
    a = (seat, V_LEAD, 1 << c)
    return a if a in legal else legal[0]


def _beat_respond(st: GameState, legal: list[CAction]) -> CAction:
    seat = st.order[st.turn]
    keep, smear = _beat_values(st.variant, st.trump)
    beaters = st.beaters
    side_of = st.side_of
    my_side = side_of[seat]
    opp_after = False
    for s in st.order[st.turn + 1 :]:
        if side_of[s] != my_side:
            opp_after = True
            break
    discards: list[int] = []
    beats: list[int] = []
    for a in legal:
        if a[0] == seat:
            if a[1] == V_DISCARD:
                discards.append(a[2])
            elif a[1] == V_BEAT:
                beats.append(a[2])
    out = outstanding(st, seat)
    top = st.top_seat
    if side_of[top] == my_side and top != seat:
        # the partner holds the trick: never overtake it; smear points if it is safe
        safe = not opp_after or any(not beaters[c] & out for c in _cards(st.top_mask))
        if safe:
            return (seat, V_DISCARD, max(discards, key=lambda m: _score(m, smear)))
        return (seat, V_DISCARD, min(discards, key=lambda m: _score(m, keep)))
    if beats:
        hidden = (st.table_cards & ~st.table_face_up).bit_count()
        trick = mask_points(st.table_face_up) + _EST_HIDDEN_POINTS * hidden
        # later responders add their cards (discards mostly) to whoever takes the trick
        later = (len(st.order) - st.turn - 1) * st.set_size
        best_m, best_cost = _cheapest_beat(beats, keep, beaters, out, opp_after)
        gain = trick + mask_points(best_m) + 1.5 * later
        if best_cost <= CHEAP_BEAT * st.set_size or gain >= BEAT_RATIO * best_cost:
            return (seat, V_BEAT, best_m)
    return (seat, V_DISCARD, min(discards, key=lambda m: _score(m, keep)))


def _cheapest_beat(
    beats: list[int],
    keep: tuple[float, ...],
    beaters: Sequence[int],
    out: int,
    opp_after: bool,
) -> tuple[int, float]:
    """The beat that spends the least (its cards' keep values, more when an opponent still to
    play may overtake it), and that cost."""
    best_m = 0
    best_cost = 1e9
    for m in beats:
        cards = _cards(m)
        cost = 0.0
        for c in cards:
            cost += keep[c]
        secure = not opp_after or any(not beaters[c] & out for c in cards)
        if not secure:
            cost += 6.0 * len(cards)  # may be overtaken: worth less
        if cost < best_cost:
            best_cost = cost
            best_m = m
    return best_m, best_cost


def _score(m: int, table: tuple[float, ...] | tuple[int, ...]) -> float:
    s = 0.0
    while m:
        b = m & -m
        s += table[b.bit_length() - 1]
        m ^= b
    return s


# ---------------------------------------------------------------------- ziege


def _follow_choice(st: GameState, legal: list[CAction]) -> CAction:
    keep = _follow_values(st.variant)
    tables = st.tables
    ph = st.phase
    seat = st.to_move
    assert seat is not None
    own = [a for a in legal if a[0] == seat]
    if ph == FORCED_LEAD or len(own) == 1:
        return own[0]
    if ph == GIVE:
        # the lowest trump (never the 7♣ or Q♣ while another trump will do)
        catch = tables.catch_mask
        cand = [a for a in own if not a[2] & catch] or own
        return min(cand, key=lambda a: keep[a[2].bit_length() - 1])
    if ph == RETURN:
        # the card the leader must lead: an ace still best in its suit, else the lowest
        out = outstanding(st, seat)
        return max(own, key=lambda a: _lead_score(st, a[2], out, keep))
    if ph == LEAD:
        out = outstanding(st, seat)
        return max(own, key=lambda a: _lead_score(st, a[2], out, keep))
    return _follow_play(st, seat, own, keep)


def _lead_score(st: GameState, m: int, out: int, keep: tuple[float, ...]) -> float:
    tables = st.tables
    c = m.bit_length() - 1
    if m & tables.plain_mask:
        key = tables.key[c]
        higher = _higher(st)[key][tables.power[key][c]] & out & tables.follow_mask[key]
        if not higher and POINTS[c] >= 10:
            return 50.0 + POINTS[c]  # the best card left in its suit
        return -keep[c]
    # only trumps anywhere on our side: lead high to draw trumps, but never the Q♣ while
    # the 7♣ is out
    if m & tables.queen_bit and out & tables.catcher_bit:
        return -100.0
    return keep[c]


def _follow_play(st: GameState, seat: int, own: list[CAction], keep: tuple[float, ...]) -> CAction:
    my_side = st.side_of[seat]
    catch = _queen_catch(st, my_side, own)
    if catch is not None:
        return catch
    out = outstanding(st, seat)
    opp_after = _opponent_after(st, my_side)
    cand = _safe_for_the_catch(st, my_side, own, out, opp_after)
    if st.side_of[st.best_seat] == my_side:
        return _on_partner_trick(st, cand, keep, out, opp_after)
    return _against_opponent(st, cand, keep, out, opp_after)


def _queen_catch(st: GameState, my_side: int, own: list[CAction]) -> CAction | None:
    """The 7♣, if an opponent's Q♣ lies in this trick (the catch takes the deal)."""
    if st.queen_seat >= 0 and st.side_of[st.queen_seat] != my_side:
        for a in own:
            if a[2] & st.tables.catcher_bit:
                return a
    return None


def _opponent_after(st: GameState, my_side: int) -> bool:
    """Does an opponent still play to this trick after the seat to move?"""
    side_of = st.side_of
    return any(side_of[s] != my_side for s in st.order[st.turn + 1 :])


def _safe_for_the_catch(
    st: GameState, my_side: int, cand: list[CAction], out: int, opp_after: bool
) -> list[CAction]:
    """``cand`` without the catch cards it should keep (unless nothing else is left)."""
    tables = st.tables
    side_of = st.side_of
    # the Q♣ is given away if an opponent's 7♣ lies in this trick, or an opponent after us
    # may hold it
    seven_here = st.catcher_seat >= 0 and side_of[st.catcher_seat] != my_side
    if seven_here or (opp_after and out & tables.catcher_bit):
        cand = [a for a in cand if not a[2] & tables.queen_bit] or cand
    # keep the 7♣ while the Q♣ is out (or still to come from an opponent)
    if out & tables.queen_bit and not (st.queen_seat >= 0 and side_of[st.queen_seat] == my_side):
        cand = [a for a in cand if not a[2] & tables.catcher_bit] or cand
    return cand


def _on_partner_trick(
    st: GameState, cand: list[CAction], keep: tuple[float, ...], out: int, opp_after: bool
) -> CAction:
    """The partner holds the trick: smear points on it if nobody after us can take it, else
    play the least valuable card."""
    higher = _higher(st)[st.led_key]
    if not opp_after or not higher[st.best_power] & out:
        return max(cand, key=lambda a: POINTS[a[2].bit_length() - 1] * 2 - _k(keep, a))
    return min(cand, key=lambda a: _k(keep, a))


def _against_opponent(
    st: GameState, cand: list[CAction], keep: tuple[float, ...], out: int, opp_after: bool
) -> CAction:
    """An opponent holds the trick: take it when that is cheap or worth it, else play the
    least valuable card."""
    row = st.tables.power[st.led_key]
    winners = [a for a in cand if row[a[2].bit_length() - 1] > st.best_power]
    if winners:
        if not opp_after:
            # last to play for our side: take it with the cheapest winner (points are ours)
            return min(winners, key=lambda a: _k(keep, a) - POINTS[a[2].bit_length() - 1])
        trick = mask_points(st.table_face_up)
        # an opponent still plays: a winner nobody unseen can beat, if the trick is worth it
        higher = _higher(st)[st.led_key]
        sure = [a for a in winners if not higher[row[a[2].bit_length() - 1]] & out]
        if sure:
            w = min(sure, key=lambda a: _k(keep, a))
            if trick + POINTS[w[2].bit_length() - 1] >= 4 or _k(keep, w) <= 8:
                return w
        w = min(winners, key=lambda a: _k(keep, a))
        if _k(keep, w) <= Z_CHEAP or trick + POINTS[w[2].bit_length() - 1] >= Z_WORTH:
            return w
    return min(cand, key=lambda a: _k(keep, a))


def _k(keep: tuple[float, ...], a: CAction) -> float:
    return keep[a[2].bit_length() - 1]


__all__ = ["basic_policy", "outstanding", "wants_special"]
