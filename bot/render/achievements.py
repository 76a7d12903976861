"""Achievements, partnerships and the match's moment, as the chat reads them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from ..i18n import N_, Translator
from ..screen import MAX_TEXT, Screen, shown_length
from .labels import SeatInfo, side_name

# Each achievement's emoji, name and how it is earned (ids as in ``service.achievements``).
NAMES: dict[str, tuple[str, str, str]] = {
    # TRANSLATORS: achievements' names, short (a few words), then how each is earned (a line).
    "first_match": ("🎴", N_("First match"), N_("Play a match in this chat.")),
    "first_win": ("🏆", N_("First win"), N_("Win a match.")),
    "dry_win": ("💎", N_("Clean sheet"), N_("Win a match without a single defeat point.")),
    "comeback": (
        "🔄",
        N_("Comeback"),
        N_("Win a match after your side stood two defeat points from the goat or closer."),
    ),
    "wins_3": ("🔥", N_("Hat trick"), N_("Win three matches in a row.")),
    "wins_5": ("⚡", N_("Unstoppable"), N_("Win five matches in a row.")),
    "wins_10": ("🎖", N_("Ten wins"), N_("Win ten matches.")),
    "no_goat_10": (
        "🛡",
        N_("Never the goat"),
        N_("Play ten matches in a row without being the goat."),
    ),
    "goat_5": ("🐐", N_("Old goat"), N_("Be the goat five times (a consolation).")),
    "goat_eggs": ("🍳", N_("Goat with eggs"), N_("Be the goat with eggs (a consolation).")),
    "eggs": ("🥚", N_("Eggs"), N_("End a deal 60 to 60.")),
    "queen": ("👑", N_("Queen catcher"), N_("Catch the queen of clubs with the seven.")),
    "two_queens": ("👸", N_("Queen hunter"), N_("Catch the queen of clubs twice in one match.")),
    "molodka": ("💃", N_("Molodka"), N_("Declare a molodka.")),
    "moscow": ("🏛", N_("Moscow"), N_("Declare a Moscow.")),
    "clean_deal": (
        "🧹",
        N_("Clean sweep"),
        N_("Win a deal in which the other side takes no trick."),
    ),
    "matches_10": ("🔟", N_("Regular"), N_("Play 10 matches.")),
    "matches_50": ("🎯", N_("Old hand"), N_("Play 50 matches.")),
    "matches_100": ("💯", N_("Legend of the table"), N_("Play 100 matches.")),
    "cup_won": ("🏆", N_("Cup winner"), N_("Win a cup for four (/cup).")),
    "partner_10": (
        "🤝",
        N_("Old partners"),
        N_("Play ten four-player matches with the same partner."),
    ),
}

EMOJI = "🏅"
PAIRS_SHOWN = 25
"""The best partnerships /pairs lists (the rest: "…")."""


def achievement_name(t: Translator, achievement: str) -> str:
    found = NAMES.get(achievement)
    return t._(found[1]) if found else achievement


def _emoji(achievement: str) -> str:
    found = NAMES.get(achievement)
    return found[0] if found else EMOJI


def awards_line(t: Translator, awards: Sequence[tuple[str, Sequence[str]]]) -> str | None:
    """One line for a match result: ``🏅 Alice: First win · Bob: Eggs``."""
    parts = [
        escape(name) + ": " + ", ".join(achievement_name(t, a) for a in earned)
        for name, earned in awards
        if earned
    ]
    return EMOJI + " " + " · ".join(parts) if parts else None


# ------------------------------------------------------------------ partners


@dataclass(frozen=True)
class Pair:
    """Two partners' record together, as shown."""

    names: tuple[str, str]
    matches: int
    wins: int
    defeat_points: int

    @property
    def share(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    @property
    def mean_points(self) -> float:
        return self.defeat_points / self.matches if self.matches else 0.0


DECIMAL_COMMA = frozenset({"be", "da", "de", "ru", "uk"})
"""Languages that write 6,7 where English writes 6.7."""


def decimal(t: Translator, value: float) -> str:
    text = f"{value:.1f}"
    return text.replace(".", ",") if t.lang in DECIMAL_COMMA else text


def best_first(pairs: Sequence[Pair]) -> list[Pair]:
    """The best pair first: the largest share won, then the fewest defeat points a match,
    then the most matches."""
    return sorted(pairs, key=lambda p: (-p.share, p.mean_points, -p.matches, p.names))


def _pair_counts(t: Translator, pair: Pair) -> str:
    return (
        t.n_("{n} match", "{n} matches", pair.matches)
        + " · "
        + t.n_("{n} win", "{n} wins", pair.wins)
        + f" ({round(pair.share * 100)}%)"
    )


def pairs_screen(t: Translator, *, chat_title: str, pairs: Sequence[Pair], least: int) -> Screen:
    """/pairs: the partnerships, best first, cut to fit a message."""
    head = "🤝 <b>" + t._("Partners") + "</b> · " + escape(chat_title)
    if not pairs:
        return Screen.of(
            head
            + "\n"
            + t.n_(
                "No two partners have played {n} four-player match together here yet.",
                "No two partners have played {n} four-player matches together here yet.",
                least,
            )
        )
    lines = [head]
    length = shown_length(head)
    ranked = best_first(pairs)
    for rank, pair in enumerate(ranked[:PAIRS_SHOWN], start=1):
        line = (
            f"{rank}. <b>{escape(pair.names[0])} &amp; {escape(pair.names[1])}</b> — "
            + _pair_counts(t, pair)
            + " · "
            + t._("{points} defeat points a match", points=decimal(t, pair.mean_points))
        )
        length += 1 + shown_length(line)
        if length + 2 > MAX_TEXT:  # room for the "…" line
            break
        lines.append(line)
    if len(lines) - 1 < len(ranked):
        lines.append("…")
    return Screen.of("\n".join(lines))


# ------------------------------------------------------------------ /stats and /achievements


def stats_lines(
    t: Translator,
    earned: Sequence[str],
    partner: Pair | None,
    *,
    timeouts: int = 0,
    stood_in: int = 0,
) -> list[str]:
    """/stats: the player's achievements, best partner (``names[1]``), and who waited for
    them: turns the timer played, deals a computer played for them."""
    lines: list[str] = [
        "",
        "⏰ "
        + t.n_("{n} turn timed out", "{n} turns timed out", timeouts)
        + " · 🤖 "
        + t.n_("{n} deal played by a stand-in", "{n} deals played by a stand-in", stood_in),
    ]
    if earned:
        names = ", ".join(_emoji(a) + " " + achievement_name(t, a) for a in earned)
        count = t.n_("{n} achievement", "{n} achievements", len(earned))
        lines.append(EMOJI + " " + count + ": " + names)
    if partner is not None:
        lines.append(
            "🤝 "
            + t._("Best partner: {name}", name=escape(partner.names[1]))
            + " · "
            + _pair_counts(t, partner)
        )
    return lines


def private_lines(t: Translator, count: int) -> list[str]:
    if not count:
        return []
    return [EMOJI + " " + t.n_("{n} achievement", "{n} achievements", count)]


def achievements_screen(t: Translator, *, chat_title: str, holders: dict[str, list[str]]) -> Screen:
    """/achievements: every achievement, how to earn it and who holds it here (the longest
    lists of holders cut to fit one message)."""
    head = EMOJI + " <b>" + t._("Achievements") + "</b> · " + escape(chat_title)
    shown = {a: [escape(n) for n in holders.get(a, [])] for a in NAMES}
    cut: set[str] = set()

    def text() -> str:
        lines = [head]
        for achievement, (emoji, name, how) in NAMES.items():
            lines.append(f"{emoji} <b>{t._(name)}</b> — {t._(how)}")
            if shown[achievement]:
                more = " " + t._("and others") if achievement in cut else ""
                lines.append("    " + ", ".join(shown[achievement]) + more)
        return "\n".join(lines)

    page = text()
    while shown_length(page) > MAX_TEXT:
        # The longest list of holders gives way first, a name at a time.
        longest = max(shown, key=lambda a: len(", ".join(shown[a])))
        if len(shown[longest]) <= 1:
            break
        excess = shown_length(page) - MAX_TEXT
        drop = max(1, min(len(shown[longest]) - 1, excess // 20))
        shown[longest] = shown[longest][:-drop]
        cut.add(longest)
        page = text()
    return Screen.of(page)


# ------------------------------------------------------------------ the moment


@dataclass(frozen=True)
class MomentText:
    """What the moment line needs of the engine's ``Moment`` (the render knows no service)."""

    kind: str
    deal: int | None
    seat: int | None
    other: int | None
    side: int | None
    points: int


def moment_line(
    t: Translator, moment: MomentText, seats: Sequence[SeatInfo], sides: Sequence[int]
) -> str | None:
    def name(seat: int | None) -> str:
        return seats[seat].label if seat is not None and seat < len(seats) else "?"

    def side(number: int | None) -> str:
        return side_name(seats, sides, number or 0, t, notes=False)

    deal = moment.deal or 0
    if moment.kind == "comeback":
        what = t.n_(
            "Moment of the match: {side} came back from {n} defeat point to win.",
            "Moment of the match: {side} came back from {n} defeat points to win.",
            moment.points,
            side=side(moment.side),
        )
    elif moment.kind == "queen":
        what = t._(
            "Moment of the match: in deal {deal} {catcher} caught {owner}'s queen of clubs "
            "with the seven.",
            deal=deal,
            catcher=name(moment.seat),
            owner=name(moment.other),
        )
    elif moment.kind == "moscow":
        what = t._("Moment of the match: {name} declared a Moscow.", name=name(moment.seat))
    elif moment.kind == "molodka":
        what = t._("Moment of the match: {name} declared a molodka.", name=name(moment.seat))
    elif moment.kind == "eggs":
        what = t._("Moment of the match: eggs in deal {deal}, 60 to 60.", deal=deal)
    elif moment.kind == "big_deal":
        what = t.n_(
            "Moment of the match: deal {deal} cost {side} {n} defeat point.",
            "Moment of the match: deal {deal} cost {side} {n} defeat points.",
            moment.points,
            deal=deal,
            side=side(moment.side),
        )
    else:
        return None
    return "✨ " + what
