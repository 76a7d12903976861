"""Chat-level screens: /help, /rules, /language, /settings, /score and /resetladder."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from kozel_rules.ai import OFFERED_LEVELS, STAND_IN_LEVEL
from kozel_rules.options import Options
from kozel_rules.result import DealResult
from kozel_rules.variant import VARIANTS, Variant, get_variant
from kozel_rules.view import SeatView

from ..callback import Callback, Op
from ..i18n import LANGUAGE_NAMES, LANGUAGES, Translator
from ..screen import Button, Screen
from . import house_rules
from .labels import SeatInfo, checked, level_name, rows_of, side_name
from .rules_text import rules_text, variant_name


def help_screen(t: Translator, *, private: bool) -> Screen:
    lines = [
        "🐐 <b>" + t._("Kozel — the card game, in your group chat") + "</b>",
        "",
        t._(
            "Add me to a group, send /newgame, join with a tap; "
            "your cards come to our private chat."
        ),
        "",
    ]
    # Command names are not translated: they are what people type.
    commands = {
        "newgame": t._(
            "open a table (ziege, street or moscow; house rules after the variant: "
            "goat=6 eggs=double)"
        ),
        "nextgame": t._(
            "hear in private when the next table opens here (send it again to take it back)"
        ),
        "cancel": t._("cancel the table (the player who opened it, or an admin)"),
        "score": t._("the standings of the running match"),
        "rules": t._("the rules of each variant"),
        "top": t._("this chat's ladder"),
        "stats": t._("a player's statistics"),
        "history": t._("the last matches in this chat"),
        "achievements": t._("every achievement and who holds it here"),
        "pairs": t._("partnerships of four-player matches, best first"),
        "settings": t._("turn timer and house rules (admins)"),
        "language": t._("the language I speak here"),
        "kick": t._(
            "remove a player: reply to one of their messages, or send it alone to choose "
            "(the player who opened the table, or an admin)"
        ),
        "resetladder": t._("start a new season of the ladder (admins)"),
    }
    lines += [f"/{command} — {text}" for command, text in commands.items()]
    lines += ["", *computer_levels(t), "", *how_to_play(t)]
    return Screen.of("\n".join(lines))


def computer_levels(t: Translator) -> list[str]:
    """What each level offered in the lobby is like, one line each."""
    # TRANSLATORS: /help: what each computer player's level (as on the lobby's buttons) is
    # like, one line each.
    about = {
        "random": t._("plays any card it may, at random: for learning the rules."),
        "basic": t._("plays by rules of thumb: keeps trumps and high cards, beats cheaply."),
        "strong": t._(
            "tries each move in many deals the hidden cards could make, played out to the end."
        ),
    }
    lines = ["<b>" + t._("Computer players") + "</b>"]
    lines += [f"🤖 <b>{level_name(t, level)}</b> — {about[level]}" for level in OFFERED_LEVELS]
    # TRANSLATORS: /help, after the levels: {expert} and {strong} are level names.
    lines.append(
        t._(
            "A computer that stands in for a player who is away, and the coach, play at the "
            "level “{expert}”: as strong as “{strong}” in our tests, it also reads what the "
            "play gave away.",
            expert=level_name(t, STAND_IN_LEVEL),
            strong=level_name(t, "strong"),
        )
    )
    return lines


def how_to_play(t: Translator) -> list[str]:
    """How the hand's buttons work, and what the signs on the table mean."""
    return [
        "<b>" + t._("How to play here") + "</b>",
        t._(
            "Your cards are buttons in our private chat. A tap plays a card when it can go "
            "only one way; otherwise it chooses the card, and a button below the cards plays "
            "the choice (a tap on a chosen card takes it back). An A, 10 or K you would throw "
            "face down, and a set of several cards, always ask for that button."
        ),
        t._(
            "Blue cards may be played now, green ones can beat; a card in brackets, such as "
            "(K♠), cannot be played now."
        ),
        t._(
            "★ trump · ⬅️ the cards to beat · ⚔️ beats · 🂠 a card face down · 🎴 the dealer · "
            "✋ who took the last trick · ⏳ time left to move"
        ),
    ]


def rules_screen(t: Translator, variant: Variant, table_plays: Options | None = None) -> Screen:
    """``table_plays``: the house rules of the chat's running table (of this variant)."""
    buttons = [
        Button(checked(variant_name(t, v), v == variant), Callback(0, 0, Op.RULES, v.name).encode())
        for v in VARIANTS.values()
    ]
    text = rules_text(t, variant) + "\n\n" + house_rules.rules_text(t)
    if table_plays is not None:
        plays = house_rules.brief(t, table_plays) or t._("no house rules")
        text += "\n\n" + t._("This table plays: {list}", list=f"<b>{plays}</b>")
    return Screen.of(text, [buttons])


def language_screen(t: Translator, current: str) -> Screen:
    buttons = [
        Button(
            checked(LANGUAGE_NAMES[code], code == current),
            Callback(0, 0, Op.LANGUAGE, code).encode(),
        )
        for code in LANGUAGES
    ]
    return Screen.of("🌐 " + t._("Choose the language:"), rows_of(buttons, 3))


