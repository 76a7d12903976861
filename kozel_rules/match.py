"""The match: deals, tricks, specials, scoring, match end. One checked ``apply``.

PUBLIC API CONTRACT (the bot and the computer players are written against it):

    m = Match.new("street", players=4, seed=7, dealer=None, decks=None, options=None)
    m.options            -> Options      the house rules (kozel_rules.options)
    m.goat_at            -> int          the defeat points that put a side out
    m.multiplier         -> int          eggs "double": the current deal's factor (1 normally)
    m.variant            -> Variant      (m.variant.name == "street")
    m.players            -> int
    m.seed               -> int
    m.legal_actions()    -> list[Action]  every action any seat may take now
                                          (the seat to move, and seats that may declare a special)
    m.legal_actions(seat)-> list[Action]  only that seat's
    m.to_move            -> int | None    the seat whose turn it is (None when over)
    m.apply(action)      -> list[Event]   raises IllegalActionError (state unchanged)
    m.apply_text("1 lead K♠ 9♠")          same, parsing the action
    m.view(seat)         -> SeatView      seat=None: the public view
    m.is_over            -> bool
    m.result             -> MatchResult | None
    m.deal_results       -> list[DealResult]
    m.defeat_points      -> tuple[int, ...] per side
    m.side_of(seat)      -> int
    m.seats_of(side)     -> tuple[int, ...]
    m.sides              -> int           number of sides (2 or 3)
    m.ply                -> int           number of actions applied so far
    m.to_json()          -> dict          JSON-safe; Match.from_json(d) continues identically
    m.copy()             -> Match

ADDITIONS (backwards compatible):

    m.history            -> list[str]     the applied actions as text (what to_json stores)
    m.dealer             -> int           the current deal's dealer
    m.deal_number        -> int           1-based number of the current deal
    m.phase              -> Phase         a StrEnum: "lead", "respond", "give", "return",
                                          "forced-lead", "over"
    m.seen(seat)         -> Seen          face-up cards of the deal, revealed cards, ziege voids
    m.state_copy()       -> GameState     a fast copy for playouts (see kozel_rules.state)
    m.apply(...) also accepts the action's text; events carry private cards, use
    kozel_rules.event.public_event / event_for_seat for what others may see.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._tables import SUIT_MASK, cards_of
from .action import Action, Verb
from .card import CARDS, Card, Suit, parse_cards
from .errors import IllegalActionError, RecordError, Rule
from .event import Event
from .options import Options
from .result import DealResult, MatchResult
from .scoring import multiplier
from .state import (
    CODE_OF_VERB,
    FORCED_LEAD,
    GIVE,
    LEAD,
    OVER,
    RESPOND,
    RETURN,
    V_DISCARD,
    VERB_OF_CODE,
    CAction,
    GameState,
    to_action,
)
from .variant import Special, Variant, get_variant
from .view import Phase, PlayView, SeatView, Seen, TrickView

JSON_FORMAT = "kozel-match/1"

DeckSpec = Sequence[Card | int | str]


def _deck_cards(deck: DeckSpec | str) -> list[int]:
    if isinstance(deck, str):
        return [int(c) for c in parse_cards(deck)]
    out = []
    for c in deck:
        if isinstance(c, str):
            out.append(int(Card.parse(c)))
        elif isinstance(c, int) and not isinstance(c, bool) and 0 <= c < 36:
            out.append(int(c))
        else:
            raise RecordError(f"not a card: {c!r}")
    return out


class Match:
    """One match of Kozel: deals until a side is out. See the module docstring."""

    __slots__ = ("_legal", "_legal_ply", "_st", "history")

    def __init__(self, state: GameState, history: list[str] | None = None) -> None:
        self._st = state
        self.history: list[str] = history if history is not None else []
        self._legal: list[CAction] = []
        self._legal_ply = -1

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        variant: str | Variant,
        players: int = 4,
        seed: int | str = 0,
        dealer: int | None = None,
        decks: Iterable[DeckSpec | str] | None = None,
        options: Options | Mapping[str, Any] | None = None,
    ) -> Match:
        """A new match with its first deal dealt.

        ``decks``: the decks of the first deals, top first (cards, indices or card texts);
        later deals are shuffled from ``(seed, deal number)``. ``dealer``: the first dealer
        (drawn from ``seed`` when ``None``). ``options``: the house rules, an :class:`Options`
        or its record form ``{"goat_at": 8, ...}`` (``None``: the defaults). Raises
        :class:`RecordError` for a bad variant, player count, dealer, deck or option.
        """
        try:
            deck_list = [_deck_cards(d) for d in decks] if decks is not None else None
        except ValueError as e:
            raise RecordError(str(e)) from None
        if not isinstance(seed, int | str) or isinstance(seed, bool):
            raise RecordError(f"seed must be an integer or a string, not {seed!r}")
        return cls(GameState.new(variant, players, seed, dealer, deck_list, options=options))

    def copy(self) -> Match:
        return Match(self._st.copy(), self.history[:])

    def state_copy(self) -> GameState:
        """A copy of the fast internal state, for playouts (see :mod:`kozel_rules.state`)."""
        return self._st.copy()

    # ------------------------------------------------------------------ properties

    @property
    def variant(self) -> Variant:
        return self._st.variant

    @property
    def options(self) -> Options:
        return self._st.options

    @property
    def goat_at(self) -> int:
        """The defeat points that put a side out (12 unless the option ``goat_at`` says)."""
        return self._st.out_at

    @property
    def multiplier(self) -> int:
        """Eggs "double": the factor of the current deal's defeat points (1 normally; 2 after
        one eggs deal, 4 after two in a row, ...)."""
        return multiplier(self._st.eggs_streak)

    @property
    def players(self) -> int:
        return self._st.players

    @property
    def seed(self) -> int | str:
        seed = self._st.seed
        assert isinstance(seed, int | str)
        return seed

    @property
    def sides(self) -> int:
        return self._st.side_count

    @property
    def ply(self) -> int:
        return len(self.history)

    @property
    def is_over(self) -> bool:
        return self._st.phase == OVER

    @property
    def result(self) -> MatchResult | None:
        return self._st.match_result

    @property
    def deal_results(self) -> list[DealResult]:
        return list(self._st.deal_results)

    @property
    def defeat_points(self) -> tuple[int, ...]:
        return tuple(self._st.defeat_points)

    @property
    def out(self) -> tuple[int, ...]:
        """Sides that are out, ascending."""
        return tuple(sorted(self._st.sides_out))

    @property
    def to_move(self) -> int | None:
        return self._st.to_move

    @property
    def phase(self) -> Phase:
        return self._st.phase_name

    @property
    def dealer(self) -> int:
        return self._st.dealer

    @property
    def deal_number(self) -> int:
        return self._st.deal_number

    @property
    def trump(self) -> Suit | None:
        return Suit(self._st.trump) if self._st.trump >= 0 else None

    def side_of(self, seat: int) -> int:
        return self._st.side_of[seat]

    def seats_of(self, side: int) -> tuple[int, ...]:
        return tuple(s for s in range(self._st.players) if self._st.side_of[s] == side)

    def in_game(self, seat: int) -> bool:
        return self._st.in_game[seat]

    # ------------------------------------------------------------------ actions

    def _legal_now(self) -> list[CAction]:
        if self._legal_ply != len(self.history):
            self._legal = self._st.legal()
            self._legal_ply = len(self.history)
        return self._legal

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every action any seat may take now (the seat to move and seats that may declare
        a special lead), or only ``seat``'s."""
        return [to_action(a) for a in self._legal_now() if seat is None or a[0] == seat]

    def is_legal(self, action: Action | str) -> bool:
        try:
            a = self._compact(Action.parse(action) if isinstance(action, str) else action)
        except (ValueError, IllegalActionError):
            return False
        return a in self._legal_now()

    def apply_text(self, text: str) -> list[Event]:
        """Parse ``"<seat> <verb> <cards…>"`` and apply it."""
        try:
            action = Action.parse(text)
        except ValueError as e:
            raise IllegalActionError(str(e), rule=Rule.MALFORMED, action=text) from None
        return self.apply(action)

    def apply(self, action: Action | str) -> list[Event]:
        """Apply one action and return its events (with private cards; see
        :func:`~kozel_rules.event.public_event`). Raises :class:`IllegalActionError` naming
        the seat, the action and the rule, and leaves the match unchanged."""
        if isinstance(action, str):
            return self.apply_text(action)
        a = self._compact(action)
        if a not in self._legal_now():
            raise self._why_illegal(action, a)
        log: list[Event] = []
        self._st.step(a, log)
        self.history.append(str(to_action(a)))  # normalised: cards in index order
        return log

    def _compact(self, action: Action) -> CAction:
        if not isinstance(action, Action):
            raise IllegalActionError(f"not an action: {action!r}", rule=Rule.MALFORMED)
        try:
            verb = CODE_OF_VERB[Verb(action.verb)]
            seat = int(action.seat)
        except (ValueError, TypeError):
            raise IllegalActionError(
                f"not an action: {action!r}", rule=Rule.MALFORMED, action=str(action)
            ) from None
        m = 0
        for c in action.cards:
            if not isinstance(c, int) or not 0 <= c < 36:
                raise IllegalActionError(
                    f"not a card: {c!r}", rule=Rule.MALFORMED, action=str(action)
                )
            b = 1 << int(c)
            if m & b:
                raise IllegalActionError(
                    f"{action}: card {c} is named twice",
                    rule=Rule.DUPLICATE_CARD,
                    action=str(action),
                )
            m |= b
        return (seat, verb, m)

    # ------------------------------------------------------------------ why an action is illegal

    def _why_illegal(self, action: Action, a: CAction) -> IllegalActionError:
        rule, message = self._diagnose(action, a)
        return IllegalActionError(f"{action}: {message}", rule=rule, action=str(action))

    def _diagnose(self, action: Action, a: CAction) -> tuple[Rule, str]:
        seat, verb, m = a
        vb = VERB_OF_CODE[verb]
        found = self._diagnose_actor(seat, vb, m)
        if found is not None:
            return found
        if vb.is_special:
            return self._diagnose_special(seat, vb, m)
        return self._diagnose_phase(seat, vb, m)

    def _diagnose_actor(self, seat: int, vb: Verb, m: int) -> tuple[Rule, str] | None:
        """What is wrong with who acts, with which verb and which cards, whatever the phase
        (None: nothing)."""
        st = self._st
        v = st.variant
        tables = st.tables
        if st.phase == OVER:
            return Rule.MATCH_OVER, "the match is over"
        if not 0 <= seat < st.players:
            return Rule.NO_SUCH_SEAT, f"there is no seat {seat} ({st.players} players)"
        if not st.in_game[seat]:
            return Rule.SEAT_OUT, f"seat {seat} is out of the match"
        if vb not in v.verbs:
            hint = (
                "a follower plays with 'play'"
                if tables.follow
                else "respond with 'beat' or 'discard'"
            )
            return Rule.VERB_NOT_IN_VARIANT, f"'{vb}' is not a {v.name} action ({hint})"
        if not m:
            return Rule.NO_CARDS, "an action needs at least one card"
        to_move = st.to_move
        if seat != to_move and not vb.is_special:
            return Rule.NOT_YOUR_TURN, f"seat {seat} may not act now (seat {to_move} to move)"
        hand = st.hands[seat]
        if m & ~hand:
            missing = " ".join(str(c) for c in cards_of(m & ~hand))
            return Rule.NOT_IN_HAND, f"seat {seat} does not hold {missing}"
        return None

    def _diagnose_phase(self, seat: int, vb: Verb, m: int) -> tuple[Rule, str]:
        """What the phase asks of the seat that ``vb`` with cards ``m`` does not give."""
        st = self._st
        tables = st.tables
        ph = st.phase
        if ph == GIVE:
            if vb is not Verb.GIVE:
                return (
                    Rule.MUST_EXCHANGE,
                    f"seat {seat} holds only trumps while the partner holds a plain card: "
                    "it must first give the partner a trump",
                )
            return Rule.GIVE_ONE_TRUMP, "give exactly one trump"
        if ph == RETURN:
            if vb is not Verb.RETURN:
                return Rule.MUST_RETURN, f"seat {seat} must return a plain card to its partner"
            if m & ~tables.plain_mask:
                return (
                    Rule.RETURN_MUST_BE_PLAIN,
                    "the partner must return a plain card, not a trump",
                )
            return Rule.RETURN_ONE_CARD, "return exactly one plain card"
        if ph == FORCED_LEAD:
            return Rule.MUST_LEAD_RETURNED_CARD, f"seat {seat} must lead the card it got back"
        if ph == LEAD:
            if vb is not Verb.LEAD:
                return Rule.MUST_LEAD, f"seat {seat} must lead now"
            return self._diagnose_lead(seat, m)
        if ph == RESPOND:
            return self._diagnose_response(seat, vb, m)
        return Rule.ILLEGAL, "not allowed now"

    def _diagnose_lead(self, seat: int, m: int) -> tuple[Rule, str]:
        st = self._st
        v = st.variant
        tables = st.tables
        n = m.bit_count()
        if tables.follow:
            if n != 1:
                return Rule.LEAD_ONE_CARD, "lead exactly one card"
            if v.trump_lead_ban and not m & tables.plain_mask:
                return (
                    Rule.TRUMP_LEAD_BANNED,
                    f"seat {seat} may not lead a trump while it (or, by the exchange, its "
                    "partner) holds a plain card",
                )
            return Rule.ILLEGAL, "not allowed now"
        if not any(m & ~sm == 0 for sm in SUIT_MASK):
            return Rule.LEAD_ONE_SUIT, "a lead is one card or cards of one suit"
        if n > v.max_lead:
            if tables.special_kind(m) and m == st.hands[seat]:
                kind = v.specials[tables.special_kind(m) - 1]
                return (
                    Rule.SPECIAL_IS_NOT_A_LEAD,
                    f"four cards that form a {kind.value} are declared as '{kind.value}'",
                )
            return Rule.LEAD_TOO_MANY, f"a lead holds at most {v.max_lead} cards"
        return Rule.ILLEGAL, "not allowed now"

    def _diagnose_response(self, seat: int, vb: Verb, m: int) -> tuple[Rule, str]:
        st = self._st
        tables = st.tables
        if tables.follow:
            if vb is not Verb.PLAY:
                return Rule.MUST_PLAY, f"seat {seat} follows with 'play'"
            if m.bit_count() != 1:
                return Rule.PLAY_ONE_CARD, "play exactly one card"
            if st.led_key == tables.TRUMP_KEY:
                return Rule.MUST_PLAY_TRUMP, "a trump was led: play a trump if you can"
            suit = Suit(st.led_key)
            return Rule.MUST_FOLLOW_SUIT, f"{suit} was led: follow suit if you can"
        if vb not in (Verb.BEAT, Verb.DISCARD):
            return Rule.MUST_RESPOND, f"seat {seat} responds with 'beat' or 'discard'"
        if m.bit_count() != st.set_size:
            return Rule.WRONG_CARD_COUNT, f"play exactly {st.set_size} card(s), as many as the lead"
        if vb is Verb.BEAT:
            top = " ".join(str(c) for c in cards_of(st.top_mask))
            return Rule.DOES_NOT_BEAT, f"these cards cannot each beat a different card of {top}"
        return Rule.ILLEGAL, "not allowed now"

    def _diagnose_special(self, seat: int, vb: Verb, m: int) -> tuple[Rule, str]:
        st = self._st
        v = st.variant
        tables = st.tables
        special = Special(vb.value)
        if special not in v.specials:
            return Rule.VERB_NOT_IN_VARIANT, f"'{vb}' is not a {v.name} action"
        kind = tables.special_kind(st.hands[seat])
        if m != st.hands[seat] or kind != tables.kind_of_special[special]:
            return Rule.NOT_A_SPECIAL, f"a {special.value} is four cards in hand that form one"
        if st.declared_kind:
            declared = v.specials[st.declared_kind - 1].value
            if kind < st.declared_kind:
                return (
                    Rule.MOLODKA_CANNOT_OVERRIDE_MOSCOW,
                    f"a {special.value} never overrides a declared {declared}",
                )
            if kind == st.declared_kind:
                return (
                    Rule.OVERRIDE_NOT_NEARER,
                    f"seat {seat} is not nearer than seat {st.leader} to seat {st.due_leader}, "
                    "who was due to lead",
                )
        return Rule.ILLEGAL, "not allowed now"

    # ------------------------------------------------------------------ views

    def _sort_hand(self, m: int) -> tuple[Card, ...]:
        st = self._st
        tables = st.tables
        pos = tables.plain_pos
        cards = cards_of(m)
        if tables.follow:
            # plain cards by suit and rank, then the trumps low to high
            tpos = {int(c): i for i, c in enumerate(st.variant.fixed_trumps)}

            def key(c: Card) -> tuple[int, int, int]:
                if int(c) in tpos:
                    return (1, tpos[int(c)], 0)
                return (0, int(c.suit), pos[c.rank])

            return tuple(sorted(cards, key=key))
        trump = st.trump
        return tuple(sorted(cards, key=lambda c: (c.suit == trump, c.suit, pos[c.rank])))

    def _trick_view(
        self, seat: int | None, leader: int, due: int, plays: list[CAction], taker: int | None
    ) -> TrickView:
        st = self._st
        pv = []
        for s, verb, m in plays:
            vb = VERB_OF_CODE[verb]
            hidden = verb == V_DISCARD and s != seat
            pv.append(PlayView(s, vb, () if hidden else cards_of(m), m.bit_count()))
        top: int | None = None
        if plays:
            top = st.best_seat if st.tables.follow else st.top_seat
            if taker is not None:
                top = taker
        return TrickView(leader=leader, due_leader=due, plays=tuple(pv), top_seat=top, taker=taker)

    def view(self, seat: int | None = None) -> SeatView:
        """What ``seat`` may see now (``None``: the public table)."""
        st = self._st
        v = st.variant
        if seat is not None and not 0 <= seat < st.players:
            raise ValueError(f"no seat {seat}")
        over = st.phase == OVER
        trick = None
        if not over:
            trick = self._trick_view(seat, st.leader, st.due_leader, st.plays, None)
        last = None
        if st.last_trick is not None:
            ll, ld, lp, lt = st.last_trick
            last = self._trick_view(seat, ll, ld, lp, lt)
        in_stock = st.trump_card_in_stock()
        trump_card = None
        if st.trump_card >= 0 and (in_stock or v.trump_card_known_after_draw):
            trump_card = CARDS[st.trump_card]
        tricks_by_side = [0] * st.side_count
        for s in range(st.players):
            tricks_by_side[st.side_of[s]] += st.tricks_taken[s]
        legal: tuple[Action, ...] = ()
        hand: tuple[Card, ...] = ()
        if seat is not None:
            hand = self._sort_hand(st.hands[seat])
            legal = tuple(self.legal_actions(seat))
        return SeatView(
            variant=v.name,
            players=st.players,
            seat=seat,
            hand=hand,
            trump=Suit(st.trump) if st.trump >= 0 else None,
            trump_card=trump_card,
            trump_card_drawn=st.trump_card >= 0 and not in_stock,
            stock=len(st.stock),
            hand_sizes=tuple(h.bit_count() if st.in_game[s] else 0 for s, h in enumerate(st.hands)),
            in_game=tuple(st.in_game),
            sides=st.side_of,
            deal_number=st.deal_number,
            dealer=st.dealer,
            to_move=st.to_move,
            phase=st.phase_name,
            trick=trick,
            last_trick=last,
            tricks_by_seat=tuple(st.tricks_taken),
            tricks_by_side=tuple(tricks_by_side),
            defeat_points=tuple(st.defeat_points),
            out=tuple(sorted(st.sides_out)),
            last_deal=st.deal_results[-1] if st.deal_results else None,
            legal=legal,
            match_over=over,
            trick_takers=tuple(st.trick_takers),
            goat_at=st.out_at,
            multiplier=multiplier(st.eggs_streak),
        )

    def seen(self, seat: int | None = None) -> Seen:
        """What ``seat`` (``None``: every seat) knows of this deal beyond :meth:`view`."""
        st = self._st
        n = st.players
        revealed = tuple(cards_of(st.revealed[s] & st.hands[s]) for s in range(n))
        given: list[tuple[Card, ...]] = [()] * n
        own_down: tuple[Card, ...] = ()
        unseen: tuple[Card, ...] = ()
        if seat is not None:
            for giver, receiver, m in st.gifts:
                if giver == seat and st.hands[receiver] & m:
                    given[receiver] = given[receiver] + cards_of(m)
            own_down = cards_of(st.face_down[seat])
            unseen = cards_of(st.unseen_by(seat))
        tk = st.tables.TRUMP_KEY
        return Seen(
            seat=seat,
            deal_number=st.deal_number,
            played=cards_of(st.seen_face_up),
            own_face_down=own_down,
            revealed=revealed,
            given=tuple(given),
            void_suits=tuple(
                frozenset(Suit(k) for k in range(4) if st.voids[s] >> k & 1) for s in range(n)
            ),
            void_trumps=tuple(bool(st.voids[s] >> tk & 1) for s in range(n)),
            unseen=unseen,
        )

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe record: variant, players, seed, first dealer, the decks of every deal
        dealt so far (and any given for later deals) and the actions. ``from_json`` replays it."""
        st = self._st
        decks = [list(d) for d in st.decks_used] + [list(d) for d in st.decks[st.deal_number :]]
        record: dict[str, Any] = {
            "format": JSON_FORMAT,
            "variant": st.variant.name,
            "players": st.players,
            "seed": self.seed,
            "dealer": st.first_dealer,
        }
        if not st.options.is_default:  # records without options stay as they were
            record["options"] = st.options.to_json()
        record["decks"] = [[str(CARDS[c]) for c in d] for d in decks]
        record["actions"] = list(self.history)
        return record

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Match:
        """The match ``to_json`` wrote, in the same state. Raises :class:`RecordError`."""
        if not isinstance(data, dict) or data.get("format") != JSON_FORMAT:
            raise RecordError(f"not a {JSON_FORMAT} record")
        actions = data.get("actions")
        if not isinstance(actions, list):
            raise RecordError("a match record needs a list of actions")
        m = cls.new(
            get_variant(data.get("variant", "")),
            players=data.get("players", 4),
            seed=data.get("seed", 0),
            dealer=data.get("dealer"),
            decks=data.get("decks") or [],
            options=data.get("options"),
        )
        st = m._st
        for i, text in enumerate(actions):
            try:
                action = Action.parse(text)
                a = m._compact(action)
            except (ValueError, IllegalActionError) as e:
                raise RecordError(f"action {i} ({text!r}): {e}") from None
            if a not in st.legal():
                raise RecordError(f"action {i} is illegal: {m._why_illegal(action, a)}")
            st.step(a)
            m.history.append(str(action))
        return m

    def __repr__(self) -> str:
        st = self._st
        return (
            f"<Match {st.variant.name} {st.players}p deal {st.deal_number} ply {self.ply} "
            f"{st.phase_name} to_move={st.to_move} defeat={st.defeat_points}>"
        )

    # ------------------------------------------------------------------ why a card is dead

    def why_not(self, seat: int, card: Card, chosen: Iterable[Card] = ()) -> Rule | None:
        """Why no legal action of ``seat`` holds ``card`` (with the cards ``chosen`` beside
        it) now (``None``: one does): the rule the seat breaks playing those cards, the way
        the phase asks for cards."""
        cards = {card, *chosen}
        if any(cards <= set(a.cards) for a in self.legal_actions(seat)):
            return None
        verb = Verb.LEAD
        if seat == self.to_move and self.phase == Phase.RESPOND:
            verb = Verb.PLAY if Verb.PLAY in self.variant.verbs else Verb.BEAT
        elif seat == self.to_move and self.phase in (Phase.GIVE, Phase.RETURN):
            verb = Verb(self.phase.value)
        action = Action.make(seat, verb, sorted(cards))
        return self._diagnose(action, self._compact(action))[0]


__all__ = ["JSON_FORMAT", "Match"]
