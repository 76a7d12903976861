"""``/nextgame`` and "🔔 Tell me next time": word in private of the chat's next table.

A sign-up is per chat and forum topic, kept in the database (it survives restarts), and used
up by the next table that opens there: one private message with a Join link to each person
signed up who is not seated at it already (``announce``)."""

from __future__ import annotations

from ..i18n import Translator
from ..render.next_table import (
    next_table_buttons,
    next_table_line,
    open_chat_label,
    signed_off_text,
    signed_up_text,
)
from ..screen import Button, Screen
from ..storage import Owed, Priority, TableRecord, UserRecord
from . import feed
from .core import Core
from .people import chat_record, chat_title, remember
from .ports import ChatInfo, Person
from .post_buttons import encode
from .reply import Press, Reply
from .translators import chat_t, user_t

START_PAYLOAD = "n"  # /start n: the private chat is open now, word can come


def start_link(core: Core) -> str:
    """Opens the private chat with the bot and starts it (a sign-up's word needs it)."""
    return f"https://t.me/{core.settings.bot_username}?start={START_PAYLOAD}"


async def command(core: Core, chat: ChatInfo, person: Person) -> Reply:
    """/nextgame in a group: sign up for word of its (topic's) next table, or take it back."""
    user = await remember(core, person)
    if chat.is_private:
        return Reply(
            user_t(user)._(
                "Send /nextgame in a group: I will tell you here when its next table opens."
            )
        )
    await chat_record(core, chat, creator=user)
    t = await chat_t(core, chat.chat_id)
    if person.shared is not None:
        return Reply(t._("Write as yourself: I cannot write to a channel or to the group."))
    answer = await _toggle(core, t, user, chat.chat_id, chat.thread_id)
    if answer.url is None:
        return answer
    button = Button(open_chat_label(t), url=answer.url)
    return Reply(screen=Screen.of(answer.text, [[button]]))


async def press(core: Core, press: Press) -> Reply:
    """The bell ("Tell me next time") under a match's result or a closed lobby: the same,
    for the chat (topic) of the table it sits under."""
    user = await remember(core, press.person)
    t = user_t(user)
    table = await core.storage.tables.get(press.cb.table)
    if table is None or table.chat_id != press.chat.chat_id:
        return Reply(t._("This button does not belong to this chat."), alert=True)
    return await _toggle(core, t, user, table.chat_id, table.thread_id)


async def _toggle(
    core: Core, t: Translator, user: UserRecord, chat_id: int, thread_id: int | None
) -> Reply:
    if not await core.storage.signups.toggle(chat_id, thread_id, user.user_id):
        return Reply(signed_off_text(t))
    if user.can_message:
        return Reply(signed_up_text(t, can_message=True))
    # A press's answer opens the link: the private chat, where Start lets the word come.
    return Reply(signed_up_text(t, can_message=False), url=start_link(core))


async def announce(core: Core, table: TableRecord) -> None:
    """A table opened: each person signed up in its chat (topic) hears of it once, in
    private, unless seated at it already; their sign-ups are used up. The sign-up of someone
    I cannot write to (they never started the bot) waits for a table after they do."""
    signed = await core.storage.signups.of(table.chat_id, table.thread_id)
    if not signed:
        return
    seated = {s.user_id for s in table.seats}
    title = await chat_title(core, table.chat_id)
    owed: dict[int, list[Owed]] = {}
    for user_id in signed:
        user = await core.storage.users.get(user_id)
        if user_id in seated:
            owed[user_id] = []  # at the table already: nothing to tell
            continue
        if user is None or not user.can_message:
            continue  # kept until they start the bot: a message now would only fail
        t = user_t(user)
        text = next_table_line(t, title)
        owed[user_id] = [
            feed.post(
                user.private_chat_id or user_id,
                text,
                table_id=table.id,
                buttons=encode(next_table_buttons(t)),
                priority=Priority.WAITING,  # news, not a turn: the game goes first
            )
        ]
    await core.storage.signups.take(table.chat_id, table.thread_id, owed)
    core.wake_sender()
