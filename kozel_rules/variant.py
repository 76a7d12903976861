"""Rule sets as data: one frozen :class:`Variant` per rule set of docs/rules.md.

Every difference between ``ziege``, ``street`` and ``moscow`` is a named parameter here;
the engine reads these parameters (through the precomputed tables of ``_tables``) and
never asks for a variant by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .action import Verb
from .card import Card, Rank, parse_cards
from .errors import RecordError


class TrumpKind(StrEnum):
    """How the trump is chosen."""

    FIXED = "fixed"  # a fixed list of trump cards (ziege): no trump suit, nothing turned
    MIDDLE = "middle"  # the stock's middle card is shown and left in place (street)
    TURNED = "turned"  # the card after the deal is turned and put under the stock (moscow)


class TrickKind(StrEnum):
    """How a trick is played."""

    FOLLOW = "follow"  # one card each, follow the led suit (ziege)
    BEAT = "beat"  # 1-4 cards each, beat the top set one-to-one or discard face down


class Special(StrEnum):
    """Four-card special leads, declared out of turn. Later members outrank earlier ones."""

    MOLODKA = "molodka"  # four cards of one suit (moscow: or three of one suit + the wild card)
    MOSCOW = "moscow"  # four cards, each an ace, a ten or the top card; at least one ace

    @property
    def verb(self) -> Verb:
        return Verb(self.value)


class FirstLeader(StrEnum):
    """Who leads the first trick of a deal, given the deal's dealer."""

    DEALER = "dealer"
    AFTER_DEALER = "after-dealer"  # the next seat still in after the dealer


class NextDeal(StrEnum):
    """How the next deal's dealer (and so its first leader) is found."""

    NEXT_SEAT = "next-seat"  # the next seat still in after this deal's dealer deals (ziege)
    LAST_TRICK_LEADS = "last-trick-leads"  # last trick's taker leads, seat before it deals (street)
    WINNER_DEALS = "winner-deals"  # the deal's winner deals (moscow)


@dataclass(frozen=True)
class Scoring:
    """How a deal is scored for a given number of sides still playing.

    The side with the most card points gets nothing. Sides tied for the most each get
    ``top_tie_award`` (with two sides: 60:60). Every other side gets ``no_trick_award`` if it
    took no trick, else the award of the first ``tiers`` entry whose minimum it reaches.
    """

    top_tie_award: int
    no_trick_award: int
    tiers: tuple[tuple[int, int], ...]  # (minimum card points, award), highest minimum first

    def award(self, card_points: int, tricks: int) -> int:
        if tricks == 0:
            return self.no_trick_award
        for minimum, award in self.tiers:
            if card_points >= minimum:
                return award
        raise AssertionError("scoring tiers must end with minimum 0")


@dataclass(frozen=True)
class QueenCatch:
    """ziege: ``queen`` and ``catcher`` in one trick from different sides end the deal at once;
    the side that played the queen gets ``award`` defeat points and nothing is counted."""

    queen: Card
    catcher: Card
    award: int


@dataclass(frozen=True)
class Variant:
    """One rule set. Every field is a rule parameter; see docs/rules.md for the rules themselves."""

    name: str
    player_counts: tuple[int, ...]  # allowed numbers of players
    team_players: int  # with this many players, partners sit opposite (two teams); else 1 a side
    ranks: tuple[Rank, ...]  # ranks in the deck (every suit)
    hand_size: int  # cards each seat holds after dealing and refills
    plain_order: tuple[Rank, ...]  # rank order of plain (non-trump) cards, low to high
    trump_kind: TrumpKind
    fixed_trumps: tuple[Card, ...]  # TrumpKind.FIXED: every trump, low to high
    top_card: Card | None  # beats every card, trumps included; nothing beats it (moscow 6♠)
    molodka_wild: Card | None  # may complete a molodka of three cards of one suit (moscow 6♠)
    trick_kind: TrickKind
    max_lead: int  # most cards of an ordinary lead (a four-card special lead aside)
    specials: tuple[Special, ...]  # special leads played in this variant, lowest rank first
    trump_lead_ban: bool  # a leader may not lead a trump while the partner exchange can help
    partner_exchange: bool  # leader with only trumps gives the partner a trump for a plain card
    queen_catch: QueenCatch | None
    first_leader: FirstLeader
    next_deal: NextDeal
    trump_card_known_after_draw: bool  # the shown trump card stays on the table view once drawn
    scoring: tuple[tuple[int, Scoring], ...]  # (number of sides still in, scoring)
    out_at: int  # defeat points at which a side is out
    title: str = ""

    @property
    def deck(self) -> tuple[Card, ...]:
        """The variant's cards in index order."""
        return tuple(Card.of(r, s) for s in range(4) for r in sorted(self.ranks))

    @property
    def deck_size(self) -> int:
        return 4 * len(self.ranks)

    @property
    def verbs(self) -> tuple[Verb, ...]:
        """The verbs actions may use in this variant."""
        if self.trick_kind is TrickKind.FOLLOW:
            verbs = [Verb.LEAD, Verb.PLAY]
            if self.partner_exchange:
                verbs += [Verb.GIVE, Verb.RETURN]
        else:
            verbs = [Verb.LEAD, Verb.BEAT, Verb.DISCARD]
            verbs += [s.verb for s in self.specials]
        return tuple(verbs)

    def sides_for(self, players: int) -> int:
        return 2 if players == self.team_players else players

    def scoring_for(self, sides: int) -> Scoring:
        for count, scoring in self.scoring:
            if count == sides:
                return scoring
        raise KeyError(f"{self.name}: no scoring for {sides} sides")

    def __str__(self) -> str:
        return self.name


