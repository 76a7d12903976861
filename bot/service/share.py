"""A finished match's result card, to share from the Mini App to any chat the player picks.

Telegram's own flow (Bot API 8.0): the bot stores the card as a prepared inline message for
that user (``savePreparedInlineMessage``: the ``Preparer`` port) and the page hands its id to
``Telegram.WebApp.shareMessage``, which lets the user pick the chat. The card: the variant
and the chat, who won, who is the goat (with eggs), the match's moment if it had one (the
the same ✨ line as the group's result), and a link to the group's table.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from html import escape

from kozel_rules.match import Match

from ..i18n import Translator
from ..render.labels import SeatInfo
from ..render.rules_text import variant_name
from . import match_feed, webapp
from .core import Core
from .ports import Person
from .reply import IsMember, nobody


@dataclass(frozen=True)
class Card:
    """What the shared message holds (HTML text, one URL button)."""

    user_id: int
    title: str  # plain: the prepared message's title (an inline result's)
    text: str
    button: str
    url: str | None


Preparer = Callable[[Card], Awaitable[str | None]]
"""Stores the card as a prepared inline message for its user: its id (None: Telegram said no)."""


@dataclass(frozen=True)
class Shared:
    ok: bool
    text: str  # the refusal, or ""
    id: str | None = None  # the prepared message's id, for ``shareMessage``


async def share(
    core: Core, table_id: int, person: Person, prepare: Preparer, is_member: IsMember = nobody
) -> Shared:
    """Prepare the result card of the table's finished match for ``person`` (a player of it,
    or a member of its group); refuse (translated) otherwise."""
    try:
        page = await webapp.open_seat(core, table_id, person, is_member)
    except webapp.NotSeated as err:
        return Shared(False, str(err))
    t, match = page.t, page.match
    if match.result is None:
        return Shared(False, t._("The match is not over yet."))
    card = result_card(t, core, page.table.id, match, page.seats, page.chat_title, person)
    prepared = await prepare(card)
    if prepared is None:
        return Shared(False, t._("Telegram could not prepare the message. Try again later."))
    return Shared(True, "", prepared)


def result_card(
    t: Translator,
    core: Core,
    table_id: int,
    match: Match,
    seats: list[SeatInfo],
    chat_title: str,
    person: Person,
) -> Card:
    assert match.result is not None
    variant = variant_name(t, match.variant)
    head = f"🐐 <b>{escape(variant)}</b>" + (f" · {escape(chat_title)}" if chat_title else "")
    # The group's result, its house rules and moment included; the group's own hint ("Play
    # again with /newgame …") means nothing in another chat.
    again = t._("Play again with /newgame · the ladder: /top")
    text = match_feed.result_text(t, match, seats)
    lines = [head, *(line for line in text.splitlines() if line != again)]
    link = webapp.table_link(core, table_id)
    return Card(
        user_id=person.user_id,
        title=t._("The match is over!") + f" · {variant}",
        text="\n".join(lines),
        button="🃏 " + t._("Open the table"),
        url=link,
    )
