"""The lobby's house-rule buttons: the opener changes the table's options before Start."""

from __future__ import annotations

from kozel_rules.variant import get_variant

from ..render.house_rules import brief_or_none, options_later_text
from ..render.house_rules import decode as decode_option
from . import house_rules
from .core import Core
from .lobby import Lobby, changed, in_lobby
from .reply import Reply


@in_lobby(current=True)
async def choose_option(core: Core, lobby: Lobby) -> Reply:
    """A house rule's button: the opener changes it; anyone else hears they cannot."""
    t, table = lobby.t, lobby.table
    if not lobby.is_creator:
        return Reply(t._("Only the player who opened the table can change the house rules."))
    chosen = decode_option(lobby.press.cb.arg)
    variant = get_variant(table.variant)
    before = house_rules.of_table(table)
    after = None if chosen is None else house_rules.set_value(before, *chosen, variant)
    if after is None:
        return Reply(t._("This button is not valid."), alert=True)
    if after == before:
        return Reply(t._("That is already chosen."))
    if not after.is_default and not await house_rules.options_allowed_now(core):
        return Reply(options_later_text(t), alert=True)
    table.options = after.to_json()
    return await changed(core, lobby, t._("House rules: {list}", list=brief_or_none(t, after)))
