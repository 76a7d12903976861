"""The small pieces every screen is made of: names of seats, sides, levels, cards, actions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from kozel_rules.action import Action, Verb
from kozel_rules.ai import LEVELS
from kozel_rules.card import Card

from ..i18n import Translator
from ..screen import Button


@dataclass(frozen=True)
class SeatInfo:
    """A seat as the screens show it."""

    name: str
    ai_level: str | None = None  # set for computer players
    away: bool = False  # a computer plays for this human for now
    replaced: bool = False  # the person named was removed; a computer finishes for them

    @property
    def label(self) -> str:
        mark = "🤖 " if self.ai_level and not self.replaced else ""
        return mark + escape(self.name)


def replaced_note(t: Translator, *, over: bool = False) -> str:
    """What a seat whose player was removed says after the name."""
    if over:
        # TRANSLATORS: after a player's name in the match result: they were removed from
        # the table and a computer player finished the match in their seat.
        return t._("(left; a computer finished)")
    # TRANSLATORS: after a player's name: removed from the table, a computer plays the seat.
    return t._("(left; a computer plays)")


def level_name(t: Translator, level: str) -> str:
    """A computer level's name; the engine lists its levels from the weakest up."""
    # TRANSLATORS: the three strengths of a computer player, on buttons and in the ladder
    # ("🤖 weak"): one scale, weak < medium < strong.
    names = dict(zip(LEVELS, (t._("weak"), t._("medium"), t._("strong")), strict=True))
    return names.get(level, level)


def seat_label(t: Translator, seat: SeatInfo) -> str:
    text = seat.label
    if seat.replaced:
        text += " " + replaced_note(t)
    elif seat.ai_level:
        text += f" ({level_name(t, seat.ai_level)})"
    if seat.away:
        text += " 💤"
    return text


def side_members(sides: Sequence[int], side: int) -> tuple[int, ...]:
    """The seats of ``side``, given the side of each seat (``SeatView.sides``)."""
    return tuple(seat for seat, own in enumerate(sides) if own == side)


def side_label(
    seats: Sequence[SeatInfo],
    members: Sequence[int],
    t: Translator | None = None,
    *,
    over: bool = False,
) -> str:
    """Names joined with ``&``; given ``t``, a seat whose player was removed says so."""

    def name(seat: SeatInfo) -> str:
        if t is None or not seat.replaced:
            return seat.label
        return f"{seat.label} {replaced_note(t, over=over)}"

    return " & ".join(name(seats[i]) for i in members)


def side_name(
    seats: Sequence[SeatInfo],
    sides: Sequence[int],
    side: int,
    t: Translator | None = None,
    *,
    over: bool = False,
) -> str:
    """The players of ``side`` by name, partners joined with ``&``."""
    return side_label(seats, side_members(sides, side), t, over=over)


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(str(c) for c in cards)


def action_label(t: Translator, action: Action) -> str:
    cards = cards_text(action.cards)
    # TRANSLATORS: buttons under a player's hand; {cards} is a list such as "10♣ Q♥".
    labels = {
        Verb.LEAD: "▶️ " + t._("Lead {cards}", cards=cards),
        Verb.BEAT: "⚔️ " + t._("Beat with {cards}", cards=cards),
        Verb.DISCARD: "🂠 "
        + t.n_("Discard {n} card face down", "Discard {n} cards face down", len(action.cards)),
        Verb.MOLODKA: "🔥 " + t._("Molodka {cards}", cards=cards),
        Verb.MOSCOW: "🏛 " + t._("Moscow {cards}", cards=cards),
        Verb.PLAY: "▶️ " + t._("Play {cards}", cards=cards),
        Verb.GIVE: "🎁 " + t._("Give {cards} to the partner", cards=cards),
        Verb.RETURN: "↩️ " + t._("Give {cards} back", cards=cards),
    }
    return labels[action.verb]


def checked(text: str, chosen: bool) -> str:
    """A choice button's text, ticked when it is the current choice."""
    return ("✓ " if chosen else "") + text


def rows_of(buttons: Sequence[Button], width: int) -> list[list[Button]]:
    return [list(buttons[i : i + width]) for i in range(0, len(buttons), width)]
