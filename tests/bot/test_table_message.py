"""The group's table message across a deal's end: the result takes the old message's place,
and the next deal's table is one new message below it, however the sender's reads fall."""

from __future__ import annotations

import time

from service_fakes import GROUP, FakeMessenger, reload, seat_four, settle

from bot.service import feed
from bot.service.core import Core
from bot.service.deliver import deliver
from bot.storage import OutboxKind


async def test_a_table_row_read_just_before_a_deal_ends_sends_one_new_table(
    core: Core, messenger: FakeMessenger
) -> None:
    """The sender reads a move's table row; the deal ends (the row is marked again, to be a
    new message) before it loads the table. That delivery sends the new table already: the
    mark it left must not send a second one (and delete the first: a message that flickers,
    and two calls of the group's twenty a minute)."""
    table = await seat_four(core)
    before = {m.message_id for m in messenger.in_chat(GROUP.chat_id)}
    await core.storage.outbox.add([feed.group_table(core, table)])
    (read_early,) = [
        i for i in await core.storage.outbox.due(time.time() + 60) if i.kind is OutboxKind.TABLE
    ]
    table = await reload(core, table)
    table.table_message_id = None  # what a deal's end does (``match_feed.after_change``)
    await core.storage.tables.save(
        table, expected_version=table.version, owe=[feed.group_table(core, table, renew=True)]
    )
    extra = await deliver(core, read_early)
    await core.storage.outbox.done(read_early, extra=extra)

    def new() -> list[int]:
        return [
            m.message_id for m in messenger.in_chat(GROUP.chat_id) if m.message_id not in before
        ]

    sent = new()
    assert len(sent) == 1  # the next deal's table, below the old one
    await settle(core)
    assert new() == sent, "the table was sent again"
    assert (await reload(core, table)).table_message_id == sent[0]
