"""Rating finished matches for the per-chat ladders.

The model
---------
Ratings come from OpenSkill's Plackett-Luce model (``openskill``), with its default parameters
(a new player: mu 25, sigma 25/3). A match is one "game" between its sides, ranked by how they
finished: the winners first, then the sides that went out in reverse order (so with three
players in ``moscow`` the last one out is second and the first one out, the goat, third; two
out in the same deal share a place). With
four players the two teams are two teams of two; with two or three every player is a team.

Every chat has its own ladder: a player's rating in one chat knows nothing of other chats. In a
chat there are four ratings per player and season: one per variant (the variant's own ladder,
``/top street``) and one over every variant (``/top``, the chat's main ladder). Each match
updates its variant's rating and the overall one. ``/resetladder`` starts a new season: the new
season starts everyone afresh, the old seasons stay stored and can be shown (``/top s1``).

Computer players are rated like anyone, one identity per level ("🤖 strong"). When one level
holds several seats of a match (two "strong" computers), each seat is rated as a player with the
level's rating, and the level's new rating adds up the seats' changes of the mean (the smallest
new sigma is kept). They appear in the ladder, marked 🤖, but the champion's title goes to the
best human.

The ladder shows a conservative estimate, OpenSkill's ordinal mu - 3 sigma, scaled as
``1000 + 40 * (mu - 3 sigma)``: a newcomer shows 1000, and the number firms up with each match.

Matches are rated in the transaction that records them (``storage.ladder.record`` with
``rate``). Matches stored without a rating (from schema version 1, or after a chat migration)
are rated, oldest first, the next time the chat's ladder is looked at.
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce, PlackettLuceRating

from ..storage import MatchRecord, Rating, RatingChange, player_key

MODEL = PlackettLuce()
DISPLAY_SCALE = 40.0  # openskill's ordinal alpha
DISPLAY_BASE = 1000.0  # ... and its target: a new player's displayed rating


def rating_of(mu: float, sigma: float) -> Rating:
    value = MODEL.rating(mu=mu, sigma=sigma).ordinal(alpha=DISPLAY_SCALE, target=DISPLAY_BASE)
    return Rating(mu, sigma, value)


def new_rating() -> Rating:
    fresh = MODEL.rating()
    return rating_of(fresh.mu, fresh.sigma)


def side_ranks(match: MatchRecord) -> dict[int, int]:
    """Side -> finishing place (1 = won). Taken from the engine's result: its ``places`` (sides
    out in the same deal share a place); in records stored before ``places`` existed, from
    ``winners`` and ``losers`` in the order they went out; else from the seats' won/goat flags
    (winners 1, the goat 2, any other side 3)."""
    sides = sorted({p.side for p in match.players_list})
    winners = sorted({p.side for p in match.players_list if p.won})
    ranks = _by_places(match.result.get("places"), sides, winners)
    ranks = ranks or _by_losers(match.result.get("losers"), sides, winners)
    if ranks:
        return ranks
    goats = {p.side for p in match.players_list if p.goat and not p.won}
    return {side: 1 if side in winners else (2 if side in goats else 3) for side in sides}


def _by_places(places: object, sides: list[int], winners: list[int]) -> dict[int, int] | None:
    """The engine's places, when they are whole and agree with the seats' won flags."""
    if not isinstance(places, list) or len(places) <= max(sides):
        return None
    if not all(isinstance(p, int) and p >= 1 for p in places):
        return None
    if sorted(s for s in sides if places[s] == 1) != winners:
        return None
    return {side: places[side] for side in sides}


def _by_losers(losers: object, sides: list[int], winners: list[int]) -> dict[int, int] | None:
    """Places from the sides out in the order they went out (the first out is last)."""
    if not isinstance(losers, list) or not all(isinstance(s, int) for s in losers):
        return None
    if sorted(losers) != sorted(set(sides) - set(winners)) or len(set(losers)) != len(losers):
        return None
    ranks = {side: 1 for side in winners}
    for place, side in enumerate(reversed(losers), start=2):
        ranks[side] = place
    return ranks


def rate(match: MatchRecord, before: Sequence[Rating | None]) -> list[RatingChange]:
    """The ``Rater`` the storage calls: every seat's rating change in one scope."""
    seats = match.players_list
    start = [b if b is not None else new_rating() for b in before]
    ranks = side_ranks(match)
    if len(ranks) < 2:  # nobody to be measured against: counted, not rated
        return [RatingChange(rank=1, before=b, after=b) for b in start]
    after = _seat_ratings(match, start, ranks)
    # One identity in several seats (computer players of one level): combine the seats.
    keys = [player_key(p.user_id, p.ai_level) for p in seats]
    combined = {key: _combined(key, keys, start, after) for key in set(keys)}
    return [
        RatingChange(rank=ranks[p.side], before=start[i], after=combined[keys[i]])
        for i, p in enumerate(seats)
    ]


def _seat_ratings(
    match: MatchRecord, start: Sequence[Rating], ranks: dict[int, int]
) -> dict[int, PlackettLuceRating]:
    """Each seat's rating after the model ranks the sides, one team per side."""
    seats = match.players_list
    sides = sorted(ranks)
    members = {side: [i for i, p in enumerate(seats) if p.side == side] for side in sides}
    teams = [
        [MODEL.rating(mu=start[i].mu, sigma=start[i].sigma) for i in members[side]]
        for side in sides
    ]
    rated: list[list[PlackettLuceRating]] = MODEL.rate(
        teams, ranks=[float(ranks[side]) for side in sides]
    )
    after: dict[int, PlackettLuceRating] = {}
    for side, team in zip(sides, rated, strict=True):
        for index, new in zip(members[side], team, strict=True):
            after[index] = new
    return after


def _combined(
    key: str,
    keys: Sequence[str],
    start: Sequence[Rating],
    after: dict[int, PlackettLuceRating],
) -> Rating:
    """One identity's rating: every one of its seats' gains added to where it started."""
    indexes = [i for i, k in enumerate(keys) if k == key]
    first = start[indexes[0]]
    mu = first.mu + sum(after[i].mu - first.mu for i in indexes)
    sigma = min(after[i].sigma for i in indexes)
    return rating_of(mu, sigma)
