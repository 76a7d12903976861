"""The table events an operator reads, as a save's log lines say them: by ids, counted for
``/metrics``, one INFO line each."""

from __future__ import annotations

import logging

import pytest
from prometheus_client import REGISTRY

from bot.storage import Actor, LogEntry, LogKind, SeatRecord, TableRecord, TableStatus, table_events


def table(*, playing: bool = True) -> TableRecord:
    return TableRecord(
        id=7,
        chat_id=-100,
        status=TableStatus.PLAYING if playing else TableStatus.LOBBY,
        variant="ziege",
        creator_id=1,
        seed=1,
        seats=[
            SeatRecord(seat=0, user_id=1, name="Anna"),
            SeatRecord(seat=1, user_id=2, name="Boris", away=True),
        ],
        match_state={"x": 1} if playing else None,
    )


def count(name: str, **labels: str) -> float:
    """A counter's value as ``/metrics`` shows it (0 before its first count)."""
    return REGISTRY.get_sample_value(f"{name}_total", labels) or 0.0


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "bot.tables"]


def test_moves_cards_and_timeouts(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    cards, timeouts = count("kozel_cards_played"), count("kozel_moves", by="timeout")
    table_events.saved(
        table(),
        [
            LogEntry(LogKind.ACTION, 3, 0, "0 give Q♣", by=Actor.PERSON),  # no card played
            LogEntry(LogKind.ACTION, 4, 1, "1 lead K♠ 9♠", by=Actor.TIMER),
            LogEntry(LogKind.DEAL, 4, None, "deal 2", {"number": 2}),
        ],
    )
    assert count("kozel_cards_played") == cards + 2
    assert count("kozel_moves", by="timeout") == timeouts + 1
    assert said(caplog) == [
        "table 7 chat -100: player timed out seat=1",
        "table 7 chat -100: player went away seat=1 why=timed out again",
        "table 7 chat -100: deal ended deal=2",
    ]
    assert "Anna" not in caplog.text and "Boris" not in caplog.text


@pytest.mark.parametrize(
    ("playing", "reason", "line", "counter", "label"),
    [
        (True, "match abandoned", "match abandoned", "kozel_matches", "abandoned"),
        (True, "Стол отменён.", "match cancelled", "kozel_matches", "cancelled"),
        (False, "lobby expired", "lobby expired", "kozel_lobbies", "expired"),
        (False, "The table was cancelled.", "lobby cancelled", "kozel_lobbies", "cancelled"),
    ],
)
def test_closing_says_how(
    caplog: pytest.LogCaptureFixture,
    playing: bool,
    reason: str,
    line: str,
    counter: str,
    label: str,
) -> None:
    caplog.set_level(logging.INFO)
    before = count(counter, event=label)
    table_events.saved(table(playing=playing), [LogEntry(LogKind.CANCEL, None, None, reason)])
    assert said(caplog) == [f"table 7 chat -100: {line}"]
    assert count(counter, event=label) == before + 1
    assert reason not in caplog.text or reason == line  # a translated reason is not logged
