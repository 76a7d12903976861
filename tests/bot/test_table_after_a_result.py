"""After a deal's result takes the place of the group's table, the next table is a new
message: it is owed as one (``renew``), so that while the result waits for a retry nothing
new appears above it (seen under load: a 500 on deal 2's result, and deal 8's table was
posted before deals 2-7's results)."""

from __future__ import annotations

import time

from service_fakes import PEOPLE, press, reload, seat_four

from bot.callback import Op, encode_action
from bot.service import moves
from bot.service.core import Core
from bot.service.sender import heads
from bot.storage import OutboxKind


async def test_the_table_after_a_result_waits_behind_it(core: Core) -> None:
    table = await seat_four(core)  # everything owed so far delivered
    for _ in range(200):  # play (and deliver nothing) until the first deal is over
        table = await reload(core, table)
        match = core.matches.of(table)
        if match.deal_results:
            break
        seat = match.to_move
        assert seat is not None
        action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
        played = press(table, Op.ACT, PEOPLE[seat], version=match.ply, arg=encode_action(action))
        assert (await moves.act(core, played)).text.startswith("Played: ")
    assert match.deal_results, "no deal ended"

    due, _, _ = await core.storage.outbox.look(time.time() + 60)
    tables = [item for item in due if item.kind is OutboxKind.TABLE]
    posts = [item for item in due if item.kind is OutboxKind.POST]
    assert [item.renew for item in tables] == [True]
    assert posts and "Deal 1 is over" in (posts[0].text or "")
    # The result's send failed and waits: the table below it waits too.
    held = {(table.chat_id, table.id): posts[0].id}
    others = [item for item in due if item.chat_id == table.chat_id and item.id != posts[0].id]
    assert heads(others, held) == []
