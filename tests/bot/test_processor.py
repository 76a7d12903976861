"""Refused presses: answered "not so fast" while Telegram still takes an answer, and counted
when they are not (too old, or Telegram refused the answer), so none goes missing unsaid."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from telegram.error import BadRequest

from bot.service.gate import Gate
from bot.telegram import processor
from bot.telegram.processor import ANSWERABLE, FairProcessor


class Query:
    """A press as the processor sees it: who pressed, and its answer."""

    def __init__(self, fails: bool = False) -> None:
        self.from_user = SimpleNamespace(id=7, language_code="en")
        self.fails = fails
        self.answers: list[str] = []

    async def answer(self, text: str, **_: Any) -> bool:
        if self.fails:
            raise BadRequest("Query is too old and response timeout expired")
        self.answers.append(text)
        return True


async def refuse(fair: FairProcessor, *queries: Query) -> None:
    for query in queries:
        fair._refuse(query)  # type: ignore[arg-type]
    for _ in range(20):  # the answerers run on the loop
        await asyncio.sleep(0)


async def test_a_refused_press_is_answered_not_so_fast() -> None:
    fair = FairProcessor(Gate())
    await fair.initialize()
    query = Query()
    await refuse(fair, query)
    await fair.shutdown()
    assert query.answers and query.answers[0].startswith("Not so fast")
    assert fair.unanswered == 0


async def test_an_answer_telegram_refuses_is_counted(caplog: pytest.LogCaptureFixture) -> None:
    fair = FairProcessor(Gate())
    await fair.initialize()
    caplog.set_level("DEBUG", logger=processor.__name__)
    await refuse(fair, Query(fails=True), Query())
    await fair.shutdown()
    assert fair.unanswered == 1
    assert "refused presses left unanswered: 1" in caplog.text


async def test_a_refusal_older_than_telegram_takes_is_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fair = FairProcessor(Gate())
    await fair.initialize()
    now = [100.0]
    monkeypatch.setattr(processor.time, "monotonic", lambda: now[0])
    fair._refuse(Query())  # type: ignore[arg-type]
    late = Query()
    fair._refuse(late)  # type: ignore[arg-type]
    now[0] += ANSWERABLE + 1  # the answerers reach them only now
    await refuse(fair)
    await fair.shutdown()
    assert late.answers == []
    assert fair.unanswered == 2
