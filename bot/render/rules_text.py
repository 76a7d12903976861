"""The rules of each variant, explained briefly for players, and the names that go with them.

Texts are Telegram HTML (only ``<b>`` and ``<i>``) and are built from one message per
paragraph, so translators work on small units. Card texts (``10♣``, ``Q♥``) are the same in
every language. Every text stays well under Telegram's 4096-character message limit.
"""

from __future__ import annotations

from kozel_rules.variant import MOSCOW, STREET, VARIANTS, ZIEGE, Variant

from ..i18n import N_, Translator

# Each variant's own words: its name, its summary, its rules (``rules_text``).
_VARIANT_NAMES: dict[Variant, str] = {
    # TRANSLATORS: name of the variant with fixed trumps (queens, jacks, clubs; 32 cards).
    ZIEGE: N_("Classic Kozel (Ziege)"),
    # TRANSLATORS: name of the variant played by "street"/"yard" rules (trump shown from the
    # stock, tricks of several cards, molodka).
    STREET: N_("Street Kozel"),
    # TRANSLATORS: name of the variant for 2-4 players with the 6♠ highest and the Moscow lead.
    MOSCOW: N_("Moscow Kozel"),
}

# Short names for buttons (three in a row on a phone); "Moscow" is also the Moscow lead's name.
_VARIANT_SHORT: dict[Variant, str] = {
    # TRANSLATORS: a lobby button choosing Classic Kozel (Ziege); one short word.
    ZIEGE: N_("Classic"),
    # TRANSLATORS: a lobby button choosing Street Kozel; one short word.
    STREET: N_("Street"),
    MOSCOW: N_("Moscow"),
}

_VARIANT_SUMMARIES: dict[Variant, str] = {
    # TRANSLATORS: one line under the variant's name in the lobby; keep it short.
    ZIEGE: N_("4 players in teams, 32 cards; trumps: queens, jacks, clubs; 7♣ highest"),
    # TRANSLATORS: one line under the variant's name in the lobby; keep it short.
    STREET: N_("4 players in teams, 36 cards; trump shown from the stock; molodka"),
    # TRANSLATORS: one line under the variant's name in the lobby; keep it short.
    MOSCOW: N_("2–4 players, 36 cards; the 6♠ beats everything; Moscow and Molodka"),
}

_SUIT_NAMES: dict[str, str] = {
    # TRANSLATORS: suit name as used in running text, e.g. "Trump: ♥ hearts".
    "♠": N_("spades"),
    # TRANSLATORS: suit name as used in running text, e.g. "Trump: ♥ hearts".
    "♥": N_("hearts"),
    # TRANSLATORS: suit name as used in running text, e.g. "Trump: ♥ hearts".
    "♦": N_("diamonds"),
    # TRANSLATORS: suit name as used in running text, e.g. "Trump: ♥ hearts".
    "♣": N_("clubs"),
}


def _check_variant(variant: Variant) -> None:
    if variant not in _VARIANT_NAMES:
        raise ValueError(f"unknown variant: {variant!r} (expected one of {', '.join(VARIANTS)})")


def variant_name(t: Translator, variant: Variant) -> str:
    """The variant's display name (plain text)."""
    _check_variant(variant)
    return t._(_VARIANT_NAMES[variant])


def variant_short_name(t: Translator, variant: Variant) -> str:
    """The variant's name on a button (one short word)."""
    _check_variant(variant)
    return t._(_VARIANT_SHORT[variant])


def variant_summary(t: Translator, variant: Variant) -> str:
    """One plain-text line describing the variant, for the lobby and the variant buttons."""
    _check_variant(variant)
    return t._(_VARIANT_SUMMARIES[variant])


def suit_name(t: Translator, suit_symbol: str) -> str:
    """The name of a suit given by its symbol (``"♥"`` -> ``"hearts"``)."""
    try:
        return t._(_SUIT_NAMES[str(suit_symbol)])
    except KeyError:
        raise ValueError(f"not a suit symbol: {suit_symbol!r}") from None


def rules_text(t: Translator, variant: Variant) -> str:
    """A brief explanation of ``variant``'s rules, in Telegram HTML."""
    _check_variant(variant)
    paragraphs = [f"<b>{variant_name(t, variant)}</b>\n<i>{variant_summary(t, variant)}</i>"]
    explain = {ZIEGE: _ziege, STREET: _street, MOSCOW: _moscow}[variant]
    paragraphs += explain(t, variant)
    return "\n\n".join(paragraphs)


