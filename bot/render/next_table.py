"""The group's evening goes on: the buttons under a match's result, the private lines of a
rematch and of a table someone asked to hear of, and the answers to those presses."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from ..callback import Op
from ..i18n import Translator


@dataclass(frozen=True)
class PostButton:
    """A button of a post, kept with it in the outbox. It acts on the post's own table,
    which is only known once the table is stored: the label is written now, the target when
    the post is sent."""

    text: str
    op: Op | None = None  # a press about the post's table
    join: bool = False  # the link that seats one at the post's table through the private chat


def result_buttons(t: Translator) -> list[list[PostButton]]:
    """Under a match's result: the same table again, or word of the next one."""
    return [
        [
            # TRANSLATORS: a button under a match's result: the same players, a new table.
            PostButton("🔁 " + t._("Rematch"), op=Op.AGAIN),
            # TRANSLATORS: a button: send me a private message when the next table opens here.
            PostButton("🔔 " + t._("Tell me next time"), op=Op.NEXT),
        ]
    ]


def tell_me_label(t: Translator) -> str:
    return "🔔 " + t._("Tell me next time")


def rematch_line(t: Translator, chat: str, creator: str) -> str:
    """The private line each person seated at a rematch gets."""
    return "🔁 " + t._(
        "Rematch in {chat}: you have your seat at the new table. "
        "The match begins when {name} presses Start.",
        chat=f"<b>{escape(chat)}</b>",
        name=escape(creator),
    )


def rematch_buttons(t: Translator) -> list[list[PostButton]]:
    return [[PostButton("🚪 " + t._("Leave"), op=Op.LEAVE)]]


def next_table_line(t: Translator, chat: str) -> str:
    """The private message to someone who asked to hear of the chat's next table."""
    return "🔔 " + t._("A new table is open in {chat}.", chat=f"<b>{escape(chat)}</b>")


def next_table_buttons(t: Translator) -> list[list[PostButton]]:
    return [[PostButton("✋ " + t._("Join"), join=True)]]


def signed_up_text(t: Translator, *, can_message: bool) -> str:
    if can_message:
        return t._("I will tell you in private when the next table opens here.")
    return t._(
        "I will tell you when the next table opens here — but first open a chat with me "
        "and press Start, or I cannot write to you."
    )


def signed_off_text(t: Translator) -> str:
    return t._("All right: you will not hear of the next table.")


def open_chat_label(t: Translator) -> str:
    # TRANSLATORS: a button that opens the private chat with the bot.
    return "💬 " + t._("Open a chat with me")


def started_text(t: Translator) -> str:
    """The private chat opened from a sign-up's link."""
    return t._("Thank you! I will tell you here when the next table opens.")
