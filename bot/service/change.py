"""A committed change of a running match, as the feed needs to know it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kozel_rules.event import Event


@dataclass(frozen=True)
class Change:
    events: Sequence[Event] = ()  # what the engine said (deal and match ends)
    actor: int | None = None  # the seat that moved, if a seat did
    started: bool = False  # the match has just begun
    answered: bool = False  # the actor pressed for it: their press's answer said the play