# Paragraphs. For translators (see locales/README.md): the texts are Telegram HTML, so the
# <b>...</b> and <i>...</i> tags stay (their words are translated) and no < > & is added;
# cards such as 10♣ or Q♥ and rank orders such as "6 7 8 9 J Q K 10 A" stay as they are.


def _teams(t: Translator) -> str:
    return t._("<b>Players:</b> four, in two teams; partners sit opposite each other.")


def _deck(t: Translator, variant: Variant) -> str:
    # TRANSLATORS: {n} is the number of cards (32 or 36), {low} the lowest rank (7 or 6).
    return t.n_(
        "<b>Deck:</b> {n} card, from {low} up to the ace.",
        "<b>Deck:</b> {n} cards, from {low} up to the ace.",
        variant.deck_size,
        low=str(min(variant.ranks)),
    )


def _drawing(t: Translator) -> str:
    return t._(
        "<b>Drawing:</b> everyone is dealt 4 cards. After each trick the players draw from "
        "the stock back up to 4, the trick's winner first. When the stock is empty, the hands "
        "are played out."
    )


def _card_points(t: Translator) -> str:
    return t._(
        "<b>Card points:</b> ace 11, ten 10, king 4, queen 3, jack 2, all other cards 0 — "
        "120 in the deck."
    )


def _team_match(t: Translator, variant: Variant) -> str:
    # TRANSLATORS: {n} is the number of defeat points that ends the match (12).
    return t.n_(
        "<b>Match:</b> deals go on until a team reaches {n} defeat point. That team loses the "
        "match — it is the goat.",
        "<b>Match:</b> deals go on until a team reaches {n} defeat points. That team loses the "
        "match — it is the goat.",
        variant.out_at,
    )


def _rank(t: Translator) -> str:
    return t._(
        "<b>Rank</b> in every suit, low to high: 6 7 8 9 J Q K 10 A. A card beats a lower "
        "card of its own suit, and every trump beats every non-trump. Two non-trumps of "
        "different suits never beat each other."
    )


def _lead(t: Translator) -> str:
    return t._("<b>Lead:</b> one card, or two or three cards of one suit, face up.")


def _answer(t: Translator) -> str:
    return t._(
        "<b>Answer:</b> clockwise, every other player plays as many cards as were led, either "
        "<i>beating</i> — face up, each card beating a different card of the top set (the "
        "lead, or the cards that last beat it) — or <i>discarding</i> any cards face down, "
        "unseen by all. Nobody has to follow suit or beat. Whoever played the top set takes "
        "the whole trick, discards included."
    )


def _ziege(t: Translator, variant: Variant) -> list[str]:
    return [
        _teams(t),
        _deck(t, variant),
        t._(
            "<b>Trumps</b> are always the same 14 cards: all queens, all jacks and all clubs. "
            "From low to high: 8♣ 9♣ K♣ 10♣ A♣ J♦ J♥ J♠ J♣ Q♦ Q♥ Q♠ Q♣ 7♣. The 7♣ is the "
            "highest card of the game."
        ),
        t._(
            "The other 18 cards are <b>plain</b>: spades, hearts and diamonds without their "
            "jacks and queens, ranked 7 8 9 K 10 A from low to high."
        ),
        t._(
            "<b>Tricks:</b> the dealer leads the first trick, then the winner of each trick "
            "leads the next. Everyone plays one card, clockwise. Follow the plain suit led if "
            "you can (queens and jacks are trumps, not part of their suit); if a trump was "
            "led, play a trump if you can; otherwise play any card. The highest trump takes "
            "the trick, or if there is none, the highest card of the suit led."
        ),
        t._(
            "<b>No trump leads:</b> the leader must lead a plain card. A leader holding only "
            "trumps hands the partner a trump of the leader's choice, gets back a plain card "
            "of the partner's choice and leads it. Only if neither of them has a plain card "
            "may a trump be led."
        ),
        t._(
            "<b>Queen caught:</b> when the Q♣ and the 7♣ fall in the same trick, played by "
            "opposing teams, the deal ends at once. Nothing is counted; the team that played "
            "the Q♣ gets 4 defeat points."
        ),
        _drawing(t),
        _card_points(t),
        t._(
            "<b>Scoring:</b> the team with 61 or more card points wins the deal and the other "
            "team gets 2 defeat points. At 60:60 nobody gets any."
        ),
        _team_match(t, variant),
    ]


