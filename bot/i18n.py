"""Translations for the bot: language choice, gettext catalogs, and the catalog tools.

Every user-facing string goes through a :class:`Translator`::

    t = get_translator(user_language)          # "ru", "de-AT", None, ...
    t._("Trump: {suit}", suit=suit)            # gettext, then str.format(**kwargs)
    t.n_("{n} trick", "{n} tricks", n)         # ngettext; {n} is filled in for you

Placeholders are ``str.format`` named fields. A message formatted with keyword arguments
must write a literal brace as ``{{``/``}}``; without keyword arguments it is returned as is.
Strings that live in tables are marked with :func:`N_` (extracted, not translated) and
translated where they are used: ``t._(SUIT_NAMES[suit])``.

Catalogs are the ``.po`` files in ``locales/<lang>/LC_MESSAGES/messages.po`` (override the
directory with the ``KOZEL_LOCALES`` environment variable). They are read with Babel and
compiled in memory the first time a language is asked for, so a fresh checkout needs no
build step; fuzzy and incomplete entries are left out and fall back to English. English is
the source language and has no catalog: the msgids are the English text.

Maintainers' tools (see ``locales/README.md``)::

    python -m bot.i18n extract   # source -> locales/messages.pot
    python -m bot.i18n update    # messages.pot -> every locales/<lang>/LC_MESSAGES/messages.po
    python -m bot.i18n check     # is everything extracted, translated, well-formed and compilable?
"""

from __future__ import annotations

import argparse
import functools
import gettext
import io
import logging
import os
import string
import sys
from collections.abc import Iterable, Sequence
from contextlib import chdir
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

log = logging.getLogger(__name__)

LANGUAGES: tuple[str, ...] = ("en", "ru", "uk", "be", "de", "da", "ja")

# Native names, for the /language menu.
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "ru": "Русский",
    "uk": "Українська",
    "be": "Беларуская",
    "de": "Deutsch",
    "da": "Dansk",
    "ja": "日本語",
}

DEFAULT_LANGUAGE = "en"

# The source language: its text is the msgids themselves, no catalog needed.
SOURCE_LANGUAGE = "en"

# Number of plural forms each language's catalog must declare.
PLURAL_FORMS: dict[str, int] = {"en": 2, "ru": 3, "uk": 3, "be": 3, "de": 2, "da": 2, "ja": 1}

LOCALES_ENV = "KOZEL_LOCALES"
DOMAIN = "messages"

REPO_ROOT = Path(__file__).resolve().parent.parent
SOURCE_DIR = "bot"  # relative to REPO_ROOT: where strings are extracted from
MAPPING_FILE = "babel.cfg"
TEMPLATE = "locales/messages.pot"

