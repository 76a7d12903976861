"""What a change makes the bot say, as outbox rows written in the change's own transaction.

The rows say *which* messages are owed (the group's table and lobby, hands, posts such as a
deal's result, deletions); ``deliver`` renders them from the committed state when the budget
lets them go. The group's table waits a little between trick ends (moves in a row cost one
edit); a trick's end goes at once. Which hands a change of a running match owes, and its
results, ``match_feed`` decides.
"""

from __future__ import annotations

import json
import time
import zlib

from kozel_rules.variant import get_variant

from ..i18n import Translator
from ..render.lobby import lobby_screen
from ..screen import Screen
from ..storage import OutboxKind, Owed, Priority, TableRecord
from . import house_rules
from .core import Core
from .post_buttons import join_link as join_link  # where the lobby has always found it
from .seat_lookup import seat_infos


def seating_key(table: TableRecord) -> str:
    """A short fingerprint of who sits where: Start must start the seating the creator saw."""
    seating = "|".join(f"{s.user_id}:{s.ai_level}" for s in table.seats) + table.variant
    if table.options:  # the house rules too (a table without any keeps its old key)
        seating += json.dumps(table.options, sort_keys=True)
    return format(zlib.crc32(seating.encode()), "x")


def lobby_key(table: TableRecord) -> int:
    """The lobby's version on its buttons: what the seats and variant look like (the row's
    version moves with every save, also those nobody sees, such as storing a message id)."""
    return int(seating_key(table), 16) % 1_000_000_000


def render_lobby(
    core: Core, t: Translator, table: TableRecord, *, group_default: bool = False
) -> Screen:
    """``group_default``: the table plays the chat's default house rules (not the usual)."""
    creator = next((s.name for s in table.seats if s.user_id == table.creator_id), None)
    return lobby_screen(
        t,
        table_id=table.id,
        version=lobby_key(table),
        variant=get_variant(table.variant),
        seats=seat_infos(table, t),
        creator=creator or "—",
        start_key=seating_key(table),
        join_url=join_link(core, table.id),
        options=house_rules.of_table(table),
        group_default=group_default,
    )


# ------------------------------------------------------------------ single marks


def lobby(table: TableRecord, *, renew: bool = False) -> Owed:
    return Owed(OutboxKind.LOBBY, table.chat_id, Priority.PRESSER, table.id, renew=renew)


def group_table(
    core: Core, table: TableRecord, *, renew: bool = False, urgent: bool = False
) -> Owed:
    """The group's table message; edits wait a little, so that moves in a row cost one edit.
    ``urgent`` (a trick's end): at once, before other work, within the group's share."""
    delay = 0.0 if renew or urgent else core.settings.table_interval
    return Owed(
        OutboxKind.TABLE,
        table.chat_id,
        Priority.TURN if urgent else Priority.GROUP,
        table.id,
        renew=renew,
        not_before=time.time() + delay,
    )


def hand(
    core: Core,
    table: TableRecord,
    seat: int,
    priority: Priority,
    *,
    renew: bool = False,
    delay: float | None = None,
    notify: bool = False,
) -> Owed:
    """A seat's hand; a waiting player's waits ``hand_interval`` for more changes (unless
    ``delay`` says otherwise). ``notify``: its first message comes with a sound."""
    if delay is None:
        delay = core.settings.hand_interval if priority == Priority.WAITING else 0.0
    chat_id = table.seats[seat].user_id
    assert chat_id is not None
    return Owed(
        OutboxKind.HAND,
        chat_id,
        priority,
        table.id,
        seat,
        renew=renew,
        notify=notify,
        not_before=time.time() + delay,
    )


def hands(core: Core, table: TableRecord, priority: Priority) -> list[Owed]:
    """Every seated person's hand."""
    return [hand(core, table, s.seat, priority) for s in table.seats if s.user_id is not None]


def delete(chat_id: int, message_id: int | None) -> list[Owed]:
    if message_id is None:
        return []
    return [Owed(OutboxKind.DELETE, chat_id, Priority.CLEANUP, message_id=message_id)]


def post(
    chat_id: int,
    text: str,
    *,
    table_id: int | None = None,
    notify: bool = True,
    over: int | None = None,
    after: float = 0.0,
    buttons: str | None = None,
    priority: Priority = Priority.TURN,  # a result is never shed
) -> Owed:
    """A message sent once. ``over``: a message it replaces by an edit (a deal's result
    takes the place of that deal's table), sent anew only if that one is gone. ``after``:
    not before then (epoch seconds). ``buttons``: ``post_buttons.encode``'s, about
    ``table_id``."""
    return Owed(
        OutboxKind.POST,
        chat_id,
        priority,
        table_id,
        text=text,
        notify=notify and over is None,
        message_id=over,
        not_before=after,
        buttons=buttons,
    )


def closed(core: Core, table: TableRecord) -> list[Owed]:
    """A table that ended early: its lobby or table and every hand say so."""
    if table.match_state is None:
        return [lobby(table)]
    return [lobby(table), group_table(core, table), *hands(core, table, Priority.PRESSER)]


# ------------------------------------------------------------------ after a move


def app_link(core: Core, start: str) -> str | None:
    """The Mini App's Direct Link opening at ``start`` (its ``startapp``); None without the
    Mini App."""
    settings = core.settings
    if not settings.public_url or not settings.webapp_name:
        return None
    return f"https://t.me/{settings.bot_username}/{settings.webapp_name}?startapp={start}"


def replay_link(core: Core, table_id: int, deal: int) -> str | None:
    """The Direct Link to a deal's replay (the page steps on to the match's other deals)."""
    return app_link(core, f"r{table_id}_{deal}")


async def owe(core: Core, rows: list[Owed]) -> None:
    """Owe ``rows`` on their own (for changes that save nothing else)."""
    await core.storage.outbox.add(rows)
    core.wake_sender()