def _street(t: Translator, variant: Variant) -> list[str]:
    return [
        _teams(t),
        _deck(t, variant),
        t._(
            "<b>Trump:</b> after the deal a card from the middle of the stock is shown to "
            "everyone and left in place; its suit is trump for the whole deal."
        ),
        _rank(t),
        t._(
            "<b>Leading:</b> in the first deal the player after the dealer leads; in every "
            "later deal, whoever took the last trick of the deal before. After that, the winner "
            "of each trick leads the next."
        ),
        _lead(t),
        _answer(t),
        t._(
            "<b>Molodka:</b> four cards of one suit in hand. They may be led at any moment, even "
            "out of turn, until the trick is complete: the cards already played go back to "
            "their owners, the molodka is the new lead and everyone else answers it. Only a "
            "molodka of a player nearer (clockwise) to the one who was due to lead can "
            "override it."
        ),
        _drawing(t),
        _card_points(t),
        t._(
            "<b>Scoring:</b> the team with 61 or more card points wins the deal. The other team "
            "gets 2 defeat points with 31–59, 4 with 30 or fewer, 6 if it took no trick."
        ),
        t._(
            "<b>Eggs:</b> at 60:60 nobody gets defeat points, but the team that loses a match "
            "in which eggs fell is the goat with eggs."
        ),
        _team_match(t, variant),
    ]


def _moscow(t: Translator, variant: Variant) -> list[str]:
    return [
        t._(
            "<b>Players:</b> two, three or four. Four play in two teams, partners sitting "
            "opposite each other; otherwise everyone plays for themselves."
        ),
        _deck(t, variant),
        t._(
            "<b>Trump:</b> after the deal the next card is turned face up and put under the "
            "stock; its suit is trump for the deal, and that card is drawn last."
        ),
        _rank(t),
        t._(
            "<b>The 6♠</b> is the highest card of all: it beats every card, trumps included, "
            "and nothing beats it. It counts as a spade and is worth 0 points."
        ),
        t._(
            "<b>Leading:</b> the player after the dealer leads the first trick, then the winner "
            "of each trick leads the next. Whoever has the most card points deals next."
        ),
        _lead(t),
        _answer(t),
        t._(
            "<b>Special leads</b> — four cards in hand, led at any moment, even out of turn, "
            "until the trick is complete (the cards already played go back):\n"
            "• <b>Moscow</b>: aces, tens and the 6♠ only, at least one of them an ace;\n"
            "• <b>Molodka</b>: four cards of one suit, or three of one suit and the 6♠.\n"
            "A Moscow overrides a Molodka, never the other way round; a special of the same "
            "kind is overridden only by a player nearer (clockwise) to the one who was due "
            "to lead."
        ),
        _drawing(t),
        _card_points(t),
        t._(
            "<b>Scoring, two sides</b> (two players or two teams): the side with more card "
            "points gets nothing; the other gets 2 defeat points with 31 or more, 4 with 30 "
            "or fewer, 6 if it took no trick. At 60:60, <i>eggs</i>, both get 2."
        ),
        t._(
            "<b>Scoring, three players:</b> the one with the most card points gets nothing (if "
            "two or three tie for the most, each of them gets 2); every other player gets 2 "
            "with 21 or more, 4 with 20 or fewer, 6 if they took no trick."
        ),
        # TRANSLATORS: {n} is the number of defeat points that puts a side out (12).
        t.n_(
            "<b>Match:</b> after each deal, a side that has reached {n} defeat point is out "
            "— unless that would put out everyone left: then only the one with the most is out "
            "(on a tie, nobody). With two sides, the one out loses: it is the goat. With three "
            "players, the other two play on until one is left, the winner.",
            "<b>Match:</b> after each deal, a side that has reached {n} defeat points is out "
            "— unless that would put out everyone left: then only the one with the most is out "
            "(on a tie, nobody). With two sides, the one out loses: it is the goat. With three "
            "players, the other two play on until one is left, the winner.",
            variant.out_at,
        ),
    ]
