"""The turn clock's numbers, in one place for the service (which sets and runs the timers) and
the render (which shows the time left)."""

from __future__ import annotations

DEFAULT_TIMEOUT = 60  # seconds a person has for a turn, in a chat that has no settings yet
HURRY = 20  # seconds left on the turn timer from which the hand shows them
MAX_TIMEOUTS = 2  # timeouts in a row after which the computer keeps the seat