_ALL_RANKS = tuple(Rank)
_NO_SIX = tuple(r for r in Rank if r is not Rank.SIX)

ZIEGE = Variant(
    name="ziege",
    title="Ziege (fixed trumps)",
    player_counts=(4,),
    team_players=4,
    ranks=_NO_SIX,
    hand_size=4,
    plain_order=(Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.KING, Rank.TEN, Rank.ACE),
    trump_kind=TrumpKind.FIXED,
    fixed_trumps=parse_cards("8♣ 9♣ K♣ 10♣ A♣ J♦ J♥ J♠ J♣ Q♦ Q♥ Q♠ Q♣ 7♣"),
    top_card=None,
    molodka_wild=None,
    trick_kind=TrickKind.FOLLOW,
    max_lead=1,
    specials=(),
    trump_lead_ban=True,
    partner_exchange=True,
    queen_catch=QueenCatch(Card.parse("Q♣"), Card.parse("7♣"), 4),
    first_leader=FirstLeader.DEALER,
    next_deal=NextDeal.NEXT_SEAT,
    trump_card_known_after_draw=False,
    scoring=((2, Scoring(top_tie_award=0, no_trick_award=2, tiers=((0, 2),))),),
    out_at=12,
)

STREET = Variant(
    name="street",
    title="Street Kozel (trump shown from the middle of the stock)",
    player_counts=(4,),
    team_players=4,
    ranks=_ALL_RANKS,
    hand_size=4,
    plain_order=(
        Rank.SIX,
        Rank.SEVEN,
        Rank.EIGHT,
        Rank.NINE,
        Rank.JACK,
        Rank.QUEEN,
        Rank.KING,
        Rank.TEN,
        Rank.ACE,
    ),
    trump_kind=TrumpKind.MIDDLE,
    fixed_trumps=(),
    top_card=None,
    molodka_wild=None,
    trick_kind=TrickKind.BEAT,
    max_lead=3,
    specials=(Special.MOLODKA,),
    trump_lead_ban=False,
    partner_exchange=False,
    queen_catch=None,
    first_leader=FirstLeader.AFTER_DEALER,
    next_deal=NextDeal.LAST_TRICK_LEADS,
    trump_card_known_after_draw=True,
    scoring=((2, Scoring(top_tie_award=0, no_trick_award=6, tiers=((31, 2), (0, 4)))),),
    out_at=12,
)

MOSCOW = Variant(
    name="moscow",
    title="Moscow Kozel (2-4 players, 6♠ highest)",
    player_counts=(2, 3, 4),
    team_players=4,
    ranks=_ALL_RANKS,
    hand_size=4,
    plain_order=STREET.plain_order,
    trump_kind=TrumpKind.TURNED,
    fixed_trumps=(),
    top_card=Card.parse("6♠"),
    molodka_wild=Card.parse("6♠"),
    trick_kind=TrickKind.BEAT,
    max_lead=3,
    specials=(Special.MOLODKA, Special.MOSCOW),
    trump_lead_ban=False,
    partner_exchange=False,
    queen_catch=None,
    first_leader=FirstLeader.AFTER_DEALER,
    next_deal=NextDeal.WINNER_DEALS,
    trump_card_known_after_draw=False,
    scoring=(
        (2, Scoring(top_tie_award=2, no_trick_award=6, tiers=((31, 2), (0, 4)))),
        (3, Scoring(top_tie_award=2, no_trick_award=6, tiers=((21, 2), (0, 4)))),
    ),
    out_at=12,
)

VARIANTS: dict[str, Variant] = {v.name: v for v in (ZIEGE, STREET, MOSCOW)}


def get_variant(name: str | Variant) -> Variant:
    """The variant called ``name`` (a :class:`Variant` is returned as it is)."""
    if isinstance(name, Variant):
        return name
    try:
        return VARIANTS[str(name).strip().lower()]
    except KeyError:
        known = ", ".join(VARIANTS)
        raise RecordError(f"unknown variant {name!r} (known: {known})") from None
