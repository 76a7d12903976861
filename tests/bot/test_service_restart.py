"""After a restart: a fresh turn for the player to move, and the tables nobody plays expire."""

from __future__ import annotations

import time

from service_fakes import FakeMessenger, make_core, reload, seat_four, stored

from bot.service.restart import resume_all
from bot.storage import SqliteStorage


async def test_a_restart_gives_the_player_to_move_a_full_turn(storage: SqliteStorage) -> None:
    messenger = FakeMessenger()
    core = make_core(storage, messenger)
    table = await seat_four(core, timer=60)
    seat = core.matches.of(table).to_move
    assert seat is not None
    # The bot was down for ten minutes: the stored deadline is long gone.
    table.seats[seat].deadline = 1.0
    await storage.tables.save(table, expected_version=table.version)

    fresh = make_core(storage, messenger)
    await resume_all(fresh)
    timeout = (await stored(fresh, table.id))["timeout"]
    assert timeout.due_at - time.time() > 59 and timeout.seat == seat
    again = await reload(fresh, table)
    assert again.seats[seat].timeouts == 0
