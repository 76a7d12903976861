"""The compact codes of the fast state: phases and verbs as small ints, actions as tuples.

A card is its index ``c`` (``suit * 9 + rank``); a set of cards is an ``int`` mask with bit
``c`` set. A *compact action* is ``(seat, verb_code, card_mask)``; :func:`to_action` and
:func:`from_action` convert to and from :class:`~kozel_rules.action.Action`.
"""

from __future__ import annotations

from ._tables import cards_of
from .action import Action, Verb
from .event import Event
from .view import Phase

# Phase codes (GameState.phase): small ints for the hot path, PHASES[code] is the Phase.
# DEAL_OVER: a playout state stopped after its deal was scored (``hold``); nothing more happens.
LEAD, RESPOND, GIVE, RETURN, FORCED_LEAD, OVER, DEAL_OVER = range(7)
PHASES: tuple[Phase, ...] = (
    Phase.LEAD,
    Phase.RESPOND,
    Phase.GIVE,
    Phase.RETURN,
    Phase.FORCED_LEAD,
    Phase.OVER,
    Phase.DEAL_OVER,
)

# Verb codes of compact actions
V_LEAD, V_BEAT, V_DISCARD, V_MOLODKA, V_MOSCOW, V_PLAY, V_GIVE, V_RETURN = range(8)
VERB_OF_CODE: tuple[Verb, ...] = (
    Verb.LEAD,
    Verb.BEAT,
    Verb.DISCARD,
    Verb.MOLODKA,
    Verb.MOSCOW,
    Verb.PLAY,
    Verb.GIVE,
    Verb.RETURN,
)
CODE_OF_VERB: dict[Verb, int] = {v: i for i, v in enumerate(VERB_OF_CODE)}

CAction = tuple[int, int, int]
"""A compact action: ``(seat, verb_code, card_mask)``."""

Log = list[Event]
"""Where ``step()`` appends the events of an action (``None``: no events wanted)."""


def to_action(a: CAction) -> Action:
    """The :class:`Action` of a compact action."""
    return Action(a[0], VERB_OF_CODE[a[1]], cards_of(a[2]))


def from_action(action: Action) -> CAction:
    """The compact form of an :class:`Action` (no checks)."""
    m = 0
    for c in action.cards:
        m |= 1 << int(c)
    return (action.seat, CODE_OF_VERB[action.verb], m)
