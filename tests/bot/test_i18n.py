"""Translations: catalogs complete and well-formed, the template up to date, the runtime
loader, the rules texts, and a source scan for user-facing text that skips translation.

When a catalog test fails after new bot strings were added, the fix is usually:

    python -m bot.catalogs extract && python -m bot.catalogs update  # then translate the new
    python -m bot.catalogs check                                     # lists what is missing
"""

from __future__ import annotations

import ast
import functools
import gettext
import io
import re
import string
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot import catalogs, i18n
from bot.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGE_NAMES,
    LANGUAGES,
    N_,
    PLURAL_FORMS,
    SOURCE_LANGUAGE,
    get_translator,
    negotiate,
)
from bot.render.rules_text import rules_text, suit_name, variant_name, variant_summary
from kozel_rules.variant import VARIANTS

ROOT = catalogs.ROOT
LOCALES = ROOT / "locales"
TEMPLATE = ROOT / catalogs.TEMPLATE
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE)

# Telegram refuses messages over 4096 characters; the rules leave room for a header.
TELEGRAM_LIMIT = 4096
RULES_BUDGET = 3500
SUMMARY_BUDGET = 80

MessageKey = catalogs.MessageKey


@pytest.fixture(autouse=True)
def _default_catalogs(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test sees the repository's catalogs and a fresh translator cache."""
    monkeypatch.delenv(i18n.LOCALES_ENV, raising=False)
    i18n.clear_cache()
    yield
    i18n.clear_cache()


@functools.cache
def _read(path: Path, lang: str | None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=lang, abort_invalid=True)


def catalog(lang: str) -> Catalog:
    """The catalog as stored (cached: do not modify)."""
    return _read(i18n.catalog_path(lang, LOCALES), lang)


def template() -> Catalog:
    return _read(TEMPLATE, None)


def keys(cat: Catalog) -> set[MessageKey]:
    return {catalogs.message_key(m.id, m.context) for m in cat if m.id}


def ids_of(message: Message) -> list[str]:
    return [message.id] if isinstance(message.id, str) else list(message.id)


def strings_of(message: Message) -> list[str]:
    if isinstance(message.string, str):
        return [message.string]
    return list(message.string or ())


def entries(lang: str) -> list[Message]:
    return [m for m in catalog(lang) if m.id]


def short(items: list[str], limit: int = 15) -> str:
    more = f"\n  … and {len(items) - limit} more" if len(items) > limit else ""
    return "\n  " + "\n  ".join(items[:limit]) + more


def fields(text: str) -> Counter[str]:
    """The ``str.format`` fields of ``text`` as written, with their counts."""
    found: Counter[str] = Counter()
    for _literal, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            found[
                f"{{{name}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}}"
            ] += 1
    return found


TAG = re.compile(r"</?([a-zA-Z][a-zA-Z0-9-]*)(?:\s[^<>]*)?>")
ENTITY = re.compile(r"&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);")


def tags(text: str) -> Counter[str]:
    return Counter(m.group(0).split()[0].rstrip(">") + ">" for m in TAG.finditer(text))


def stray_markup(text: str) -> Counter[str]:
    """``<``, ``>`` and ``&`` that are not part of a tag or an entity."""
    bare = ENTITY.sub("", TAG.sub("", text))
    return Counter(c for c in bare if c in "<>&")


def balanced(text: str) -> bool:
    stack: list[str] = []
    for m in TAG.finditer(text):
        name = m.group(1).lower()
        if m.group(0).startswith("</"):
            if not stack or stack.pop() != name:
                return False
        else:
            stack.append(name)
    return not stack


# --- the catalogs ----------------------------------------------------------------------------


def test_languages_and_names() -> None:
    assert set(LANGUAGE_NAMES) == set(LANGUAGES)
    assert DEFAULT_LANGUAGE in LANGUAGES and SOURCE_LANGUAGE in LANGUAGES
    assert set(PLURAL_FORMS) == set(LANGUAGES)
    assert LANGUAGE_NAMES["ru"] == "Русский" and LANGUAGE_NAMES["ja"] == "日本語"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalog_exists(lang: str) -> None:
    assert i18n.catalog_path(lang, LOCALES).is_file(), f"run: pybabel init -l {lang} (CONTRIBUTING)"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalog_has_every_template_message(lang: str) -> None:
    expected, present = keys(template()), keys(catalog(lang))
    missing = sorted(repr(k[0]) for k in expected - present)
    stale = sorted(repr(k[0]) for k in present - expected)
    assert not missing, (
        f"{lang}: not in the catalog (python -m bot.catalogs update):{short(missing)}"
    )
    assert not stale, (
        f"{lang}: no longer in the template (python -m bot.catalogs update):{short(stale)}"
    )


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated(lang: str) -> None:
    untranslated = [
        repr(ids_of(m)[0])
        for m in entries(lang)
        if m.fuzzy or not strings_of(m) or not all(s.strip() for s in strings_of(m))
    ]
    assert not untranslated, (
        f"{lang}: {len(untranslated)} untranslated or fuzzy message(s):{short(untranslated)}"
    )


@pytest.mark.parametrize("lang", TRANSLATED)
def test_plural_entries_have_every_form(lang: str) -> None:
    wrong = [
        f"{ids_of(m)[0]!r}: {len(strings_of(m))} forms"
        for m in entries(lang)
        if m.pluralizable and len(strings_of(m)) != PLURAL_FORMS[lang]
    ]
    assert not wrong, f"{lang}: plural entries need {PLURAL_FORMS[lang]} forms:{short(wrong)}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_placeholders_are_kept(lang: str) -> None:
    """Each translation (each plural form) has exactly the source's fields; for plurals,
    those of the plural msgid (a form may serve 21 as well as 1, so it needs ``{n}``)."""
    wrong = []
    for m in entries(lang):
        expected = fields(ids_of(m)[-1])
        for text in filter(None, strings_of(m)):
            try:
                got = fields(text)
            except ValueError as e:
                wrong.append(f"{text!r}: not a format string ({e})")
                continue
            if got.keys() != expected.keys():
                wrong.append(f"{ids_of(m)[0]!r} -> {text!r}: {dict(got)} != {dict(expected)}")
    assert not wrong, f"{lang}: placeholders differ:{short(wrong)}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_markup_is_kept(lang: str) -> None:
    """Telegram rejects a whole HTML message over one broken tag, so translations keep the
    source's tags, nest them properly and add no bare ``<``, ``>`` or ``&``."""
    wrong = []
    for m in entries(lang):
        source = ids_of(m)[-1]
        for text in filter(None, strings_of(m)):
            if tags(text) != tags(source) or not balanced(text):
                wrong.append(f"{text!r}: tags {dict(tags(text))} vs {dict(tags(source))}")
            elif stray_markup(text) - stray_markup(source):
                wrong.append(f"{text!r}: bare < > or & (write &lt; &gt; &amp;)")
    assert not wrong, f"{lang}:{short(wrong)}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalog_compiles(lang: str) -> None:
    cat = _read(i18n.catalog_path(lang, LOCALES), lang)
    errors = [f"{m.id!r}: {', '.join(map(str, errs))}" for m, errs in cat.check()]
    assert not errors, f"{lang}: {short(errors)}"
    buffer = io.BytesIO()
    write_mo(buffer, cat)
    buffer.seek(0)
    compiled = gettext.GNUTranslations(buffer)
    assert compiled.info()["language"] == lang


# Expected plural form index by n, per plural rule family.
SLAVIC = {0: 2, 1: 0, 2: 1, 3: 1, 4: 1, 5: 2, 11: 2, 12: 2, 14: 2, 21: 0, 22: 1, 25: 2, 101: 0}
SLAVIC |= {111: 2, 112: 2, 122: 1}
GERMANIC = {0: 1, 1: 0, 2: 1, 5: 1, 11: 1, 21: 1, 101: 1}
EXPECTED_FORM: dict[str, dict[int, int]] = {
    "en": GERMANIC,
    "de": GERMANIC,
    "da": GERMANIC,
    "ru": SLAVIC,
    "uk": SLAVIC,
    "be": SLAVIC,
    "ja": dict.fromkeys(SLAVIC, 0),
}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_plural_forms_header(lang: str) -> None:
    cat = catalog(lang)
    assert cat.num_plurals == PLURAL_FORMS[lang]
    rule = gettext.c2py(cat.plural_expr)
    assert {n: rule(n) for n in EXPECTED_FORM[lang]} == EXPECTED_FORM[lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_ngettext_picks_the_right_form(lang: str) -> None:
    """Through the runtime loader: every translated plural entry gives the form the
    language's rule calls for (English, without a catalog: singular only for 1)."""
    t = get_translator(lang)
    if lang == SOURCE_LANGUAGE:
        for n, form in EXPECTED_FORM[lang].items():
            assert t.ngettext("one", "many", n) == ("one", "many")[form]
        return
    plurals = [m for m in entries(lang) if m.pluralizable and all(strings_of(m)) and not m.fuzzy]
    assert plurals or lang not in TRANSLATED
    for m in plurals:
        singular, plural = ids_of(m)
        for n, form in EXPECTED_FORM[lang].items():
            assert t.ngettext(singular, plural, n) == strings_of(m)[form], (lang, singular, n)


def test_russian_plural_example() -> None:
    t = get_translator("ru")
    one = "<b>Deck:</b> {n} card, from {low} up to the ace."
    many = "<b>Deck:</b> {n} cards, from {low} up to the ace."
    words = {n: t.n_(one, many, n, low=6).split()[2] for n in (1, 2, 5, 21, 32, 36)}
    assert words == {1: "карта,", 2: "карты,", 5: "карт,", 21: "карта,", 32: "карты,", 36: "карт,"}
    ja = get_translator("ja").n_(one, many, 36, low=6)
    assert ja == "<b>デッキ：</b>6からエースまでの36枚。"


def test_template_is_up_to_date(tmp_path: Path) -> None:
    """Re-extract with the real command; a difference means someone added, changed or
    removed a string without running ``python -m bot.catalogs extract``."""
    fresh = tmp_path / "messages.pot"
    assert catalogs.extract(fresh, quiet=True) == 0
    with fresh.open("rb") as f:
        extracted = keys(read_po(f))
    stored = keys(template())
    not_extracted = sorted(repr(k[0]) for k in extracted - stored)
    gone = sorted(repr(k[0]) for k in stored - extracted)
    assert not not_extracted, (
        f"not in messages.pot (python -m bot.catalogs extract):{short(not_extracted)}"
    )
    assert not gone, f"in messages.pot but gone from the source (extract again):{short(gone)}"
    assert catalogs.extract_keys() == extracted  # `check` sees what the command writes


def test_template_marks_brace_format() -> None:
    for m in template():
        if m.id and any(fields(i) for i in ids_of(m)):
            assert "python-brace-format" in m.flags, m.id


# --- the catalog tool ------------------------------------------------------------------------


def test_translation_problems_reports_each_kind() -> None:
    cat = Catalog(locale="ru")
    cat.add("Saved.", "Сохранено.")
    cat.add("Hello {name}", "Привет, {nmae}")
    cat.add("Fuzzy", "Пушистый", flags=["fuzzy"])
    cat.add("Empty", "")
    cat.add(("{n} card", "{n} cards"), ("{n} карта", "", "{n} карт"))
    cat.add("Stale", "Старое")
    template_keys = {catalogs.message_key(i, None) for i in ("Saved.", "Hello {name}", "Fuzzy")}
    template_keys |= {catalogs.message_key(i, None) for i in ("Empty", "New")}
    template_keys.add(catalogs.message_key(("{n} card", "{n} cards"), None))
    problems = "\n".join(catalogs.translation_problems(cat, template_keys))
    assert "missing (run update): 'New'" in problems
    assert "stale (run update): 'Stale'" in problems
    assert "placeholders differ: 'Hello {name}'" in problems
    assert "fuzzy: 'Fuzzy'" in problems
    assert "untranslated: 'Empty'" in problems
    assert "untranslated: '{n} card'" in problems
    assert "Saved." not in problems


# --- language choice and the runtime loader --------------------------------------------------


@pytest.mark.parametrize(
    ("code", "lang"),
    [
        ("ru", "ru"),
        ("RU", "ru"),
        ("ru-RU", "ru"),
        ("uk", "uk"),
        ("be", "be"),
        ("be-tarask", "be"),
        ("de-AT", "de"),
        ("de_CH", "de"),
        ("da", "da"),
        ("ja-JP", "ja"),
        (" en-GB ", "en"),
        ("pt-br", "en"),
        ("zh-hans", "en"),
        ("ua", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_negotiate(code: str | None, lang: str) -> None:
    assert negotiate(code) == lang


def test_get_translator_is_cached_and_falls_back_to_english() -> None:
    assert get_translator("de") is get_translator("de-AT")
    assert get_translator("de").lang == "de"
    assert get_translator("xx").lang == "en" and get_translator(None).lang == "en"
    assert get_translator("pt-br") is get_translator("en")


def test_translator_formats() -> None:
    en = get_translator("en")
    assert en._("Trump: {suit}") == "Trump: {suit}"  # no kwargs: returned as is
    assert en._("Trump: {suit}", suit="♥") == "Trump: ♥"
    assert en.n_("{n} trick", "{n} tricks", 1) == "1 trick"
    assert en.n_("{n} trick of {name}", "{n} tricks of {name}", 3, name="Ann") == "3 tricks of Ann"
    assert get_translator("de")._("hearts") == "Herz"
    assert repr(get_translator("ja")) == "Translator('ja')"
    with pytest.raises(KeyError):
        en._("Trump: {suit}", colour="red")  # the source itself is broken: a bug, raise
    assert N_("spades") == "spades"


def _write_po(directory: Path, lang: str, body: str) -> None:
    path = i18n.catalog_path(lang, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = (
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n'
        f'"Language: {lang}\\n"\n'
        '"Plural-Forms: nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && '
        'n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\\n"\n\n'
    )
    path.write_text(header + body, encoding="utf-8")


def test_loader_skips_fuzzy_and_incomplete_and_survives_bad_translations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _write_po(
        tmp_path,
        "ru",
        '#, fuzzy\nmsgid "Saved."\nmsgstr "Сохранено?"\n\n'
        'msgid "Start"\nmsgstr "Начать"\n\n'
        'msgid "Hello {name}"\nmsgstr "Привет, {nmae}"\n\n'
        'msgid "{n} card"\nmsgid_plural "{n} cards"\n'
        'msgstr[0] "{n} карта"\nmsgstr[1] ""\nmsgstr[2] "{n} карт"\n\n'
        'msgid "{n} trick"\nmsgid_plural "{n} tricks"\n'
        'msgstr[0] "{n} взятка"\nmsgstr[1] "{n} взятки"\nmsgstr[2] "{n} взяток"\n',
    )
    monkeypatch.setenv(i18n.LOCALES_ENV, str(tmp_path))
    i18n.clear_cache()
    t = get_translator("ru")
    assert t._("Start") == "Начать"
    assert t._("Saved.") == "Saved."  # fuzzy: not used
    assert t.n_("{n} card", "{n} cards", 2) == "2 cards"  # incomplete: all English
    assert [t.n_("{n} trick", "{n} tricks", n) for n in (1, 3, 5)] == [
        "1 взятка",
        "3 взятки",
        "5 взяток",
    ]
    assert t._("Hello {name}", name="Ann") == "Hello Ann"  # broken translation: English
    assert "bad placeholders" in caplog.text
    assert get_translator("de")._("Start") == "Start"  # no catalog there: English
    assert "no de catalog" in caplog.text


def test_loader_survives_a_broken_catalog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _write_po(tmp_path, "uk", 'msgid "Start"\nmsgstr "Почати"\nnot a po line\n')
    monkeypatch.setenv(i18n.LOCALES_ENV, str(tmp_path))
    i18n.clear_cache()
    assert get_translator("uk")._("Start") == "Start"
    assert "cannot load the uk catalog" in caplog.text


def test_a_compiled_catalog_is_kept_until_the_catalog_changes(tmp_path: Path) -> None:
    _write_po(
        tmp_path, "ru", 'msgid "Start"\nmsgstr "Начать"\n\n#, fuzzy\nmsgid "Saved."\nmsgstr "?"\n'
    )
    cache = i18n.catalog_path("ru", tmp_path).parent / "__pycache__"
    assert i18n.load_translations("ru", tmp_path).gettext("Start") == "Начать"
    (kept,) = cache.glob("messages.*.mo")
    # The next start reads what was kept (shown here by changing it) and parses nothing.
    other = Catalog(locale="ru")
    other.add("Start", "Поехали")
    with kept.open("wb") as f:
        write_mo(f, other)
    assert i18n.load_translations("ru", tmp_path).gettext("Start") == "Поехали"
    # An edited catalog is compiled again (fuzzy entries still left out); one copy is kept.
    _write_po(
        tmp_path, "ru", 'msgid "Start"\nmsgstr "Старт"\n\n#, fuzzy\nmsgid "Saved."\nmsgstr "?"\n'
    )
    again = i18n.load_translations("ru", tmp_path)
    assert (again.gettext("Start"), again.gettext("Saved.")) == ("Старт", "Saved.")
    assert [p.name for p in cache.glob("messages.*")] != [kept.name]
    assert len(list(cache.iterdir())) == 1


def test_nothing_is_loaded_at_import() -> None:
    code = (
        "import sys, bot.i18n, bot.render.rules_text\n"
        "assert 'babel.messages.pofile' not in sys.modules, 'babel imported at import time'\n"
        "assert bot.i18n._translator.cache_info().currsize == 0\n"
        "t = bot.i18n.get_translator('uk')\n"
        "assert bot.i18n._translator.cache_info().currsize == 1\n"
        "assert t._('Start') == 'Почати'\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    # Compiled once (above, or by any earlier start), a catalog is read from its cache: the
    # next process needs no Babel at all.
    code = (
        "import sys, bot.i18n\n"
        "assert bot.i18n.get_translator('uk')._('Start') == 'Почати'\n"
        "assert 'babel.messages.pofile' not in sys.modules, 'babel imported for a cached catalog'\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# --- rules texts and names -------------------------------------------------------------------


def paragraphs(text: str) -> list[str]:
    return text.split("\n\n")


def has_words(text: str) -> bool:
    return any(c.isalpha() for c in ENTITY.sub("", TAG.sub("", text)))


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", VARIANTS)
def test_rules_text(lang: str, name: str) -> None:
    t = get_translator(lang)
    variant = VARIANTS[name]
    text = rules_text(t, variant)
    assert len(text) < RULES_BUDGET < TELEGRAM_LIMIT, (lang, variant, len(text))
    assert set(tags(text)) <= {"<b>", "</b>", "<i>", "</i>"} and balanced(text)
    assert not stray_markup(text)
    assert "{" not in text and "}" not in text
    assert variant_name(t, variant) in text
    if lang != SOURCE_LANGUAGE:
        english = set(paragraphs(rules_text(get_translator("en"), variant)))
        untranslated = [p for p in paragraphs(text) if p in english and has_words(p)]
        assert not untranslated, (
            f"{lang}: English left in the {variant} rules:{short(untranslated)}"
        )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_names_and_summaries(lang: str) -> None:
    t = get_translator(lang)
    names = [variant_name(t, v) for v in VARIANTS.values()]
    summaries = [variant_summary(t, v) for v in VARIANTS.values()]
    assert len(set(names)) == len(VARIANTS) and all(names)
    for summary in summaries:
        assert summary and "\n" not in summary and len(summary) <= SUMMARY_BUDGET, summary
        assert not tags(summary) and not stray_markup(summary)
    suits = [suit_name(t, s) for s in "♠♥♦♣"]
    assert len(set(suits)) == 4 and all(suits)
    if lang != SOURCE_LANGUAGE:
        en = get_translator("en")
        assert names != [variant_name(en, v) for v in VARIANTS.values()]
        assert suits != [suit_name(en, s) for s in "♠♥♦♣"]


def test_unknown_variant_and_suit() -> None:
    t = get_translator("en")
    for function in (rules_text, variant_name, variant_summary):
        with pytest.raises(ValueError, match="unknown variant"):
            function(t, "poker")
    with pytest.raises(ValueError, match="not a suit"):
        suit_name(t, "x")
    assert suit_name(get_translator("ru"), "♥") == "червы"


# --- user-facing text that skips translation -------------------------------------------------
#
# Flagged: a string literal with letters in it (after removing {fields}, HTML tags and
# entities) that reaches a message text, a button text or a command description without
# going through t._ / t.n_ / N_:
#   - anywhere in bot/ (handlers, services, the app builder, ...): the text argument
#     (positional, or text=/caption=/description=) of a known sink: reply_text,
#     send_message, edit_message_text, answer, InlineKeyboardButton, BotCommand, ...,
#     and the bot's own Button, Reply and Screen(.of);
#   - in bot/render* (a module or a package): also whatever a function returns or yields,
#     assigns to a local name or appends to a list.
# A literal counts when it is (part of) that value directly, through + or an f-string, a
# conditional, a list, a dict value, or join/format/escape; the arguments of other calls are
# data (callback ops, keys) and are not looked at.
# Symbols and format strings ("✅", "·", "{a} {b}", "<b>{x}</b>") pass. A literal that is
# deliberately not translated is marked with a trailing "# i18n: ignore" on its line.
# Everywhere in bot/, a msgid must be a literal: t._(f"...") or t._("..." + x) cannot be
# extracted and is flagged too.

TRANSLATION_CALLS = frozenset({"_", "n_", "N_", "gettext", "ngettext", "pgettext", "npgettext"})
MSGID_ARGS = {"_": 1, "N_": 1, "gettext": 1, "n_": 2, "ngettext": 2}
# Callables that take user-facing text -> the index of the text among their positional
# arguments (None: keyword only). Their text=/caption=/description= keywords count too.
TEXT_SINKS: dict[str, int | None] = {
    "reply_text": 0,
    "reply_html": 0,
    "send_message": 1,
    "edit_message_text": 0,
    "edit_text": 0,
    "edit_caption": 0,
    "edit_message_caption": None,
    "send_photo": None,
    "send_document": None,
    "answer": 0,
    "answer_callback_query": 1,
    "InlineKeyboardButton": 0,
    "KeyboardButton": 0,
    "BotCommand": 1,
    "Button": 0,
    "Reply": 0,
    "Screen": 0,
    "of": 0,  # Screen.of(text, rows)
}
TEXT_KEYWORDS = frozenset({"text", "caption", "description"})
# Calls whose arguments end up in their result's text.
PASS_THROUGH = frozenset({"join", "format", "format_map", "escape", "str"})
IGNORE = "# i18n: ignore"
FIELD = re.compile(r"\{[^{}]*\}")


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _has_letters(literal: str) -> bool:
    return has_words(FIELD.sub("", literal))


def untranslated_literals(node: ast.AST) -> Iterator[ast.Constant]:
    """String constants with letters that reach the value of ``node`` untranslated."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str) and _has_letters(node.value):
            yield node
    elif isinstance(node, ast.Call):
        name = _name(node.func)
        if name in TRANSLATION_CALLS or name in TEXT_SINKS:
            return  # translated, or a sink: checked on its own
        yield from untranslated_literals(node.func)  # "...".format(...), ", ".join(...)
        if name in PASS_THROUGH:  # other calls take data (callback ops, keys, ...)
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                yield from untranslated_literals(arg)
    elif isinstance(node, ast.JoinedStr):
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                yield from untranslated_literals(value.value)  # not the format spec
            else:
                yield from untranslated_literals(value)
    elif isinstance(node, ast.Attribute):
        yield from untranslated_literals(node.value)
    elif isinstance(node, ast.IfExp):
        yield from untranslated_literals(node.body)
        yield from untranslated_literals(node.orelse)
    elif isinstance(node, ast.Subscript):
        yield from untranslated_literals(node.value)
    elif isinstance(node, ast.Dict):
        for value in node.values:
            yield from untranslated_literals(value)
    elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
        yield from untranslated_literals(node.elt)
    elif isinstance(node, ast.BinOp | ast.BoolOp | ast.List | ast.Tuple | ast.Set | ast.Starred):
        for child in ast.iter_child_nodes(node):
            yield from untranslated_literals(child)


def text_arguments(call: ast.Call) -> Iterator[ast.expr]:
    name = _name(call.func) or ""
    if name not in TEXT_SINKS:
        return
    index = TEXT_SINKS[name]
    if index is not None and len(call.args) > index:
        yield call.args[index]
    for keyword in call.keywords:
        if keyword.arg in TEXT_KEYWORDS:
            yield keyword.value


def bad_msgids(tree: ast.AST) -> Iterator[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (count := MSGID_ARGS.get(_name(node.func) or "")):
            for arg in node.args[:count]:
                if isinstance(arg, ast.JoinedStr | ast.BinOp | ast.Call):
                    yield arg


def rendered_values(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.expr]:
    """What a render function builds its text from: what it returns or yields, what it
    assigns to local names, and what it appends to lists."""
    for node in ast.walk(function):
        values = (ast.Return, ast.Yield, ast.Assign, ast.AugAssign, ast.AnnAssign)
        if isinstance(node, values) and node.value is not None:
            yield node.value
        elif isinstance(node, ast.Call) and _name(node.func) in ("append", "extend", "insert"):
            yield from node.args[-1:]


def scan_source(source: str, *, is_render: bool) -> list[tuple[int, str]]:
    """(line, text) of every user-facing literal that bypasses translation."""
    tree = ast.parse(source)
    lines = source.splitlines()
    found: list[ast.expr] = list(bad_msgids(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for arg in text_arguments(node):
                found += untranslated_literals(arg)
        elif is_render and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for value in rendered_values(node):
                found += untranslated_literals(value)
    report = set()
    for node in found:
        start, end = node.lineno, node.end_lineno or node.lineno
        if not any(IGNORE in lines[i - 1] for i in range(start, end + 1)):
            report.add((start, ast.unparse(node)))
    return sorted(report)


def bot_modules() -> list[Path]:
    return sorted((ROOT / "bot").rglob("*.py"))


def test_user_facing_text_goes_through_translation() -> None:
    problems = []
    for path in bot_modules():
        is_render = path.relative_to(ROOT / "bot").parts[0].startswith("render")
        for line, text in scan_source(path.read_text(encoding="utf-8"), is_render=is_render):
            problems.append(f"{path.relative_to(ROOT)}:{line}: {text}")
    assert not problems, f"untranslated text (wrap it in t._ / t.n_):{short(problems, 30)}"


def test_msgids_are_literals_everywhere() -> None:
    problems = []
    for path in bot_modules():
        for node in bad_msgids(ast.parse(path.read_text(encoding="utf-8"))):
            problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert not problems, f"msgids must be string literals to be extracted:{short(problems)}"


SCANNER_CASES = [
    ('await update.message.reply_text("Hello!")', True),
    ('await bot.send_message(chat_id, "Your turn")', True),
    ('await bot.send_message(chat_id=c, text=f"Your turn, {name}")', True),
    ('await query.answer("Saved.", show_alert=True)', True),
    ('InlineKeyboardButton("Join", callback_data="v1:1:2:join")', True),
    ('BotCommand("newgame", "open a table")', True),
    ('Reply("Hello " + name)', True),
    ('Button(text="Start " + "▶️", data="x")', True),
    ('Screen.of("Trump: {suit}".format(suit=s))', True),
    ('reply_text(t._(f"Hello {name}"))', True),
    ('reply_text(t._("Hello " + name))', True),
    ('await update.message.reply_text(t._("Hello!"))', False),
    ('await bot.send_message(chat_id, t.n_("{n} trick", "{n} tricks", n))', False),
    ('InlineKeyboardButton("✅ " + t._("Join"), callback_data="v1:1:2:join")', False),
    ('BotCommand("newgame", t._("open a table"))', False),
    ("Reply(t._(NAMES[variant]))", False),
    ('Button(f"<b>{name}</b> · {cards}", data)', False),
    ('Screen.of("\\n".join(lines), rows)', False),
    ('reply_text("{a} {b}".format(a=x, b=y))', False),
    ('reply_text("✅" if done else "·")', False),
    ('reply_text(text if mode == "lead" else other)', False),
    ('Reply("Hello!")  # i18n: ignore', False),
    ('await bot.send_photo(chat_id, photo, caption="The table")', True),
    ('LogEntry(kind="back", text="match over")', False),
    ('reply_text(escape("Hello"))', True),
    ('reply_text(", ".join(["Hello", name]))', True),
    ('reply_text("{a}".format(a="Hello"))', True),
    ('Reply(text=cb("join"))', False),
    ('log.info("Hello %s", name)', False),
    ("card = Card.of(Rank.TEN, Suit.CLUBS)", False),
]


@pytest.mark.parametrize(("source", "flagged"), SCANNER_CASES)
def test_scanner(source: str, flagged: bool) -> None:
    assert bool(scan_source(source, is_render=False)) is flagged


def test_scanner_checks_what_render_functions_return() -> None:
    source = (
        "def title(t):\n    return 'Kozel — ' + t._('new table')\n"
        "def mark(x):\n    return '✅' if x else f'({x})'\n"
        "def names(t):\n    yield t._('Join')\n    yield 'Leave'\n"
        "def screen(t, rows):\n"
        "    lines = ['<b>' + 'Seats' + '</b>', t._('Trump')]\n"
        "    lines.append('Waiting…')\n"
        "    text = '🐐 ' + t._('Kozel')\n"
        "    rows.append([Button('✋ ' + t._('Join'), cb('join'))])\n"
        "    return Screen.of('\\n'.join(lines), rows)\n"
    )
    assert [line for line, _ in scan_source(source, is_render=True)] == [2, 7, 9, 10]
    assert scan_source(source, is_render=False) == []
