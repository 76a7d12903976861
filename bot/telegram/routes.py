"""Which use case answers a button: one entry per callback op."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..callback import Op
from ..service import (
    admin,
    chat_settings,
    coach,
    cup,
    ladder,
    lobby,
    lobby_options,
    moves,
    nextgame,
    rematch,
)
from ..service.core import Core
from ..service.info import rules_press
from ..service.menu import on_menu
from ..service.reply import Press, Reply
from ..service.retry import retry_stale

PressCase = Callable[[Core, Press], Awaitable[Reply]]

ROUTES: dict[Op, PressCase] = {
    Op.JOIN: lobby.join,
    Op.LEAVE: lobby.leave,
    Op.ADD_COMPUTER: lobby.add_computer,
    Op.REMOVE_COMPUTER: lobby.remove_computer,
    Op.VARIANT: lobby.choose_variant,
    Op.OPTION: lobby_options.choose_option,
    Op.START: lobby.start,
    Op.CANCEL: lobby.cancel,
    Op.TOGGLE: moves.toggle,
    Op.ACT: moves.act,
    Op.CONFIRM: moves.confirm,
    Op.CLEAR: moves.clear,
    Op.BACK: moves.back,
    Op.COACH: coach.press,
    Op.AGAIN: rematch.again,
    Op.NEXT: nextgame.press,
    Op.CUP: cup.join,
    # Menus: their answer replaces the message pressed, so it must be that menu.
    Op.RULES: on_menu(rules_press),
    Op.LANGUAGE: on_menu(chat_settings.language_press),
    Op.SETTINGS: on_menu(chat_settings.settings_press),
    Op.RESET: on_menu(ladder.reset_press),
    Op.KICK: on_menu(admin.kick_press),
}
assert all(op in ROUTES for op in Op)
# Another worker may have changed the table between our read and our save: judge it again.
ROUTES = {op: retry_stale(case) for op, case in ROUTES.items()}
