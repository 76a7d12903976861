"""An answer to a lead says what a tap does: with a card that can beat, green beats; with
none, every tap throws face down, and the prompt says so instead of pointing at green."""

from __future__ import annotations

import random

from bot.i18n import get_translator
from bot.render.choice import partner_on_top, set_size
from bot.render.hand import hand_prompt
from kozel_rules import Match
from kozel_rules.action import Verb
from kozel_rules.view import Phase

NOTHING_BEATS = "Nothing in your hand beats this trick"
GREEN = "a tap on a card that can beat (green) beats with it"


def answers(seed: int) -> list[tuple[bool, str]]:
    """(can beat, prompt) at each single-card answer of a random street match's first deals."""
    t = get_translator("en")
    match, rng, found = Match.new("street", 4, seed=seed), random.Random(seed), []
    for _ in range(200):
        if match.is_over:
            break
        seat = match.to_move
        assert seat is not None
        view = match.view(seat)
        if view.phase == Phase.RESPOND and set_size(view) == 1 and not partner_on_top(view):
            beats = any(a.verb is Verb.BEAT for a in view.legal)
            found.append((beats, hand_prompt(t, view, view.legal)))
        plays = [a for a in match.legal_actions(seat) if not a.verb.is_special]
        match.apply(rng.choice(plays))
    return found


def test_the_answer_prompt_says_green_only_when_a_card_can_beat() -> None:
    seen = [pair for seed in range(6) for pair in answers(seed)]
    assert {beats for beats, _ in seen} == {True, False}, "both cases met"
    for beats, prompt in seen:
        assert (GREEN in prompt) == beats, prompt
        assert (NOTHING_BEATS in prompt) == (not beats), prompt


def test_nothing_beats_is_said_in_russian() -> None:
    ru = get_translator("ru")
    assert "не перебить" in ru._(
        "Nothing in your hand beats this trick: a tap throws a card face down (an A, 10 or K "
        "asks first)."
    )
