"""The tap rule: what a tap on a card of the hand does, given the cards chosen so far.

Pure: the match and the selection in, a :class:`Tap` out. The hand's card buttons
(``moves.toggle``) and the Mini App's ``POST /api/tap`` both follow it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kozel_rules.action import Action
from kozel_rules.card import Card
from kozel_rules.errors import Rule
from kozel_rules.match import Match

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
    selection; where the cards then chosen can be played in one way only (a card that can
    only be led alone, a card that cannot beat; every card in ziege), they are played."""
    view = match.view(seat)
    if card not in view.hand:
        return Tap(refused=Rule.NOT_IN_HAND)
    picked = set(chosen) ^ {card}
    legal = [a for a in view.legal if not a.verb.is_special]
    if not legal:
        return Tap(refused=Refused.NOT_YET)
    containing = [a for a in legal if picked <= set(a.cards)] if picked else []
    if picked and not containing:
        if any(card in a.cards for a in legal):
            return Tap(refused=Refused.NOT_WITH)
        return Tap(refused=match.why_not(seat, card) or Refused.CANNOT_NOW)
    if len(containing) == 1 and set(containing[0].cards) == picked:
        return Tap(play=containing[0])
    return Tap(chosen=tuple(sorted(picked)))
