"""Menus (/rules, /language, /settings, /resetladder, /kick): a press edits the message it
came from, so it must come from a message that shows that very button.

The callback data is the client's word; the pressed message is Telegram's. A press whose data
is not on the message it came from (forged onto the lobby, say) changes nothing and edits
nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from .core import Core
from .people import remember
from .reply import Press, Reply
from .translators import user_t

PressCase = Callable[[Core, Press], Awaitable[Reply]]


def on_menu(case: PressCase) -> PressCase:
    async def run(core: Core, press: Press) -> Reply:
        if press.cb.encode() in press.keyboard:
            return await case(core, press)
        t = user_t(await remember(core, press.person, private=press.chat.is_private))
        if _other_buttons(press):
            return Reply(
                t._("This button does not belong to this message. Send the command again."),
                alert=True,
            )
        # The menu changed since (a double tap, a slow client): the same kind of buttons,
        # or none left.
        return Reply(t._("This button is out of date. Send the command again."), alert=True)

    return run


def _other_buttons(press: Press) -> bool:
    """The message has buttons, none of them of the press's kind: not this menu at all."""
    ops = {data.split(":")[3] for data in press.keyboard if data.count(":") >= 3}
    return bool(press.keyboard) and press.cb.op not in ops
