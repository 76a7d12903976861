"""The ladder's records (schema version 2): ratings, lines, seasons, boards and histories.

Backend-neutral value holders like those in ``records`` (which re-exports every name here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .records import MatchPlayerRecord, MatchRecord


ALL_VARIANTS = "*"
"""The ladder scope that counts every variant: a player's overall line and rating in a chat."""


def player_key(user_id: int | None, ai_level: str | None) -> str:
    """A ladder identity: ``"u<user id>"`` for a person, ``"ai:<level>"`` for each computer level
    (all computer players of one level share one line and one rating)."""
    if user_id is not None:
        return f"u{user_id}"
    return f"ai:{ai_level or 'unknown'}"


@dataclass(frozen=True)
class Rating:
    """A skill estimate: mean and uncertainty, and the conservative value the ladder shows and
    sorts by (computed by the service, which owns the rating model)."""

    mu: float
    sigma: float
    value: float


@dataclass(frozen=True)
class RatingChange:
    """One seat's rating in one match and one scope."""

    rank: int
    """The seat's side's finishing place: 1 for the winners, then by reverse elimination order."""
    before: Rating
    after: Rating


class Rater(Protocol):
    """The rating model, handed to the storage so a match is rated inside the transaction that
    records it. ``before[i]`` is the rating of ``match.players_list[i]``'s player in the scope
    being rated (None: first match in that scope); the answer has one change per seat, in order.
    It must be pure and deterministic (matches can be rated again, e.g. after a chat migration).
    """

    def __call__(
        self, match: MatchRecord, before: Sequence[Rating | None]
    ) -> Sequence[RatingChange]: ...


@dataclass(frozen=True)
class Tally:
    """Counts of a ladder line (or a sum of lines)."""

    matches: int = 0
    wins: int = 0
    goats: int = 0
    deals_won: int = 0
    deals_lost: int = 0
    defeat_points_taken: int = 0
    defeat_points_given: int = 0
    """Defeat points the other sides took in the player's matches."""
    eggs: int = 0
    queens_caught: int = 0
    tricks: int = 0
    card_points: int = 0

    @classmethod
    def of(cls, player: MatchPlayerRecord, *, given: int) -> Tally:
        """One match of one seat; ``given`` is the defeat points the other sides took."""
        return cls(
            matches=1,
            wins=int(player.won),
            goats=int(player.goat),
            deals_won=player.deals_won,
            deals_lost=player.deals_lost,
            defeat_points_taken=player.defeat_points,
            defeat_points_given=given,
            eggs=player.eggs,
            queens_caught=player.queens_caught,
            tricks=player.tricks,
            card_points=player.card_points,
        )

    @property
    def losses(self) -> int:
        """Matches not won: the goats, and with three players also the first one out."""
        return self.matches - self.wins

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(Tally)))


@dataclass(frozen=True)
class Standing:
    """A player's line in a chat's ladder for one season and one scope (a variant or
    ``ALL_VARIANTS``). A computer level's line has ``user_id`` None and ``ai_level`` set."""

    chat_id: int
    season: int
    variant: str
    player: str
    user_id: int | None
    ai_level: str | None
    name: str
    """The name the player had in their latest match."""
    tally: Tally
    rating: Rating
    last_match_id: int
    last_played_at: float


@dataclass(frozen=True)
class SeasonRecord:
    """A chat's ladder season. Season 1 exists implicitly (``started_at`` None) until a reset."""

    chat_id: int
    season: int
    started_at: float | None = None
    started_by: int | None = None


@dataclass(frozen=True)
class LadderMatch:
    """A stored match with its ladder data, for histories."""

    id: int
    season: int
    record: MatchRecord
    changes: dict[int, RatingChange]
    """Seat -> the overall (``ALL_VARIANTS``) rating change; empty until the match is rated."""


@dataclass(frozen=True)
class PlayerResult:
    """One of a player's rated matches, newest first in queries."""

    match_id: int
    variant: str
    finished_at: float
    won: bool
    goat: bool
    change: RatingChange
    options: dict[str, Any] = field(default_factory=dict)
    """The match's house rules (``{}``: none)."""


@dataclass(frozen=True)
class LadderBoard:
    """What /top shows, read in one transaction."""

    current: SeasonRecord
    """The chat's current season."""
    season: SeasonRecord
    """The season asked for (its lines are empty if it does not exist yet)."""
    lines: list[Standing]
    """The best lines, best first."""
    caller: tuple[int, Standing] | None
    """The asking player's rank and line, when they have one but it is not among ``lines``."""
    size: int
    """How many lines the season has in this scope."""
    pending: bool
    """Matches of the chat wait to be rated: update the ladder and read again."""


@dataclass(frozen=True)
class PlayerCard:
    """What /stats shows for one player in one chat, read in one transaction."""

    current: SeasonRecord
    lines: list[Standing]
    """Every season and scope of the player in this chat."""
    rank: int | None
    """The player's place in the current season's overall ladder (None: not in it)."""
    size: int
    """Lines in the current season's overall ladder."""
    results: list[PlayerResult]
    """The newest rated matches of the current season."""
    pending: bool


@dataclass(frozen=True)
class HistoryPage:
    """What /history shows in a chat, read in one transaction."""

    current: SeasonRecord
    season: int
    matches: list[LadderMatch]
    pending: bool
