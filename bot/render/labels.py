"""The small pieces every screen is made of: names of seats, sides, levels, cards, actions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from kozel_rules.action import Action, Verb
from kozel_rules.ai import LEVELS
from kozel_rules.card import Card, Rank

from ..i18n import N_, Translator
from ..screen import Button

# TRANSLATORS: names of the computer players (one each, "🤖 Ivan"): write them in your
# language's script as people there would say them.
COMPUTER_NAMES = (N_("Ivan"), N_("Olga"), N_("Taras"), N_("Greta"), N_("Mads"), N_("Yuki"))
_OLD_COMPUTER_PREFIX = "Bot "  # computer names were stored as "Bot Ivan" before


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


def computer_name(t: Translator, stored: str) -> str:
    """A computer player's name in the reader's language (names are stored in English)."""
    name = stored.removeprefix(_OLD_COMPUTER_PREFIX)
    return t._(name) if name in COMPUTER_NAMES else stored


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
    # TRANSLATORS: the strengths of a computer player, on buttons, in the ladder and in the
    # settings ("🤖 weak"): one scale, weak < medium < strong < expert.
    words = (t._("weak"), t._("medium"), t._("strong"), t._("expert"))
    names = dict(zip(LEVELS, words, strict=True))
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


def and_list(t: Translator, names: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C`` in the reader's language."""
    if len(names) <= 1:
        return "".join(names)
    # TRANSLATORS: the last two of a list of names ("Anna and Vera", "Anna, Boris and Vera").
    return t._("{first} and {last}", first=", ".join(names[:-1]), last=names[-1])


def side_label(
    seats: Sequence[SeatInfo],
    members: Sequence[int],
    t: Translator,
    *,
    notes: bool = True,
    over: bool = False,
) -> str:
    """The players' names joined with "and"; a seat whose player was removed says so
    (unless not ``notes``)."""

    def name(seat: SeatInfo) -> str:
        if not notes or not seat.replaced:
            return seat.label
        return f"{seat.label} {replaced_note(t, over=over)}"

    return and_list(t, [name(seats[i]) for i in members])


def side_name(
    seats: Sequence[SeatInfo],
    sides: Sequence[int],
    side: int,
    t: Translator,
    *,
    notes: bool = True,
    over: bool = False,
) -> str:
    """The players of ``side`` by name, partners joined with "and"."""
    return side_label(seats, side_members(sides, side), t, notes=notes, over=over)


def people_count(sides: Sequence[int], chosen: Sequence[int]) -> int:
    """How many players the sides ``chosen`` hold (for a plural: one goat, or two)."""
    return sum(1 for side in sides if side in chosen)


_COURT = (Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)


def rank_letters(t: Translator) -> dict[Rank, str]:
    """The reader's letters for the jack, queen, king and ace (numbers stay numbers)."""
    # TRANSLATORS: the letters of the jack, queen, king and ace as players of your language
    # write them on cards, separated by spaces, in this order (ru: "В Д К Т"). Only shown,
    # never typed.
    letters = t._("J Q K A").split()
    if len(letters) != len(_COURT):  # a broken translation: the engine's own letters
        letters = [str(rank) for rank in _COURT]
    return dict(zip(_COURT, letters, strict=True))


def card_label(t: Translator, card: Card) -> str:
    """A card as the reader writes it: ``10♣``, ru ``Д♥`` (labels only: data keeps ``Q♥``)."""
    letter = rank_letters(t).get(card.rank)
    return (letter or str(card.rank)) + card.suit.symbol


def cards_text(t: Translator, cards: Sequence[Card]) -> str:
    return " ".join(card_label(t, c) for c in cards)


def action_label(t: Translator, action: Action) -> str:
    cards = cards_text(t, action.cards)
    # TRANSLATORS: buttons under a player's hand; {cards} is a list such as "10♣ Q♥".
    labels = {
        Verb.LEAD: "▶️ " + t._("Lead {cards}", cards=cards),
        Verb.BEAT: "⚔️ " + t._("Beat with {cards}", cards=cards),
        # TRANSLATORS: a button: throw the chosen cards face down (nobody sees them).
        Verb.DISCARD: "🂠 "
        + t.n_("Discard {n} face down", "Discard {n} face down", len(action.cards)),
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
