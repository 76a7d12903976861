"""A post's buttons in the outbox: written as JSON with the post (labels in the reader's
language), turned into buttons when it is sent, about the post's own table."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..callback import Callback, Op
from ..render.next_table import PostButton
from ..screen import Button, Screen
from ..storage import Owed
from .core import Core

OPS = frozenset(op.value for op in Op)


def join_link(core: Core, table_id: int) -> str:
    """The link that seats one at the table through the private chat (``/start j<id>``)."""
    return f"https://t.me/{core.settings.bot_username}?start=j{table_id}"


def encode(rows: Sequence[Sequence[PostButton]]) -> str:
    return json.dumps(
        [[{"text": b.text, "op": b.op, "join": b.join} for b in row] for row in rows],
        ensure_ascii=False,
    )


def screen(core: Core, item: Owed) -> Screen:
    """The post as sent: its text, and its buttons about its table."""
    assert item.text is not None
    if not item.buttons or item.table_id is None:
        return Screen(item.text)
    rows = []
    for row in json.loads(item.buttons):
        buttons = []
        for entry in row:
            if entry.get("join"):
                link = join_link(core, item.table_id)
                buttons.append(Button(str(entry["text"]), url=link))
            elif entry.get("op") in OPS:  # a newer release's op: left out, not a failure
                # A cup's post carries its cup's id negated (``storage.cups.post_id``).
                data = Callback(abs(item.table_id), 0, Op(entry["op"])).encode()
                buttons.append(Button(str(entry["text"]), data))
        rows.append(buttons)
    return Screen.of(item.text, rows)
