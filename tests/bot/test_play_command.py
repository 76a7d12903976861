"""The one play command (``bot.service.play``) both faces use: a domain action in, one outcome
out — made, or refused with the reason, the engine's rule or the bot's own."""

from __future__ import annotations

from service_fakes import PEOPLE, reload, seat_four

from bot.render.refusals import Refused
from bot.service.core import Core
from bot.service.play import play
from kozel_rules import Rule


async def test_an_action_is_made_or_refused_with_its_reason(core: Core) -> None:
    table = await seat_four(core)
    match = core.matches.of(table)
    seat = match.to_move
    assert seat is not None
    other = (seat + 1) % 4
    action = next(a for a in match.legal_actions(seat) if not a.verb.is_special)
    me, them = PEOPLE[seat].user_id, PEOPLE[other].user_id

    async def reason(table_id: int, user_id: int, ply: int) -> object:
        return (await play(core, table_id, user_id, ply, action)).refused

    assert await reason(table.id + 1, me, match.ply) is Refused.GONE
    assert await reason(table.id, 999, match.ply) is Refused.NOT_SEATED
    assert await reason(table.id, me, match.ply - 1) is Refused.STALE
    # Another player sends the mover's action: it is played from their own seat, out of turn.
    refused = await play(core, table.id, them, match.ply, action)
    assert refused.refused is Rule.NOT_YOUR_TURN and refused.action.seat == other
    async with core.table_locks.hold(table.id):
        fresh = await reload(core, table)
        fresh.seats[other].away = True
        await core.storage.tables.save(fresh, expected_version=fresh.version)
    assert await reason(table.id, them, match.ply) is Refused.AWAY
    table = await reload(core, table)
    assert core.matches.of(table).ply == match.ply  # nothing was played

    made = await play(core, table.id, me, match.ply, action)
    assert made.made and made.refused is None and made.action == action
    assert core.matches.of(await reload(core, table)).ply == match.ply + 1
    again = await play(core, table.id, me, match.ply, action)
    assert again.refused is Refused.STALE
