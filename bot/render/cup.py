"""A cup for four as the group reads it: the one message that is first its sign-up, then its
standings (edited after each match), and its line in /history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from ..callback import Op
from ..i18n import Translator
from .next_table import PostButton

CUP_MARK = "🏅"  # not 🏆: a match's result begins with that


@dataclass(frozen=True)
class CupLine:
    """A player as the standings show them."""

    name: str
    forfeited: bool = False


def title(t: Translator, variant: str, rules: str) -> str:
    """``🏅 Cup for four: Street Kozel · match to 6``."""
    # TRANSLATORS: the title of a cup: four people play three matches; {variant} names the game.
    head = CUP_MARK + " <b>" + t._("Cup for four: {variant}", variant=escape(variant)) + "</b>"
    return head + (f" · {escape(rules)}" if rules else "")


def signup_text(t: Translator, head: str, names: Sequence[str]) -> str:
    who = ", ".join(escape(n) for n in names)
    lines = [
        head,
        # TRANSLATORS: how a cup is played (shown while four people sign up).
        t._("Three matches; each player partners each other player once."),
        # TRANSLATORS: {n} is how many have signed up so far (of four).
        t.n_("{n} of 4 signed up: {names}", "{n} of 4 signed up: {names}", len(names), names=who),
    ]
    return "\n".join(lines)


def join_buttons(t: Translator) -> list[list[PostButton]]:
    # TRANSLATORS: a button under a cup's sign-up.
    return [[PostButton("✋ " + t._("Join the cup"), op=Op.CUP)]]


def pairing(t: Translator, round_no: int, names: Sequence[str]) -> str:
    """``Match 2 of 3: Anna and Vera against Boris and Gleb``; ``names`` in seat order."""
    a, b, c, d = (escape(n) for n in names)
    # TRANSLATORS: a cup's match: {a} and {c} play together against {b} and {d}.
    return t._(
        "Match {n} of 3: {a} and {c} against {b} and {d}",
        n=round_no,
        a=a,
        b=b,
        c=c,
        d=d,
    )


def standing_line(t: Translator, place: int, who: CupLine, taken: int, won: int) -> str:
    points = t.n_("{n} defeat point", "{n} defeat points", taken)
    matches = t.n_("{n} match won", "{n} matches won", won)
    line = f"{place}. {escape(who.name)} — {points}, {matches}"
    if who.forfeited:
        # TRANSLATORS: after a cup player's name: they left; a computer plays their seat.
        line += " · 🤖 " + t._("left the cup, a computer plays for them")
    return line


def standings_head(t: Translator, played: int) -> str:
    # TRANSLATORS: above a cup's running totals; {n} matches have been played of three.
    return t._("Standings after match {n} of 3:", n=played)


def winner_line(t: Translator, names: Sequence[str]) -> str:
    """``🏆 Anna won the cup!``; a shared win names them all."""
    if len(names) == 1:
        return "🏆 " + t._("{name} won the cup!", name=escape(names[0]))
    # TRANSLATORS: more than one player finished first in a cup: {names} is "Anna, Boris".
    return "🏆 " + t._("The cup is shared: {names}", names=", ".join(map(escape, names)))


def standings_text(
    t: Translator,
    head: str,
    lines: Sequence[str],
    played: int,
    *,
    next_pairing: str | None = None,
    winners: Sequence[str] = (),
) -> str:
    out = [head, "", standings_head(t, played), *lines]
    if next_pairing:
        out += ["", "▶️ " + next_pairing]
    if winners:
        out += ["", winner_line(t, winners)]
    return "\n".join(out)


def history_line(t: Translator, variant: str, winners: Sequence[str], tables: Sequence[int]) -> str:
    """A finished cup in /history: who won, and its matches' tables."""
    who = ", ".join(escape(n) for n in winners)
    matches = " ".join(f"#{table}" for table in tables)
    # TRANSLATORS: a line of /history: {variant} names the game, {names} who won the cup.
    return (
        CUP_MARK
        + " "
        + t._("Cup ({variant}): {names} won", variant=variant, names=who)
        + (f" · {matches}" if matches else "")
    )
