"""The build hook: the gettext catalogs compiled into the package.

A wheel carries ``bot/locales/<lang>/LC_MESSAGES/messages.mo`` for every ``locales/<lang>``
catalog, compiled with Babel the way ``bot.i18n`` compiles them in a checkout (fuzzy entries
and plural entries with an empty form left out: English shows instead). An editable install
reads the ``.po`` files of the checkout and needs none of this. Everything else is in
pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CATALOGS = Path(__file__).resolve().parent / "locales"
DOMAIN = "messages"


def compile_catalog(po: Path, lang: str, mo: Path) -> None:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN, abort_invalid=True)
    incomplete = [
        message
        for message in catalog
        if message.id and isinstance(message.string, tuple) and not all(message.string)
    ]
    for message in incomplete:
        catalog.delete(message.id, message.context)
    mo.parent.mkdir(parents=True, exist_ok=True)
    with mo.open("wb") as f:
        write_mo(f, catalog, use_fuzzy=False)


class BuildWithCatalogs(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        found = sorted(CATALOGS.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
        if not found:  # an sdist without locales/ (see MANIFEST.in) would build a mute wheel
            raise SystemExit(f"no catalogs in {CATALOGS}: the bot would speak only English")
        for po in found:
            lang = po.parent.parent.name
            mo = Path(self.build_lib, "bot", "locales", lang, "LC_MESSAGES", f"{DOMAIN}.mo")
            compile_catalog(po, lang, mo)


setup(cmdclass={"build_py": BuildWithCatalogs})
