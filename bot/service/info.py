"""What the bot tells on request: /help, /rules (and its buttons), /score."""

from __future__ import annotations

from kozel_rules.options import Options
from kozel_rules.variant import VARIANTS, Variant, get_variant

from ..render.chat import help_screen, rules_screen, score_screen
from . import house_rules
from .core import Core
from .ports import ChatInfo, Person
from .reply import Press, Reply
from .seat_lookup import seat_infos
from .translators import translator_for


async def show_help(core: Core, chat: ChatInfo, person: Person) -> Reply:
    t = await translator_for(core, chat, person)
    return Reply(screen=help_screen(t, private=chat.is_private))


async def rules(core: Core, chat: ChatInfo, person: Person, name: str | None) -> Reply:
    """/rules [variant]: the variant named, else the table's, else the default one."""
    t = await translator_for(core, chat, person)
    variant = VARIANTS.get(name or "")
    if variant is None:
        table = await core.storage.tables.active_for_chat(chat.chat_id, chat.thread_id)
        variant = get_variant(table.variant) if table else core.settings.default_variant
    return Reply(screen=rules_screen(t, variant, await _table_plays(core, chat, variant)))


async def _table_plays(core: Core, chat: ChatInfo, variant: Variant) -> Options | None:
    """The house rules of the group's running table, if it plays ``variant``."""
    if chat.is_private:
        return None
    table = await core.storage.tables.active_for_chat(chat.chat_id, chat.thread_id)
    if table is None or table.variant != variant.name:
        return None
    return house_rules.of_table(table)


async def rules_press(core: Core, press: Press) -> Reply:
    variant = VARIANTS.get(press.cb.arg)
    if variant is None:
        return Reply()
    t = await translator_for(core, press.chat, press.person)
    plays = await _table_plays(core, press.chat, variant)
    return Reply(screen=rules_screen(t, variant, plays))


async def score(core: Core, chat: ChatInfo, person: Person) -> Reply:
    t = await translator_for(core, chat, person)
    table = await core.storage.tables.active_for_chat(chat.chat_id, chat.thread_id)
    if table is None or table.match_state is None:
        return Reply(t._("No match is running in this chat. Start one with /newgame."))
    match = core.matches.of(table)
    screen = score_screen(
        t,
        view=match.view(None),
        deals=match.deal_results,
        seats=seat_infos(table, t),
        options=house_rules.of_table(table),
    )
    return Reply(screen=screen)