# Extraction keywords on top of Babel's defaults (which already include _, N_, gettext, ...):
# ``n_`` takes the singular and the plural as its first two arguments.
EXTRACT_KEYWORDS: tuple[str, ...] = ("_", "n_:1,2", "N_")
COMMENT_TAG = "TRANSLATORS:"


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it (for tables of strings)."""
    return message


def negotiate(code: str | None) -> str:
    """Map a Telegram ``language_code`` (an IETF tag such as ``"de-AT"``) to a supported
    language; anything unsupported or missing gives :data:`DEFAULT_LANGUAGE`."""
    if not code:
        return DEFAULT_LANGUAGE
    primary = code.strip().replace("_", "-").split("-", 1)[0].lower()
    return primary if primary in LANGUAGES else DEFAULT_LANGUAGE


def locales_dir() -> Path:
    """The directory holding ``<lang>/LC_MESSAGES/messages.po`` (``$KOZEL_LOCALES`` wins)."""
    override = os.environ.get(LOCALES_ENV)
    return Path(override) if override else REPO_ROOT / "locales"


def catalog_path(lang: str, directory: Path | None = None) -> Path:
    return (directory or locales_dir()) / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


class Translator:
    """The strings of one language. Get one with :func:`get_translator`."""

    __slots__ = ("_translations", "lang")

    def __init__(self, lang: str, translations: gettext.NullTranslations) -> None:
        self.lang = lang
        self._translations = translations

    def __repr__(self) -> str:
        return f"Translator({self.lang!r})"

    def gettext(self, message: str) -> str:
        """The translation of ``message``, unformatted."""
        return self._translations.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """The plural form of the translation that fits ``n``, unformatted."""
        return self._translations.ngettext(singular, plural, n)

    def _(self, message: str, /, **kwargs: object) -> str:
        """Translate ``message``; with keyword arguments, ``str.format`` them into it."""
        text = self._translations.gettext(message)
        if not kwargs:
            return text
        return self._format(text, message, kwargs)

    def n_(self, singular: str, plural: str, n: int, /, **kwargs: object) -> str:
        """Translate with the plural form for ``n`` and format; ``{n}`` is always available."""
        text = self._translations.ngettext(singular, plural, n)
        source = singular if n == 1 else plural
        return self._format(text, source, {"n": n, **kwargs})

    def _format(self, text: str, source: str, fields: dict[str, object]) -> str:
        try:
            return text.format(**fields)
        except (KeyError, IndexError, ValueError):
            if text == source:
                raise
            # A broken translation must not take the bot down: say it, use English.
            log.exception("bad placeholders in the %s translation of %r", self.lang, source)
            return source.format(**fields)


def _compile(catalog: Catalog) -> gettext.GNUTranslations:
    """Compile a Babel catalog in memory, leaving out fuzzy and incomplete entries."""
    from babel.messages.mofile import write_mo

    incomplete = [
        message
        for message in catalog
        if message.id and isinstance(message.string, tuple) and not all(message.string)
    ]
    for message in incomplete:
        catalog.delete(message.id, message.context)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def read_catalog(path: Path, lang: str) -> Catalog:
    """Parse one ``.po`` file strictly (a syntax error raises)."""
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN, abort_invalid=True)


def load_translations(lang: str, directory: Path | None = None) -> gettext.NullTranslations:
    """Read and compile ``lang``'s catalog; English (or a missing or broken catalog, which is
    logged) gives the identity translations."""
    from babel.messages.pofile import PoFileError

    path = catalog_path(lang, directory)
    if not path.is_file():
        if lang != SOURCE_LANGUAGE:
            log.warning("no %s catalog at %s; using English", lang, path)
        return gettext.NullTranslations()
    try:
        return _compile(read_catalog(path, lang))
    except (OSError, UnicodeDecodeError, PoFileError):
        log.exception("cannot load the %s catalog %s; using English", lang, path)
        return gettext.NullTranslations()


@functools.cache
def _translator(lang: str) -> Translator:
    return Translator(lang, load_translations(lang))


def get_translator(lang: str | None) -> Translator:
    """The (cached) translator for ``lang``; an unknown language gives English."""
    return _translator(negotiate(lang))


def clear_cache() -> None:
    """Forget loaded catalogs (after editing them or changing ``$KOZEL_LOCALES``)."""
    _translator.cache_clear()


# --- catalog tools ---------------------------------------------------------------------------


def format_fields(text: str) -> frozenset[str]:
    """The ``str.format`` replacement fields of ``text``, as written (``{n}``, ``{x:>3}``).

    Raises ``ValueError`` if ``text`` is not a valid format string.
    """
    fields = set()
    for _literal, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            conv = f"!{conversion}" if conversion else ""
            fields.add(f"{{{name}{conv}:{spec}}}" if spec else f"{{{name}{conv}}}")
    return frozenset(fields)


MessageKey = tuple[str | tuple[str, ...], str | None]


def message_key(message_id: str | Sequence[str], context: str | None) -> MessageKey:
    ident = message_id if isinstance(message_id, str) else tuple(message_id)
    return ident, context


def extract_keys(root: Path = REPO_ROOT) -> set[MessageKey]:
    """Extract the message ids from the source the way ``extract`` does (without writing)."""
    from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
    from babel.messages.frontend import parse_keywords, parse_mapping_cfg

    with (root / MAPPING_FILE).open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f, MAPPING_FILE)  # type: ignore[no-untyped-call]
    keywords = {**DEFAULT_KEYWORDS, **parse_keywords(EXTRACT_KEYWORDS)}
    return {
        message_key(message, context)
        for _file, _line, message, _comments, context in extract_from_dir(
            root / SOURCE_DIR, method_map, options_map, keywords=keywords
        )
    }


def translation_problems(catalog: Catalog, template_keys: Iterable[MessageKey]) -> list[str]:
    """Everything wrong with one catalog measured against the template's message keys."""
    problems: list[str] = []
    expected = set(template_keys)
    present = {message_key(m.id, m.context) for m in catalog if m.id}
    problems += [f"missing (run update): {key[0]!r}" for key in sorted(expected - present, key=str)]
    problems += [f"stale (run update): {key[0]!r}" for key in sorted(present - expected, key=str)]
    for message in catalog:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = (
            [message.string] if isinstance(message.string, str) else list(message.string or ())
        )
        if message.fuzzy:
            problems.append(f"fuzzy: {ids[0]!r}")
        if not strings or not all(strings):
            problems.append(f"untranslated: {ids[0]!r}")
            continue
        try:
            source_fields = {format_fields(i) for i in ids}
            for text in strings:
                if format_fields(text) not in source_fields:
                    problems.append(f"placeholders differ: {ids[0]!r} -> {text!r}")
        except ValueError as e:
            problems.append(f"bad format string in {ids[0]!r}: {e}")
    for message, errors in catalog.check():
        problems += [f"{error}: {message.id!r}" for error in errors]
    return problems


