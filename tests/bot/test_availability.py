"""The database's outages are said once each in the log: "cannot be reached" when the first
transaction fails, "answers again" when one that began after it (and after a moment to
settle) succeeds."""

from __future__ import annotations

import pytest

from bot.storage.availability import SETTLE, Availability


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage().split(" (")[0] for r in caplog.records]


def test_a_server_shutting_down_is_one_outage_however_it_answers_meanwhile(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    db = Availability(clock)
    cut = db.begin()
    clock.now += 0.01
    db.failed(cut, ConnectionResetError("cut"))  # one connection is cut...
    late = db.begin()
    clock.now += 0.003
    db.answered(late)  # ...another still answers a moment later...
    again = db.begin()
    clock.now += 0.01
    db.failed(again, ConnectionRefusedError("the database system is shutting down"))
    clock.now += 3.0  # ...and the server is down for three seconds
    back = db.begin()
    db.answered(back)
    assert said(caplog) == ["the database cannot be reached", "the database answers again"]
    assert db.outages == 1 and not db.is_away


def test_a_short_blip_is_said_back_by_the_first_transaction_after_it_settled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    db = Availability(clock)
    db.failed(db.begin(), ConnectionResetError("cut"))
    clock.now += SETTLE / 2
    db.answered(db.begin())
    assert db.is_away
    clock.now += SETTLE
    db.answered(db.begin())
    assert not db.is_away
    assert said(caplog) == ["the database cannot be reached", "the database answers again"]
    # A transaction from before it was back that fails now tells nothing new.
    old = 0.0
    db.failed(old, ConnectionResetError("late"))
    assert db.outages == 1 and not db.is_away
