"""The maintainers' tools for the gettext catalogs (see ``locales/README.md``)::

    python -m bot.catalogs extract  # source -> locales/messages.pot
    python -m bot.catalogs update   # messages.pot -> every locales/<lang>/LC_MESSAGES/messages.po
    python -m bot.catalogs check    # all extracted, translated, well-formed and compilable?

They work on the repository's source and catalogs; the bot itself needs only ``bot.i18n``.
"""

from __future__ import annotations

import argparse
import string
import sys
from collections.abc import Iterable, Sequence
from contextlib import chdir
from pathlib import Path
from typing import TYPE_CHECKING

from .i18n import LANGUAGES, PLURAL_FORMS, SOURCE_LANGUAGE, catalog_path, read_catalog
from .i18n import _compile as compile_catalog  # check compiles each catalog as the bot does

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog, Message

ROOT = Path(__file__).resolve().parent.parent  # the repository the tools maintain
SOURCE_DIR = "bot"  # relative to ROOT: where strings are extracted from
MAPPING_FILE = "babel.cfg"
TEMPLATE = "locales/messages.pot"

# Extraction keywords on top of Babel's defaults (which already include _, N_, gettext, ...):
# ``n_`` takes the singular and the plural as its first two arguments.
EXTRACT_KEYWORDS: tuple[str, ...] = ("_", "n_:1,2", "N_")
COMMENT_TAG = "TRANSLATORS:"


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


def extract_keys(root: Path = ROOT) -> set[MessageKey]:
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
        if message.id:
            problems += _message_problems(message)
    for message, errors in catalog.check():
        problems += [f"{error}: {message.id!r}" for error in errors]
    return problems


def _message_problems(message: Message) -> list[str]:
    """What is wrong with one entry: fuzzy, untranslated, or its placeholders changed."""
    ids = [message.id] if isinstance(message.id, str) else list(message.id)
    strings = [message.string] if isinstance(message.string, str) else list(message.string or ())
    problems = [f"fuzzy: {ids[0]!r}"] if message.fuzzy else []
    if not strings or not all(strings):
        return [*problems, f"untranslated: {ids[0]!r}"]
    try:
        source_fields = {format_fields(i) for i in ids}
        for text in strings:
            if format_fields(text) not in source_fields:
                problems.append(f"placeholders differ: {ids[0]!r} -> {text!r}")
    except ValueError as e:
        problems.append(f"bad format string in {ids[0]!r}: {e}")
    return problems


def _pybabel(*args: str) -> int:
    from babel.messages.frontend import CommandLineInterface

    with chdir(ROOT):
        result = CommandLineInterface().run(["pybabel", *args])  # type: ignore[no-untyped-call]
    return int(result or 0)


_TEMPLATE_HEADER = """\
# Translations template for the Kozel bot, made by `python -m bot.catalogs extract`.
# This file is distributed under the same license as the kozel project.
#"""


def extract(output: Path | str = TEMPLATE, *, quiet: bool = False) -> int:
    """Run ``pybabel extract`` on the source with the project's keywords into ``output``."""
    import tomllib

    with (ROOT / "pyproject.toml").open("rb") as f:
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

    with (ROOT / TEMPLATE).open("rb") as f:
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
    directory = ROOT / "locales"
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
            compile_catalog(catalog)
        except Exception as e:  # report it with the rest
            problems.append(f"{lang}: cannot read or compile {path}: {e}")
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s); {len(template_keys)} messages", file=sys.stderr)
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.catalogs", description="Maintain the gettext catalogs in locales/."
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
