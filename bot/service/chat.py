"""Chat-level use cases: help, rules, language, settings, score, chat moves and removals."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from ..callback import Callback
from ..i18n import LANGUAGE_NAMES, LANGUAGES, Translator, get_translator
from ..render import VARIANTS, side_label, side_members
from ..rules_text import rules_text, variant_name
from ..screen import Button, Screen
from . import lobby, play
from .core import Core, seat_infos
from .ports import ChatInfo, Person, Reply

log = logging.getLogger(__name__)

IsAdmin = Callable[[], Awaitable[bool]]
TIMEOUTS = (0, 30, 60, 120, 300)


def help_screen(t: Translator, *, private: bool) -> Screen:
    lines = [
        "🐐 <b>" + t._("Kozel — the card game, in your group chat") + "</b>",
        "",
        t._(
            "Add me to a group, send /newgame, join with a tap; "
            "your cards come to our private chat."
        ),
        "",
        "/newgame — " + t._("open a table (ziege, street or moscow)"),
        "/cancel — " + t._("cancel the table (creator or admin)"),
        "/score — " + t._("the standings of the running match"),
        "/rules — " + t._("the rules of each variant"),
        "/top — " + t._("this chat's ladder"),
        "/stats — " + t._("a player's statistics"),
        "/history — " + t._("the last matches in this chat"),
        "/settings — " + t._("turn timer (admins)"),
        "/language — " + t._("the language I speak here"),
        "/kick — " + t._("remove a player: reply to their message (creator or admin)"),
        "/resetladder — " + t._("start a new season of the ladder (admins)"),
    ]
    return Screen.of("\n".join(lines))


def rules_screen(t: Translator, variant: str) -> Screen:
    buttons = [
        Button(
            ("✓ " if v == variant else "") + variant_name(t, v), Callback(0, 0, "rules", v).encode()
        )
        for v in VARIANTS
    ]
    return Screen.of(rules_text(t, variant), [buttons])


async def rules(core: Core, chat: ChatInfo, person: Person, variant: str | None) -> Reply:
    t = await translator_for(core, chat, person)
    if variant not in VARIANTS:
        table = await core.storage.active_table_for_chat(chat.chat_id)
        variant = table.variant if table else "street"
    return Reply(screen=rules_screen(t, variant))


async def rules_press(core: Core, cb: Callback, chat: ChatInfo, person: Person) -> Screen | None:
    if cb.arg not in VARIANTS:
        return None
    return rules_screen(await translator_for(core, chat, person), cb.arg)


async def translator_for(core: Core, chat: ChatInfo, person: Person) -> Translator:
    """Groups speak the chat's language; private chats the user's own."""
    if chat.is_private:
        return core.user_t(await core.remember(person, private=True))
    return await core.chat_t(chat.chat_id)


def language_screen(t: Translator, current: str) -> Screen:
    buttons = [
        Button(
            ("✓ " if code == current else "") + LANGUAGE_NAMES[code],
            Callback(0, 0, "lang", code).encode(),
        )
        for code in LANGUAGES
    ]
    rows = [buttons[i : i + 3] for i in range(0, len(buttons), 3)]
    return Screen.of("🌐 " + t._("Choose the language:"), rows)


async def language(core: Core, chat: ChatInfo, person: Person) -> Reply:
    t = await translator_for(core, chat, person)
    return Reply(screen=language_screen(t, t.lang))


async def language_press(
    core: Core, cb: Callback, chat: ChatInfo, person: Person, is_admin: IsAdmin
) -> tuple[Reply, Screen | None]:
    user = await core.remember(person, private=chat.is_private)
    if cb.arg not in LANGUAGES:
        return Reply(core.user_t(user)._("Unknown language."), alert=True), None
    if chat.is_private:
        await core.storage.set_user_language(person.user_id, cb.arg)
    else:
        if not await is_admin():
            return Reply(
                core.user_t(user)._("Only chat admins can change the chat's language."), alert=True
            ), None
        record = await core.chat_record(chat, creator=user)
        record.language = cb.arg
        await core.storage.upsert_chat(record)
        await _rerender_chat(core, chat.chat_id)
    t = get_translator(cb.arg)
    return Reply(
        t._("I speak {language} here now.", language=LANGUAGE_NAMES[cb.arg])
    ), language_screen(t, cb.arg)


async def _rerender_chat(core: Core, chat_id: int) -> None:
    table = await core.storage.active_table_for_chat(chat_id)
    if table is None:
        return
    if table.status == "lobby":
        await lobby.refresh_lobby(core, table.id)
    else:
        play.mark_table(core, table.id)


def settings_screen(t: Translator, timeout: int) -> Screen:
    def label(seconds: int) -> str:
        text = t._("off") if seconds == 0 else t.n_("{n} second", "{n} seconds", seconds)
        return ("✓ " if seconds == timeout else "") + text

    buttons = [Button(label(s), Callback(0, 0, "set", f"t{s}").encode()) for s in TIMEOUTS]
    text = (
        "⚙️ <b>"
        + t._("Settings")
        + "</b>\n"
        + t._("Turn timer: when a player does not move in time, a computer player moves for them.")
    )
    return Screen.of(text, [buttons[:3], buttons[3:]])


async def settings(core: Core, chat: ChatInfo, person: Person) -> Reply:
    user = await core.remember(person)
    if chat.is_private:
        return Reply(core.user_t(user)._("Settings are made in a group chat."))
    record = await core.chat_record(chat, creator=user)
    t = await core.chat_t(chat.chat_id)
    return Reply(screen=settings_screen(t, record.turn_timeout))


async def settings_press(
    core: Core, cb: Callback, chat: ChatInfo, person: Person, is_admin: IsAdmin
) -> tuple[Reply, Screen | None]:
    user = await core.remember(person)
    ut = core.user_t(user)
    if chat.is_private:
        return Reply(ut._("Settings are made in a group chat."), alert=True), None
    if not await is_admin():
        return Reply(ut._("Only chat admins can change settings."), alert=True), None
    seconds = int(cb.arg[1:]) if cb.arg[:1] == "t" and cb.arg[1:].isdigit() else -1
    if seconds not in TIMEOUTS:
        return Reply(ut._("This button is not valid."), alert=True), None
    record = await core.chat_record(chat, creator=user)
    record.turn_timeout = seconds
    await core.storage.upsert_chat(record)
    t = await core.chat_t(chat.chat_id)
    return Reply(ut._("Saved.")), settings_screen(t, seconds)


async def score(core: Core, chat: ChatInfo, person: Person) -> Reply:
    t = await translator_for(core, chat, person)
    table = await core.storage.active_table_for_chat(chat.chat_id)
    if table is None or table.match_state is None:
        return Reply(t._("No match is running in this chat. Start one with /newgame."))
    match = core.match_of(table)
    seats = seat_infos(table)
    lines = [
        "🐐 <b>" + t._("Standings — {variant}", variant=variant_name(t, table.variant)) + "</b>"
    ]
    for side, points in enumerate(match.defeat_points):
        members = side_members(match.players, side)
        bar = "🟥" * min(points, 12) + "⬜" * max(0, 12 - points)
        lines.append(f"{side_label(seats, members)}: <b>{points}</b>/12 {bar}")
    if match.deal_results:
        lines += ["", "<b>" + t._("Deals") + "</b>"]
    for deal in match.deal_results:
        parts = []
        for side in range(match.sides):
            parts.append(f"{deal.card_points[side]}→+{deal.defeat_points[side]}")
        extra = ""
        if deal.eggs:
            extra += " 🥚"
        if deal.queen_caught:
            extra += " 👑"
        lines.append(f"{deal.number}. " + " · ".join(parts) + extra)
    return Reply(screen=Screen.of("\n".join(lines)))


async def chat_migrated(core: Core, old_chat_id: int, new_chat_id: int) -> None:
    """A group became a supergroup: the table moves with it."""
    await core.storage.migrate_chat(old_chat_id, new_chat_id)
    table = await core.storage.active_table_for_chat(new_chat_id)
    if table is not None and table.status == "playing":
        play.mark_table(core, table.id)


async def bot_removed(core: Core, chat_id: int) -> None:
    table = await core.storage.active_table_for_chat(chat_id)
    if table is None:
        return
    t = await core.chat_t(chat_id)
    await lobby.close_table(core, table.id, reason=t._("The bot was removed from the chat."))
