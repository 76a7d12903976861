"""The page's own words, in the player's language (the bot's catalogs; the page has none)."""

from __future__ import annotations

from ..i18n import Translator


def page_strings(t: Translator) -> dict[str, str]:
    """Texts the page shows by itself; ``{chat}`` and ``{name}`` are filled in by the page."""
    return {
        "reconnecting": t._("Connection lost — reconnecting…"),
        "you": t._("You"),
        # TRANSLATORS: a mark next to a seat's name in the Mini App.
        "partner": t._("partner"),
        "dealer": t._("dealer"),
        "face_down": t._("a card face down"),
        "on_table": t._("On the table"),
        "show_last": t._("Show the last trick"),
        "hide_last": t._("Hide the last trick"),
        "clear": "↺ " + t._("Clear selection"),
        "back": "🙋 " + t._("I'm back"),
        "your_turn": "🔔 " + t._("Your turn in {chat}!", chat="{chat}"),
        "trick_taken": t._("Last trick taken by {name}:", name="{name}"),
        # TRANSLATORS: the Mini App, shown instead of a hand to a group member who is not
        # seated at the table: they see the table as the group does, no one's cards.
        "watching": "👀 " + t._("You are watching this table."),
        # TRANSLATORS: the Mini App: a button that closes a deal's result and shows the table
        # (the next deal is already being played).
        "next_deal": t._("Next deal"),
        # TRANSLATORS: a button under a deal's result: the coach looks at the player's play.
        "coach": "🎓 " + t._("How did I play?"),
        # TRANSLATORS: a button under the match's result: send a card of it to a chat.
        "share": "📤 " + t._("Share"),
        # TRANSLATORS: the Mini App: a button that shows the table on the whole screen.
        "fullscreen": t._("Full screen"),
        "exit_fullscreen": t._("Leave full screen"),
    }


def replay_strings(t: Translator) -> dict[str, str]:
    """The replay's own words (``{n}`` and ``{total}`` are filled in by the page)."""
    return {
        "you": t._("You"),
        "face_down": t._("a card face down"),
        # TRANSLATORS: the Mini App's replay: a button to the match's deal number {n}.
        "deal_n": t._("Deal {n}", n="{n}"),
        "trick_of": t._("Trick {n} of {total}", n="{n}", total="{total}"),
        # TRANSLATORS: the replay: a button that steps back one trick.
        "back_step": t._("Back"),
        # TRANSLATORS: the replay: a button that steps on to the next trick.
        "forward_step": t._("Forward"),
    }


def unauthorized_text(t: Translator) -> str:
    return t._(
        "This page only works when Telegram opens it. Open the table again from your chat "
        "with the bot."
    )


def too_many_text(t: Translator) -> str:
    return t._("Too many requests — wait a moment.")
