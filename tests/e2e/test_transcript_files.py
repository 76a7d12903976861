"""Whole matches written out as a person reads them, for people to read.

Each test plays a short match with house rules through the real bot and writes every version
of every message the group and the players saw, with its buttons, to
``test-output/transcripts/`` (a reviewer reads them before a release). The checks here are
the ones a reader would notice first: no placeholder left, the house rules named, the match
over with its 🔁 button.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fakebot.fixtures import BotProcessFactory
from fakebot.models import StoredMessage
from fakebot.server import FakeTelegram
from fakebot.users import SimUser

from .driver import Table
from .intent import play_match
from .test_transcripts import seated_table

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
OUTPUT = Path(os.environ.get("KOZEL_TEST_OUTPUT", REPO / "test-output")) / "transcripts"


def _buttons(raw: dict[str, object] | None) -> str:
    rows = (raw or {}).get("inline_keyboard") or []
    assert isinstance(rows, list)
    return "\n".join("  " + " | ".join(f"[{b['text']}]" for b in row) for row in rows)


def _message(message: StoredMessage) -> list[str]:
    who = "bot" if message.from_bot else message.sender.get("first_name", "?")
    lines = []
    for n, version in enumerate(message.versions):
        head = f"--- #{message.message_id} {who}" + (f" (edit {n})" if n else "")
        lines += [head, version.text]
        buttons = _buttons(version.reply_markup)
        if buttons:
            lines.append(buttons)
    return lines


def transcript(fake: FakeTelegram, table: Table, people: list[SimUser]) -> str:
    chats: list[tuple[str, object]] = [("GROUP", table.group)]
    chats += [(f"PRIVATE: {u.first_name}", u) for u in people]
    out: list[str] = []
    for title, chat in chats:
        out += [f"===== {title} =====", ""]
        for message in fake.messages(chat):  # type: ignore[arg-type]
            out += _message(message)
        out.append("")
    answers = [a.text for a in fake.callback_answers if a.text]
    out += ["===== ANSWERS TO PRESSES =====", *answers]
    return "\n".join(out) + "\n"


async def play(
    fake: FakeTelegram,
    bot_process: BotProcessFactory,
    names: tuple[str, ...],
    newgame: str,
    *,
    language: str,
    title: str,
    computers: int,
) -> tuple[Table, list[SimUser], str]:
    table, people, bot = await seated_table(
        fake, bot_process, names, newgame, language=language, title=title, computers=computers
    )
    # The players' choices come from their own seats, enacted by taps (any language).
    await play_match(fake, bot.db, people, table.match_over)  # type: ignore[attr-defined]
    text = transcript(fake, table, people)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    (OUTPUT / f"{language}-{newgame.replace(' ', '_').replace('=', '')}.txt").write_text(
        text, encoding="utf-8"
    )
    return table, people, text


async def test_an_english_match_to_6_reads_whole(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    _, _, text = await play(
        fake_telegram,
        bot_process,
        ("Anna",),
        "moscow goat=6",
        language="en",
        title="Kozel club",
        computers=1,
    )
    assert "{" not in text and "}" not in text
    assert "match to 6" in text and "/12" not in text
    assert "🏆 The match is over!" in text and "🔁" in text


async def test_a_russian_street_match_with_eggs_double_reads_whole(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory
) -> None:
    _, _, text = await play(
        fake_telegram,
        bot_process,
        ("Анна", "Борис"),
        "street goat=6 eggs=double",
        language="ru",
        title="Клуб",
        computers=2,
    )
    assert "{" not in text and "}" not in text
    assert "игра до 6" in text and "/12" not in text
    assert "🏆 Партия окончена!" in text and "🔁" in text
