"""The turn clock's timers: what the database keeps of them must read the same to the release
before this one, which runs beside it (rolling upgrade)."""

from __future__ import annotations

from bot.service.ports import DueKind
from bot.storage import TimerSlot
from bot.storage.timers import KINDS
from bot.turn_clock import DEFAULT_TIMEOUT, HURRY


def test_timer_slots_and_kinds_keep_their_stored_strings() -> None:
    assert {s.name: s.value for s in TimerSlot} == {
        "AI": "ai",
        "TIMEOUT": "timeout",
        "HURRY": "hurry",
        "EXPIRE": "expire",
    }
    assert set(KINDS) == {str(k) for k in DueKind}
    assert set(KINDS) == {"ai", "special", "timeout", "hurry", "expire"}


def test_the_hand_shows_the_time_left_only_within_a_turn() -> None:
    # A hurry timer set at the start of a turn would fire at once: the hurry must be shorter.
    assert 0 < HURRY < DEFAULT_TIMEOUT
