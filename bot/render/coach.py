"""The coach's answer: a player's biggest mistakes in a deal, in their words."""

from __future__ import annotations

from html import escape

from kozel_rules.action import Action, Verb
from kozel_rules.ai.coach import DealReview, Mistake

from ..i18n import N_, Translator
from .labels import action_label, cards_text


def play_text(t: Translator, action: Action) -> str:
    """A play as its player knows it: the cards, also those put face down."""
    if action.verb is Verb.DISCARD:
        # TRANSLATORS: the coach names a play of the player: cards thrown face down.
        return "🂠 " + t._("Discard {cards} face down", cards=cards_text(t, action.cards))
    return action_label(t, action)


_YOU_PLAYED = {
    # TRANSLATORS: the coach: what the player did in a trick, the first half of
    # "Trick 5: you beat with K♣; the expert would have beaten with A♣."
    Verb.LEAD: N_("you led {cards}"),
    Verb.BEAT: N_("you beat with {cards}"),
    Verb.DISCARD: N_("you discarded {cards} face down"),
    Verb.MOLODKA: N_("you declared a molodka: {cards}"),
    Verb.MOSCOW: N_("you declared a Moscow: {cards}"),
    Verb.PLAY: N_("you played {cards}"),
    Verb.GIVE: N_("you gave {cards} to your partner"),
    Verb.RETURN: N_("you gave {cards} back to your partner"),
}
_EXPERT_WOULD = {
    # TRANSLATORS: the coach: what the expert would have done instead, the second half of
    # "Trick 5: you beat with K♣; the expert would have beaten with A♣."
    Verb.LEAD: N_("the expert would have led {cards}"),
    Verb.BEAT: N_("the expert would have beaten with {cards}"),
    Verb.DISCARD: N_("the expert would have discarded {cards} face down"),
    Verb.MOLODKA: N_("the expert would have declared a molodka: {cards}"),
    Verb.MOSCOW: N_("the expert would have declared a Moscow: {cards}"),
    Verb.PLAY: N_("the expert would have played {cards}"),
    Verb.GIVE: N_("the expert would have given {cards} to your partner"),
    Verb.RETURN: N_("the expert would have given {cards} back to your partner"),
}


def _clause(t: Translator, clauses: dict[Verb, str], action: Action) -> str:
    """One play as a clause of the coach's sentence, its cards in bold."""
    return t._(clauses[action.verb], cards=f"<b>{cards_text(t, action.cards)}</b>")


def mark_lines(
    t: Translator,
    *,
    trick: int,
    played: Action,
    better: Action,
    points_lost: float,
    mine: int,
    expert: int,
    team: bool,
) -> list[str]:
    """One judged play in the coach's words (HTML): the chat's review and the replay's marks
    say it the same way. ``mine``/``expert``: the % chance to win the deal after each play."""
    # TRANSLATORS: {played} and {better} are the two clauses above.
    lines = [
        t._(
            "Trick {trick}: {played}; {better}.",
            trick=trick,
            played=_clause(t, _YOU_PLAYED, played),
            better=_clause(t, _EXPERT_WOULD, better),
        )
    ]
    points = round(points_lost)
    if points >= 1 and team:
        lines.append(
            t.n_(
                "The expert's play would have brought your side about {n} card point more.",
                "The expert's play would have brought your side about {n} card points more.",
                points,
            )
        )
    elif points >= 1:
        lines.append(
            t.n_(
                "The expert's play would have brought you about {n} card point more.",
                "The expert's play would have brought you about {n} card points more.",
                points,
            )
        )
    if expert > mine:
        lines.append(
            t._(
                "Your chance to win the deal: {mine} after your play, {better} after the expert's.",
                mine=f"{mine}%",
                better=f"{expert}%",
            )
        )
    return lines


def _mistake_lines(t: Translator, m: Mistake, *, team: bool) -> list[str]:
    lines = mark_lines(
        t,
        trick=m.trick,
        played=m.played,
        better=m.better,
        points_lost=m.points_lost,
        mine=round(m.played_outlook.win_chance * 100),
        expert=round(m.better_outlook.win_chance * 100),
        team=team,
    )
    # A bullet, not a number: the plays below are numbered by trick.
    return ["• " + lines[0], *lines[1:]]


def _plays_lines(t: Translator, review: DealReview) -> list[str]:
    """The player's plays, one line a trick, so a mistake's trick is easy to find."""
    if len(review.play_tricks) != len(review.plays):  # a review without trick numbers
        plays = " · ".join(play_text(t, a) for a in review.plays)
        return [t._("Your plays: {plays}", plays=plays)]
    by_trick: dict[int, list[str]] = {}
    for trick, action in zip(review.play_tricks, review.plays, strict=True):
        by_trick.setdefault(trick, []).append(play_text(t, action))
    lines = [t._("Your plays, trick by trick:")]
    lines += [f"{trick}. " + " · ".join(plays) for trick, plays in by_trick.items()]
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
    # The biggest are chosen; they are told in the order they were played.
    for m in sorted(review.mistakes, key=lambda x: x.ply):
        lines += _mistake_lines(t, m, team=review.team)
    if review.plays:
        lines += ["", *_plays_lines(t, review)]
    return "\n".join(lines)
