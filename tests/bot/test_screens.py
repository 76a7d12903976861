"""Every screen the bot shows renders in every language, and is actually translated."""

from __future__ import annotations

import random

import pytest

from bot.i18n import LANGUAGES, Translator, get_translator
from bot.render.chat import (
    help_screen,
    language_screen,
    rules_screen,
    score_screen,
    settings_screen,
)
from bot.render.hand import HandMessage, hand_closed_screen, hand_screen, removed_screen
from bot.render.labels import SeatInfo
from bot.render.lobby import lobby_closed_text, lobby_screen
from bot.render.refusals import Refused, refusal_text
from bot.render.results import deal_result_text, match_result_text
from bot.render.table import table_screen
from bot.screen import Screen
from kozel_rules.card import Card
from kozel_rules.errors import Rule
from kozel_rules.match import Match
from kozel_rules.options import Options
from kozel_rules.variant import get_variant

SEATS = [
    SeatInfo("Anna"),
    SeatInfo("Ivan", "strong"),
    SeatInfo("Vera", away=True),
    SeatInfo("Gleb"),
]
JOIN_URL = "https://t.me/kozel_bot?start=j7"
TIMERS = (0, 30, 60, 120, 300)


def played(variant: str, players: int, plies: int, seed: int = 5) -> Match:
    match = Match.new(variant, players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if match.is_over:
            break
        match.apply(rng.choice(match.legal_actions(match.to_move)))
    return match


def finished(variant: str, players: int) -> Match:
    return played(variant, players, 100_000)


def lobby(t: Translator, variant: str, seats: list[SeatInfo]) -> Screen:
    return lobby_screen(
        t,
        table_id=7,
        version=3,
        variant=get_variant(variant),
        seats=seats,
        creator="Anna",
        join_url=JOIN_URL,
    )


def screens(t: Translator) -> list[str]:
    """The text (and button labels) of every kind of screen, for one language."""
    out: list[Screen | str] = [
        lobby(t, "moscow", SEATS),
        lobby(t, "ziege", SEATS[:1]),
        lobby_closed_text(t),
        help_screen(t, private=False),
        language_screen(t, t.lang),
        settings_screen(t, 60, TIMERS),
        # House rules: the lobby's line and buttons, /settings' defaults, /rules' table.
        lobby_screen(
            t,
            table_id=7,
            version=3,
            variant=get_variant("ziege"),
            seats=SEATS,
            creator="Anna",
            join_url=JOIN_URL,
            options=Options(goat_at=6, eggs="double", ziege_scoring="tiers"),
            group_default=True,
        ),
        settings_screen(t, 60, TIMERS, defaults=(get_variant("ziege"), Options(goat_at=8))),
        rules_screen(t, get_variant("street"), Options(goat_at=10, eggs="double")),
    ]
    out += [rules_screen(t, get_variant(v)) for v in ("ziege", "street", "moscow")]
    for variant, players in (("ziege", 4), ("street", 4), ("moscow", 3)):
        match = played(variant, players, 7)
        out.append(table_screen(t, view=match.view(None), seats=SEATS[:players]))
        out.append(table_screen(t, view=match.view(None), seats=SEATS[:players], cancelled=True))
        for seat in range(players):
            out.append(
                hand_screen(
                    t,
                    HandMessage(
                        view=match.view(seat),
                        seats=SEATS[:players],
                        chat_title="Club",
                        table_id=7,
                        ply=match.ply,
                        selection=match.view(seat).hand[:1],
                    ),
                )
            )
        done = finished(variant, players)
        assert done.result is not None
        for deal in done.deal_results:
            out.append(
                deal_result_text(
                    t,
                    result=deal,
                    view=done.view(None),
                    seats=SEATS[:players],
                    totals=done.defeat_points,
                    sides_in=list(range(done.sides)),
                )
            )
        out.append(
            match_result_text(t, result=done.result, view=done.view(None), seats=SEATS[:players])
        )
        out.append(
            score_screen(t, view=done.view(None), deals=done.deal_results, seats=SEATS[:players])
        )
    out += [refusal_text(t, reason, Card.parse("K♦")) for reason in (*Rule, *Refused)]
    out += [hand_closed_screen(t, "Club"), removed_screen(t)]
    texts = []
    for item in out:
        if isinstance(item, Screen):
            texts.append(item.text + "\n" + "\n".join(b.text for row in item.buttons for b in row))
        else:
            texts.append(item)
    return texts


ENGLISH = screens(get_translator("en"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_screen_renders_in_every_language(lang: str) -> None:
    texts = screens(get_translator(lang))
    assert len(texts) == len(ENGLISH)
    for text in texts:
        assert text.strip()
        assert "{" not in text  # every placeholder was filled
        assert len(text) <= 4096  # Telegram's message limit


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_screen_is_translated(lang: str) -> None:
    for english, text in zip(ENGLISH, screens(get_translator(lang)), strict=True):
        assert text != english


def test_button_data_fits_telegram() -> None:
    match = played("street", 4, 3)
    screen = hand_screen(
        get_translator("en"),
        HandMessage(
            view=match.view(0),
            seats=SEATS,
            chat_title="Club",
            table_id=999_999_999_999,
            ply=999_999_999,
            selection=list(match.view(0).hand[:2]),
        ),
    )
    for row in screen.buttons:
        for button in row:
            assert button.data is None or len(button.data.encode()) <= 64


def test_the_group_table_is_drawn_from_the_public_view_only() -> None:
    match = played("street", 4, 3)
    with pytest.raises(AssertionError):
        table_screen(get_translator("en"), view=match.view(0), seats=SEATS)
