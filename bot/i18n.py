"""Translations for the bot at runtime: language choice and the gettext catalogs.

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
compiled the first time a language is asked for (and the result cached beside them), so a
fresh checkout needs no build step; fuzzy and incomplete entries are left out and fall back
to English. English is the source language and has no catalog: the msgids are the English
text.

The maintainers' tools (extract, update, check) are ``bot.catalogs``.
"""

from __future__ import annotations

import functools
import gettext
import hashlib
import io
import logging
import os
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
    """The directory holding ``<lang>/LC_MESSAGES/messages.po`` (or ``.mo``): ``$KOZEL_LOCALES``
    when set; else the catalogs compiled into the installed package (``bot/locales``, in a
    wheel: see setup.py); else the checkout's ``locales/``."""
    override = os.environ.get(LOCALES_ENV)
    if override:
        return Path(override)
    packaged = Path(__file__).resolve().parent / "locales"
    return packaged if packaged.is_dir() else REPO_ROOT / "locales"


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


class CatalogError(ValueError):
    """A ``.po`` file that cannot be parsed."""


def _compile(catalog: Catalog) -> bytes:
    """Compile a Babel catalog to ``.mo`` bytes, leaving out fuzzy and incomplete entries."""
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
    return buffer.getvalue()


def read_catalog(path: Path | io.BytesIO, lang: str) -> Catalog:
    """Parse one ``.po`` file strictly (a syntax error raises)."""
    from babel.messages.pofile import read_po

    with path.open("rb") if isinstance(path, Path) else path as f:
        return read_po(f, locale=lang, domain=DOMAIN, abort_invalid=True)


def _compiled(path: Path, lang: str) -> bytes:
    """The ``.po`` at ``path`` compiled. Parsing seven catalogs was a sixth of a start's CPU,
    so the result is kept beside them, like Python's bytecode: in ``__pycache__``, named by
    the ``.po``'s hash (an edited catalog is compiled again); a folder that cannot be written
    keeps nothing."""
    source = path.read_bytes()
    cache = (
        path.parent / "__pycache__" / f"{path.stem}.{hashlib.sha256(source).hexdigest()[:16]}.mo"
    )
    try:
        return cache.read_bytes()
    except OSError:
        pass
    from babel.messages.pofile import PoFileError  # Babel only when a catalog is parsed

    try:
        compiled = _compile(read_catalog(io.BytesIO(source), lang))
    except PoFileError as exc:
        raise CatalogError(str(exc)) from exc
    try:
        cache.parent.mkdir(exist_ok=True)
        for stale in cache.parent.glob(f"{path.stem}.*.mo"):
            if stale != cache:  # another process may be reading the current one
                stale.unlink(missing_ok=True)
        partial = cache.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(compiled)
        partial.replace(cache)  # whole or not at all, for the processes starting beside us
    except OSError:
        pass
    return compiled


def load_translations(lang: str, directory: Path | None = None) -> gettext.NullTranslations:
    """Read and compile ``lang``'s catalog; English (or a missing or broken catalog, which is
    logged) gives the identity translations."""
    path = catalog_path(lang, directory)
    compiled = path.with_suffix(".mo")  # what a wheel carries (compiled by setup.py)
    if not path.is_file() and not compiled.is_file():
        if lang != SOURCE_LANGUAGE:
            log.warning("no %s catalog at %s; using English", lang, path)
        return gettext.NullTranslations()
    try:
        if not path.is_file():
            with compiled.open("rb") as f:
                return gettext.GNUTranslations(f)
        return gettext.GNUTranslations(io.BytesIO(_compiled(path, lang)))
    except (OSError, UnicodeDecodeError, CatalogError):
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
