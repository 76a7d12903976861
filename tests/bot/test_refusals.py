"""Every refusal names its reason: each engine rule and each of the bot's own reasons has a
text of its own, translated in every catalog."""

from __future__ import annotations

import pytest
from babel.messages.pofile import read_po

from bot.i18n import LANGUAGES, SOURCE_LANGUAGE, catalog_path, get_translator
from bot.render.labels import card_label
from bot.render.refusals import REFUSED_TEXTS, RULE_TEXTS, Refused, refusal_text
from kozel_rules.card import Card
from kozel_rules.errors import Rule

TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]


def test_every_rule_and_every_reason_has_a_text_of_its_own() -> None:
    assert set(RULE_TEXTS) == set(Rule)
    assert set(REFUSED_TEXTS) == set(Refused)
    texts = [*RULE_TEXTS.values(), *REFUSED_TEXTS.values()]
    assert len(set(texts)) == len(texts)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_reason_is_translated_in_every_catalog(lang: str) -> None:
    with catalog_path(lang).open("rb") as f:
        catalog = read_po(f, locale=lang)
    t = get_translator(lang)
    for reason in (*Rule, *Refused):
        msgid = RULE_TEXTS[reason] if isinstance(reason, Rule) else REFUSED_TEXTS[reason]
        message = catalog.get(msgid)
        assert message is not None, f"{lang}: no entry for {reason}"
        assert message.string and not message.fuzzy, f"{lang}: {reason} is not translated"
        said = refusal_text(t, reason, Card.parse("K♦"))
        assert said != refusal_text(get_translator("en"), reason, Card.parse("K♦"))
        assert said == message.string.format(card=card_label(t, Card.parse("K♦")))


def test_a_refusal_of_a_card_names_the_card_in_the_readers_letters() -> None:
    t = get_translator("en")
    assert refusal_text(t, Refused.CANNOT_NOW, Card.parse("K♦")) == "K♦ cannot be played now."
    assert refusal_text(t, Rule.MUST_FOLLOW_SUIT) == "You must follow the suit that was led."
    ru = get_translator("ru")
    assert refusal_text(ru, Refused.CANNOT_NOW, Card.parse("Q♦")).startswith("Д♦ ")
