"""The coach's answer: a player's biggest mistakes in a deal, in their words."""

from __future__ import annotations

from html import escape

from kozel_rules.action import Action, Verb
from kozel_rules.ai.coach import DealReview, Mistake

from ..i18n import Translator
from .labels import action_label, cards_text


def play_text(t: Translator, action: Action) -> str:
    """A play as its player knows it: the cards, also those put face down."""
    if action.verb is Verb.DISCARD:
        # TRANSLATORS: the coach names a play of the player: cards thrown face down.
        return "🂠 " + t._("Discard {cards} face down", cards=cards_text(t, action.cards))
    return action_label(t, action)


def _mistake_lines(t: Translator, index: int, m: Mistake) -> list[str]:
    lines = [
        f"{index}. "
        + t._(
            "Trick {trick}: you played {played}; the expert would have played {better}.",
            trick=m.trick,
            played=f"<b>{play_text(t, m.played)}</b>",
            better=f"<b>{play_text(t, m.better)}</b>",
        )
    ]
    points = round(m.points_lost)
    if points >= 1:
        lines.append(
            t.n_(
                "With it your side would have taken about {n} card point more.",
                "With it your side would have taken about {n} card points more.",
                points,
            )
        )
    before, after = (
        round(m.better_outlook.win_chance * 100),
        round(m.played_outlook.win_chance * 100),
    )
    if before > after:
        lines.append(
            t._(
                "Your chance to win the deal: {before} instead of {after}.",
                before=f"{before}%",
                after=f"{after}%",
            )
        )
    return lines


def review_text(t: Translator, review: DealReview, *, chat_title: str) -> str:
    """The coach's answer about ``review`` (HTML), for the player's private chat."""
    head = "🎓 <b>" + t._("How you played in deal {n}", n=review.deal) + "</b>"
    if chat_title:
        head += f" ({escape(chat_title)})"
    lines = [head]
    decisions = t.n_(
        "The expert looked at {n} decision of yours.",
        "The expert looked at {n} decisions of yours.",
        review.decisions,
    )
    lines.append(decisions)
    if len(review.mistakes) > 1:
        lines += ["", t._("The biggest mistakes:")]
    elif review.mistakes:
        lines += ["", t._("The biggest mistake:")]
    else:
        lines += [
            "",
            t._(
                "No clear mistake: the expert would have played the same, or the difference "
                "was too small to matter."
            ),
        ]
    for i, m in enumerate(review.mistakes, 1):
        lines += _mistake_lines(t, i, m)
    if review.plays:
        plays = " · ".join(play_text(t, a) for a in review.plays)
        lines += ["", t._("Your plays: {plays}", plays=plays)]
    return "\n".join(lines)