def settings_screen(
    t: Translator,
    timeout: int,
    choices: Sequence[int],
    level: str = STAND_IN_LEVEL,
    defaults: tuple[Variant, Options] | None = None,
) -> Screen:
    """``choices``: the turn timers offered, in seconds (0: off); ``level``: the computer
    level that stands in for a person (at a timeout, while away); ``defaults``: a variant and
    the house rules /newgame opens it with here (the buttons change them)."""

    def label(seconds: int) -> str:
        # TRANSLATORS: a button: no turn timer at all.
        text = t._("off") if seconds == 0 else t.n_("{n} second", "{n} seconds", seconds)
        return checked(text, seconds == timeout)

    buttons = [Button(label(s), Callback(0, 0, Op.SETTINGS, f"t{s}").encode()) for s in choices]
    text = (
        "⚙️ <b>"
        + t._("Settings")
        + "</b>\n"
        + t._("Turn timer: when a player does not move in time, a computer player moves for them.")
        + "\n"
        # TRANSLATORS: {level} is a computer player's strength, as on the lobby's buttons.
        + t._(
            "A computer player who stands in for a person plays at the level “{level}”.",
            level=level_name(t, level),
        )
    )
    rows = rows_of(buttons, 3)
    if defaults is not None:
        variant, options = defaults
        text += "\n\n" + house_rules.settings_text(t, variant, options)
        rows += house_rules.settings_rows(t, variant, options)
    return Screen.of(text, rows)


def score_screen(
    t: Translator,
    *,
    view: SeatView,
    deals: Sequence[DealResult],
    seats: Sequence[SeatInfo],
    options: Options | None = None,
) -> Screen:
    """/score: each side's defeat points as a bar, then every deal's card and defeat points.
    ``view`` is the public view, ``deals`` the match's deal results so far."""
    variant = get_variant(view.variant)
    out_at = house_rules.goat_total(variant, options)
    lines = ["🐐 <b>" + t._("Standings — {variant}", variant=variant_name(t, variant)) + "</b>"]
    rules = house_rules.header_line(t, options) if options is not None else ""
    if rules:
        lines.append(rules)
    for side, points in enumerate(view.defeat_points):
        bar = "🟥" * min(points, out_at) + "⬜" * max(0, out_at - points)
        mark = " ❌" if side in view.out else ""
        name = side_name(seats, view.sides, side, t)
        lines.append(f"{name}: <b>{points}</b>/{out_at} {bar}{mark}")
    if deals:
        lines += ["", "<b>" + t._("Deals") + "</b>"]
    out: set[int] = set()
    for deal in deals:
        # TRANSLATORS: in /score, in place of a player's card and defeat points for a deal
        # played after they went out of the match.
        parts = [
            t._("out") if side in out else f"{deal.card_points[side]}→+{deal.defeat_points[side]}"
            for side in range(len(view.defeat_points))
        ]
        out.update(deal.out)
        extra = (" 🥚" if deal.eggs else "") + (" 👑" if deal.queen_caught else "")
        extra += f" ×{deal.multiplier}" if deal.multiplier > 1 and not deal.eggs else ""
        lines.append(f"{deal.number}. " + " · ".join(parts) + extra)
    return Screen.of("\n".join(lines))


def reset_screen(t: Translator, *, season: int, yes: str, no: str) -> Screen:
    text = (
        "⚠️ <b>"
        + t._("Reset this chat's ladder?")
        + "</b>\n"
        + t._(
            "Season {n} closes and season {next} starts with a clean ladder. "
            "Nothing is deleted: /top s{n} and /history s{n} still show season {n}.",
            n=season,
            next=season + 1,
        )
    )
    rows = [
        [
            Button("✅ " + t._("Start season {n}", n=season + 1), yes),
            Button("✖️ " + t._("Keep the ladder"), no),
        ]
    ]
    return Screen.of(text, rows)


def reset_done_screen(t: Translator, *, old: int, new: int, by: str) -> Screen:
    return Screen.of(
        "🆕 <b>"
        + t._("Season {n} has started", n=new)
        + "</b>\n"
        + t._("{name} reset the ladder.", name=escape(by))
        + " "
        + t._("Season {n} is kept: /top s{n} · /history s{n}", n=old)
    )


def reset_kept_screen(t: Translator, *, season: int) -> Screen:
    return Screen.of(t._("The ladder stays as it is (season {n}).", n=season))


def reset_stale_screen(t: Translator, *, season: int) -> Screen:
    return Screen.of(t._("The ladder is in season {n} now.", n=season))


def kick_screen(t: Translator, table_id: int, people: Sequence[tuple[int, str]]) -> Screen:
    """/kick without a reply: a button for each person seated (``(user id, name)``)."""
    if not people:
        return Screen.of(t._("Nobody is seated at this table."))
    text = "👢 " + t._(
        "Whom should I remove from the table? (The player who opened it, or an admin.)"
    )
    rows = [
        [Button("👢 " + name, Callback(table_id, 0, Op.KICK, str(user_id)).encode())]
        for user_id, name in people
    ]
    return Screen.of(text, rows)
