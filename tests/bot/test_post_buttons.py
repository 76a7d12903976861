"""A post's buttons: written with the post, about the post's own table once it is sent."""

from __future__ import annotations

import json

from service_fakes import FakeMessenger, make_core

from bot.callback import Op, parse
from bot.i18n import get_translator
from bot.render.next_table import next_table_buttons, result_buttons
from bot.service.post_buttons import encode, screen
from bot.storage import OutboxKind, Owed, Priority, SqliteStorage


def post(buttons: str | None, table_id: int | None = 42) -> Owed:
    return Owed(OutboxKind.POST, -1, Priority.TURN, table_id, text="🏆", buttons=buttons)


def test_a_results_buttons_press_about_its_table_and_a_join_link_seats_there(
    storage: SqliteStorage,
) -> None:
    core = make_core(storage, FakeMessenger())
    t = get_translator("ru")
    shown = screen(core, post(encode(result_buttons(t))))
    (row,) = shown.buttons
    assert [b.text for b in row] == ["🔁 Реванш", "🔔 Позвать в следующий раз"]
    assert [parse(b.data) for b in row if b.data] == [
        parse(f"v1:42:0:{Op.AGAIN}"),
        parse(f"v1:42:0:{Op.NEXT}"),
    ]
    ((join,),) = screen(core, post(encode(next_table_buttons(t)))).buttons
    assert join.url == f"https://t.me/{core.settings.bot_username}?start=j42"


def test_a_post_without_buttons_or_with_an_op_this_release_does_not_know(
    storage: SqliteStorage,
) -> None:
    core = make_core(storage, FakeMessenger())
    assert screen(core, post(None)).buttons == ()
    newer = json.dumps([[{"text": "?", "op": "zzz", "join": False}, {"text": "🔁", "op": "again"}]])
    ((only,),) = screen(core, post(newer)).buttons
    assert only.text == "🔁"
