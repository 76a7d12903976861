"""House rules (options) in words: the lobby's line and buttons, the headers' few words, the
rules' explanation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from html import escape
from typing import Any

from kozel_rules.errors import RecordError
from kozel_rules.options import ALLOWED, VARIANT_ONLY, Options
from kozel_rules.variant import VARIANTS, Variant

from ..callback import Callback, Op
from ..i18n import Translator
from ..screen import Button
from .labels import checked
from .rules_text import variant_name, variant_short_name

MARK = "⚙️"
# The words a player writes after /newgame (``goat=6``) and the options they name.
WORDS: dict[str, str] = {"goat": "goat_at", "eggs": "eggs", "scoring": "ziege_scoring"}

# A button's argument: a letter for the option, then its value (``g6``, ``ed``, ``st``).
KEY_LETTERS: dict[str, str] = {"goat_at": "g", "eggs": "e", "ziege_scoring": "s"}
_VALUE_LETTERS: dict[str, str] = {"plain": "p", "double": "d", "flat": "f", "tiers": "t"}


def allowed_words(variant: Variant) -> list[str]:
    """``goat=6|8|10|12``, ... : what ``/newgame`` takes for this variant."""
    out = []
    for word, key in WORDS.items():
        only = VARIANT_ONLY.get(key)
        if only is None or only == variant.name:
            out.append(f"{word}=" + "|".join(str(v) for v in ALLOWED[key]))
    return out


def bad_option_text(t: Translator, word: str, variant: Variant) -> str:
    """``/newgame street goat=7``: one line saying what the variant takes; nothing opens."""
    # TRANSLATORS: {word} is what the player wrote after /newgame; {allowed} the house rules
    # the variant takes, written as /newgame takes them (goat=6|8|10|12, ...).
    return t._(
        "I don't know the house rule “{word}”. {variant} takes: {allowed}.",
        word=escape(word),
        variant=variant_name(t, variant),
        allowed=", ".join(allowed_words(variant)),
    )


def options_later_text(t: Translator) -> str:
    return t._(
        "House rules cannot be used for a few minutes while the bot is being updated. "
        "Open the table without them, or try again soon."
    )


def encode(key: str, value: int | str) -> str:
    return KEY_LETTERS[key] + (str(value) if isinstance(value, int) else _VALUE_LETTERS[value])


def decode(arg: str) -> tuple[str, int | str] | None:
    """The option and value a button's argument names, or None (untrusted input)."""
    for key, letter in KEY_LETTERS.items():
        if arg[:1] == letter:
            for value in ALLOWED[key]:
                if encode(key, value) == arg:
                    return key, value
    return None


def stored(data: Mapping[str, Any], variant: str) -> Options:
    """A stored match's options; one this release cannot read shows as none (a history
    line must not fail over it)."""
    try:
        return Options.from_json(data, variant)
    except (RecordError, TypeError):
        return Options()


def goat_total(variant: Variant, options: Options | None) -> int:
    """The defeat points that put a side out: the variant's, unless a house rule says."""
    if options is None or options.goat_at == Options().goat_at:
        return variant.out_at
    return options.goat_at


def goat_words(t: Translator, goat_at: int) -> str:
    return t.n_("match to {n}", "match to {n}", goat_at)


def words(t: Translator, options: Options) -> list[str]:
    """The options not at their default, each in a few words."""
    out = []
    if options.goat_at != Options().goat_at:
        out.append(goat_words(t, options.goat_at))
    if options.eggs_double:
        out.append(t._("eggs double the next deal"))
    if options.tiers:
        # TRANSLATORS: ziege's house rule: the side under 61 takes 2, 4 or 6 defeat points.
        out.append(t._("scoring 2/4/6"))
    return out


def brief(t: Translator, options: Options) -> str:
    """``match to 6 · eggs double the next deal``; empty without options."""
    return " · ".join(words(t, options))


def brief_or_none(t: Translator, options: Options) -> str:
    """As ``brief``, and without options ``none (match to 12)``."""
    # TRANSLATORS: no house rules at this table; {goat} is "match to 12".
    return brief(t, options) or t._("none ({goat})", goat=goat_words(t, options.goat_at))


def factor_line(t: Translator, factor: int) -> str:
    """During a deal that counts more after eggs: ``✖️ This deal counts double``."""
    if factor == 2:
        return "✖️ " + t._("This deal counts double (eggs before it).")
    # TRANSLATORS: {n} is 4, 8, ...: eggs in a row before this deal.
    return "✖️ " + t._("This deal counts ×{n} (eggs before it).", n=factor)


