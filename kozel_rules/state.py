"""The game state: the one implementation of the rules, in a compact form built for speed.

:class:`Match` (``match.py``) is the checked, friendly API around a :class:`GameState`; computer
players use :class:`GameState` directly for playouts.

Representation (``compact.py``, ``_tables.py``)
-----------------------------------------------
* A card is its index ``c`` (``suit * 9 + rank``); a set of cards is an ``int`` mask with bit ``c``
  set (``1 << c``). Hands, piles and played sets are masks.
* A *compact action* is a tuple ``(seat, verb_code, mask)``; ``VERB_OF_CODE[verb_code]`` is the
  :class:`~kozel_rules.action.Verb`. :func:`to_action` / :func:`from_action` convert to and from
  :class:`~kozel_rules.action.Action`.
* :meth:`GameState.legal` lists every legal compact action of every seat (the seat to move and
  seats that may declare a special lead); :meth:`GameState.step` applies one **without checking**
  it (pass only actions from :meth:`legal`; :class:`Match` does the checking).

:class:`GameState` is built up by concern, each layer a module:

* ``state_fields.py`` — :class:`StateFields`: every field, declared once; ``copy()``;
* ``deal.py`` — :class:`DealRules`: dealing, a trick's start and end, scoring, the next deal;
* ``trick.py`` — :class:`TrickRules`: ``legal()`` and ``step()``;
* ``playout.py`` — :class:`Playouts`: ``playout()``;
* ``determinize.py`` — :class:`Determinization`: ``unseen_by()`` and ``determinize()``.

Playouts (for computer players)
-------------------------------
::

    st = match.state_copy()              # or GameState.copy(); cheap
    st.determinize(seat, rng)            # resample what ``seat`` cannot see (optional)
    result = st.playout(rng)             # uniform random legal actions to the deal's end
    result.card_points, result.defeat_points

or drive it yourself: ``while not st.deal_done(number): st.step(policy(st.legal()))`` (set
``st.hold = True`` first to stop at the deal's end instead of dealing the next one).
``playout`` uses tighter loops than ``legal()``/``step()``, but makes exactly the same choices
from the same ``rng`` and ends in the same state (tests check this from thousands of positions).
"""

from __future__ import annotations

from .compact import (
    CODE_OF_VERB,
    DEAL_OVER,
    FORCED_LEAD,
    GIVE,
    LEAD,
    OVER,
    PHASES,
    RESPOND,
    RETURN,
    V_BEAT,
    V_DISCARD,
    V_GIVE,
    V_LEAD,
    V_MOLODKA,
    V_MOSCOW,
    V_PLAY,
    V_RETURN,
    VERB_OF_CODE,
    CAction,
    Log,
    from_action,
    to_action,
)
from .determinize import Determinization
from .playout import Playouts


class GameState(Playouts, Determinization):
    """A whole match in compact form. See the module docstring."""

    __slots__ = ()


__all__ = [
    "CODE_OF_VERB",
    "DEAL_OVER",
    "FORCED_LEAD",
    "GIVE",
    "LEAD",
    "OVER",
    "PHASES",
    "RESPOND",
    "RETURN",
    "VERB_OF_CODE",
    "V_BEAT",
    "V_DISCARD",
    "V_GIVE",
    "V_LEAD",
    "V_MOLODKA",
    "V_MOSCOW",
    "V_PLAY",
    "V_RETURN",
    "CAction",
    "GameState",
    "Log",
    "from_action",
    "to_action",
]
