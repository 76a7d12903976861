"""The tap rule: what a tap on a card of the hand does, given the cards chosen so far.

Pure: the match and the selection in, a :class:`Tap` out. The hand's card buttons
(``moves.toggle``) and the Mini App's ``POST /api/tap`` both follow it; the hand's prompt
(``render.hand``) says what it does (``render.choice.sensible_plays`` is its core, so that
what a prompt promises and what a tap does cannot drift apart).

One tap plays a card when that card has exactly one sensible play: a card alone in its
suit at a lead, any card in ziege, a card that can beat an opponent's card, a card
without points thrown face down. Everything else is chosen first and confirmed with a
button: a set being built (a lead of several cards, an answer to a lead of several), a
point card (A, 10, K) that would go face down, a card that could beat the partner's card
or be thrown face down.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kozel_rules.action import Action
from kozel_rules.card import Card
from kozel_rules.errors import Rule
from kozel_rules.match import Match

from ..render.choice import sensible_plays
from ..render.refusals import Reason, Refused


@dataclass(frozen=True)
class Tap:
    """Play ``play`` at once; else refuse for ``refused``; else ``chosen`` is the selection."""

    chosen: tuple[Card, ...] = ()
    play: Action | None = None
    refused: Reason | None = None

    @property
    def kind(self) -> str:
        """``"play"``, ``"refuse"`` or ``"select"``."""
        if self.play is not None:
            return "play"
        return "select" if self.refused is None else "refuse"


def tap(match: Match, seat: int, chosen: Iterable[Card], card: Card) -> Tap:
    """A tap on ``card`` by ``seat`` with ``chosen`` selected: it joins or leaves the
    selection; a first tap on a card with one sensible play plays it."""
    view = match.view(seat)
    if card not in view.hand:
        return Tap(refused=Rule.NOT_IN_HAND)
    before = set(chosen) & set(view.hand)
    picked = before ^ {card}
    legal = [a for a in view.legal if not a.verb.is_special]
    if not legal:
        return Tap(refused=Refused.NOT_YET)
    if picked and not any(picked <= set(a.cards) for a in legal):
        others = picked - {card}
        return Tap(refused=match.why_not(seat, card, others) or Refused.CANNOT_NOW)
    if not before and picked == {card}:
        sensible = sensible_plays(view, card)
        if len(sensible) == 1:
            return Tap(play=sensible[0])
    return Tap(chosen=tuple(sorted(picked)))