def header_line(t: Translator, options: Options) -> str:
    """A line under a table's or hand's title, or empty without options."""
    text = brief(t, options)
    return f"{MARK} {text}" if text else ""


def lobby_line(t: Translator, options: Options, *, group_default: bool) -> str:
    """The lobby's line: what this table plays, and whether that is the group's choice."""
    text = brief_or_none(t, options)
    line = f"{MARK} " + t._("House rules: {list}", list=text)
    if group_default:
        line += " " + t._("(this group's defaults, see /settings)")
    return line


def _label(t: Translator, key: str, value: int | str) -> str:
    if key == "goat_at":
        assert isinstance(value, int)
        return "🐐 " + str(value)
    names = {
        "plain": t._("eggs: as usual"),
        "double": t._("eggs: ×2 next"),
        "flat": t._("scoring: flat 2"),
        "tiers": t._("scoring: 2/4/6"),
    }
    return names[str(value)]


def option_rows(
    t: Translator, options: Options, variant: Variant, callback: Callable[[str], str]
) -> list[list[Button]]:
    """A row of buttons per option of the variant, the chosen value checked; ``callback``
    turns a button's argument into its callback data."""
    rows = []
    for key, values in ALLOWED.items():
        only = VARIANT_ONLY.get(key)
        if only is not None and only != variant.name:
            continue
        current = getattr(options, key)
        rows.append(
            [
                Button(checked(_label(t, key, v), v == current), callback(encode(key, v)))
                for v in values
            ]
        )
    return rows


def stats_lines(t: Translator, ruled: int) -> list[str]:
    """/stats, under the latest matches: how many of them had house rules (none: no line)."""
    if not ruled:
        return []
    # TRANSLATORS: of the latest matches just shown.
    return [
        MARK + " " + t.n_("{n} of them with house rules.", "{n} of them with house rules.", ruled)
    ]


def settings_text(t: Translator, variant: Variant, options: Options) -> str:
    """/settings: the house rules /newgame opens this variant with here."""
    text = brief_or_none(t, options)
    # TRANSLATORS: {variant} is a variant's name; {list} its house rules, as in the lobby.
    return t._(
        "Default house rules for {variant} in this group (a plain /newgame): {list}",
        variant=f"<b>{variant_name(t, variant)}</b>",
        list=text,
    )


def settings_arg(variant: Variant, option: str) -> str:
    """A /settings button's argument for a variant's default option (``ostreet_g6``)."""
    return f"o{variant.name}_{option}"  # i18n: ignore (callback data)


def settings_rows(t: Translator, variant: Variant, options: Options) -> list[list[Button]]:
    """A row choosing the variant shown, then that variant's option rows."""
    pick = [
        Button(checked(variant_short_name(t, v), v == variant), _settings_cb(f"v{v.name}"))
        for v in VARIANTS.values()
    ]
    return [
        pick,
        *option_rows(t, options, variant, lambda a: _settings_cb(settings_arg(variant, a))),
    ]


def _settings_cb(arg: str) -> str:
    return Callback(0, 0, Op.SETTINGS, arg).encode()


def rules_text(t: Translator) -> str:
    """What /rules says about the options (the keys are written as /newgame takes them)."""
    return "\n".join(
        [
            f"{MARK} <b>" + t._("House rules") + "</b>",
            t._(
                "A table may be opened with house rules, after the variant: "
                "<code>/newgame street goat=6 eggs=double</code>. The opener can change them "
                "in the lobby; /settings sets a group's defaults."
            ),
            _item("goat=6|8|10|12", t._("the defeat points that put a side out (usually 12).")),
            _item(
                "eggs=double",
                t._(
                    "a 60:60 deal gives nobody points, and the next deal's defeat points count "
                    "double (×4 after two eggs in a row)."
                ),
            ),
            _item(
                "scoring=tiers",
                t._(
                    "Ziege only: the side under 61 takes 2 with 31–59 card points, 4 with 30 or "
                    "fewer, 6 without a trick."
                ),
            ),
        ]
    )


def _item(words: str, meaning: str) -> str:
    """A line of /rules: the words as /newgame takes them (not translated), and what they do."""
    return f"• <code>{words}</code> — {meaning}"
