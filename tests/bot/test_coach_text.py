"""The coach's answer as the player reads it: each mistake in a sentence of its own ("you
discarded …; the expert would have declared …"), in the order played, and the player's plays
one line a trick, so that a mistake's trick can be found (issue 36)."""

from __future__ import annotations

import pytest

from bot.i18n import LANGUAGES, get_translator
from bot.render.coach import review_text
from kozel_rules.action import Action
from kozel_rules.ai.coach import DealReview, Mistake, Outlook

PLAYS = [
    (1, "1 lead Q♣"),
    (2, "1 discard 6♦"),
    (3, "1 discard 10♥"),
    (4, "1 beat J♥"),
    (5, "1 lead 6♣ K♣"),
]


def review(*, team: bool) -> DealReview:
    """A deal 2 with two mistakes, the bigger one later in the deal."""
    small = Mistake(
        ply=41,
        trick=3,
        played=Action.parse("1 discard 10♥"),
        better=Action.parse("1 molodka 6♥ 9♥ 10♥ A♥"),
        played_outlook=Outlook(card_points=30.0, win_chance=0.17),
        better_outlook=Outlook(card_points=50.4, win_chance=0.69),
        value_loss=0.1,
    )
    big = Mistake(
        ply=60,
        trick=4,
        played=Action.parse("1 beat J♥"),
        better=Action.parse("1 discard J♥"),
        played_outlook=Outlook(card_points=40.0, win_chance=0.5),
        better_outlook=Outlook(card_points=52.0, win_chance=0.5),
        value_loss=0.2,
    )
    return DealReview(
        seat=1,
        deal=2,
        decisions=5,
        mistakes=(big, small),  # the engine gives the biggest first
        plays=tuple(Action.parse(text) for _, text in PLAYS),
        play_tricks=tuple(trick for trick, _ in PLAYS),
        team=team,
    )


def test_the_review_reads_as_sentences_in_the_order_played() -> None:
    text = review_text(get_translator("en"), review(team=False), chat_title="Club")
    lines = text.splitlines()
    assert lines[0] == "🎓 <b>How you played in deal 2</b> (Club)"
    mistakes = [x for x in lines if x.startswith("• ")]
    assert mistakes == [
        "• Trick 3: you discarded <b>10♥</b> face down; the expert would have declared a "
        "molodka: <b>6♥ 9♥ 10♥ A♥</b>.",
        "• Trick 4: you beat with <b>J♥</b>; the expert would have discarded <b>J♥</b> face down.",
    ]
    assert "The expert's play would have brought you about 20 card points more." in lines
    assert "Your chance to win the deal: 17% after your play, 69% after the expert's." in lines
    # the chance did not change with the second mistake: no chance line for it
    assert sum("Your chance" in x for x in lines) == 1
    at = lines.index("Your plays, trick by trick:")
    assert lines[at + 1 :] == [
        "1. ▶️ Lead Q♣",
        "2. 🂠 Discard 6♦ face down",
        "3. 🂠 Discard 10♥ face down",
        "4. ⚔️ Beat with J♥",
        "5. ▶️ Lead 6♣ K♣",
    ]


def test_partners_hear_of_their_side() -> None:
    text = review_text(get_translator("en"), review(team=True), chat_title="")
    assert "The expert's play would have brought your side about 20 card points more." in text
    assert "brought you about" not in text


@pytest.mark.parametrize("lang", [x for x in LANGUAGES if x != "en"])
def test_the_review_is_in_the_players_language(lang: str) -> None:
    """No English words left in a translated review (card letters and numbers aside), and the
    same trick numbers."""
    text = review_text(get_translator(lang), review(team=False), chat_title="")
    for english in ("you ", "expert", "Trick", "card point", "Discard", "Lead", "trick by"):
        assert english not in text, (lang, english, text)
    lines = text.splitlines()
    assert [x.split(".")[0] for x in lines if x[:1].isdigit()] == ["1", "2", "3", "4", "5"]
    assert sum(x.startswith("• ") for x in lines) == 2