def _pybabel(*args: str) -> int:
    from babel.messages.frontend import CommandLineInterface

    with chdir(REPO_ROOT):
        result = CommandLineInterface().run(["pybabel", *args])  # type: ignore[no-untyped-call]
    return int(result or 0)


_TEMPLATE_HEADER = """\
# Translations template for the Kozel bot, made by `python -m bot.i18n extract`.
# This file is distributed under the same license as the kozel project.
#"""


def extract(output: Path | str = TEMPLATE, *, quiet: bool = False) -> int:
    """Run ``pybabel extract`` on the source with the project's keywords into ``output``."""
    import tomllib

    with (REPO_ROOT / "pyproject.toml").open("rb") as f:
        version = str(tomllib.load(f)["project"]["version"])
    keywords = [arg for kw in EXTRACT_KEYWORDS for arg in ("-k", kw)]
    return _pybabel(
        *(["-q"] if quiet else []),
        "extract", "-F", MAPPING_FILE, *keywords, f"--add-comments={COMMENT_TAG}",
        "--project=kozel", f"--version={version}", f"--header-comment={_TEMPLATE_HEADER}",
        "-o", str(output), SOURCE_DIR,
    )  # fmt: skip


def update() -> int:
    """Run ``pybabel update``: merge the template into every catalog under ``locales/``."""
    return _pybabel("update", "-i", TEMPLATE, "-d", "locales", "--previous")


def check() -> int:
    """Print every problem with the template and the catalogs; 0 if there are none."""
    from babel.messages.pofile import read_po

    with (REPO_ROOT / TEMPLATE).open("rb") as f:
        template = read_po(f)
    template_keys = {message_key(m.id, m.context) for m in template if m.id}
    source_keys = extract_keys()
    problems = [
        f"{TEMPLATE}: not extracted (run extract): {key[0]!r}"
        for key in sorted(source_keys - template_keys, key=str)
    ] + [
        f"{TEMPLATE}: no longer in the source (run extract): {key[0]!r}"
        for key in sorted(template_keys - source_keys, key=str)
    ]
    directory = REPO_ROOT / "locales"
    for lang in LANGUAGES:
        path = catalog_path(lang, directory)
        if not path.is_file():
            if lang != SOURCE_LANGUAGE:
                problems.append(f"{lang}: no catalog at {path}")
            continue
        try:
            catalog = read_catalog(path, lang)
            problems += [f"{lang}: {p}" for p in translation_problems(catalog, template_keys)]
            if catalog.num_plurals != PLURAL_FORMS[lang]:
                problems.append(f"{lang}: Plural-Forms declares {catalog.num_plurals} forms")
            _compile(catalog)
        except Exception as e:  # report it with the rest
            problems.append(f"{lang}: cannot read or compile {path}: {e}")
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s); {len(template_keys)} messages", file=sys.stderr)
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.i18n", description="Maintain the gettext catalogs in locales/."
    )
    parser.add_argument(
        "command",
        choices=("extract", "update", "check"),
        help="extract: source -> messages.pot; update: messages.pot -> the .po catalogs; "
        "check: report anything untranslated, stale, fuzzy, malformed or not compilable",
    )
    args = parser.parse_args(argv)
    commands = {"extract": extract, "update": update, "check": check}
    return commands[args.command]()


if __name__ == "__main__":
    sys.exit(main())
