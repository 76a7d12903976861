"""The load benchmark's figures, from the fake server's records and the bot's database."""

from __future__ import annotations

import bisect
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from e2e.driver import TURN_MARK
from e2e.driver import rows as store_rows
from fakebot.limits import TelegramLimits
from fakebot.server import FakeTelegram

from benchmarks.load_people import MATCH_OVER, TableRun, is_hand_version, played
from benchmarks.load_reasons import reasons

__all__ = ["Figures", "measure", "percentile", "render", "summary"]

DEAL_POST = re.compile(r"\bDeal \d+ is over\b")
# PTB's AIORateLimiter logs each 429 it sleeps off (and meanwhile holds every request).
RETRYING = re.compile(r"Rate limit hit\. Retrying after ([\d.]+) seconds")


def percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile (``p`` in 0..100); None without values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class Figures:
    seconds: float = 0.0
    tables: int = 0
    tables_started: int = 0
    cards: int = 0
    actions: int = 0
    limited_calls: Counter[str] = field(default_factory=Counter)
    group_calls: Counter[str] = field(default_factory=Counter)  # the part sent to groups
    refused_calls: Counter[str] = field(default_factory=Counter)  # 429s by method
    turn_lags: list[float] = field(default_factory=list)
    slowest_turns: list[tuple[float, int, float]] = field(default_factory=list)  # lag, table, at
    turns_never_shown: int = 0
    answer_latencies: list[float] = field(default_factory=list)
    # ... in two parts: until the bot got the update (its poll or the webhook post), and after
    take_latencies: list[float] = field(default_factory=list)
    handle_latencies: list[float] = field(default_factory=list)
    presses: int = 0
    presses_unanswered: int = 0
    stale_answers: int = 0
    hits_by_scope: Counter[str] = field(default_factory=Counter)
    hits_not_waited_out: int = 0
    # ... for each: how long after the 429 the next call came (a call already on its way when
    # the 429 went out comes within milliseconds; one the bot sent after hearing it, later)
    early_gaps: list[float] = field(default_factory=list)
    # ... and for every 429 in the window: calls the fake counted in the second before it and in
    # its last quarter second, and the harness's worst loop lag in that second (the fake shares
    # the harness's loop: a stall there bunches the calls it timestamps)
    hit_contexts: list[tuple[int, int, float]] = field(default_factory=list)
    loop_lags: list[float] = field(default_factory=list)  # the harness loop's, in the window
    hits_no_next_call: int = 0
    silences: list[float] = field(default_factory=list)  # gaps > 1 s with no bot call
    limiter_sleeps: list[float] = field(default_factory=list)  # PTB "Retrying after N"
    deals_owed: int = 0
    matches_owed: int = 0
    deal_posts: int = 0
    match_posts: int = 0
    deal_posts_repeated: int = 0  # deals whose result the group got more than once
    bot_cpu: float = 0.0  # the bot processes' CPU seconds in the window
    cards_shown: int = 0  # cards played whose play the group's table showed in the window
    play_show_lags: list[float] = field(default_factory=list)  # play -> shown in the group
    trick_show_lags: list[float] = field(default_factory=list)  # trick's end -> shown there
    tricks_never_shown: int = 0
    tables_tricks_timely: int = 0  # tables whose group showed every trick's end within 5 s
    tables_with_tricks: int = 0
    reasons: Counter[str] = field(default_factory=Counter)  # calls by what they showed
    reason_samples: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    @property
    def cards_per_second(self) -> float:
        return self.cards / self.seconds if self.seconds else 0.0

    def per_card(self, count: int) -> float | None:
        return count / self.cards if self.cards else None


def measure(
    fake: FakeTelegram,
    tables: Sequence[TableRun],
    db: Path | str,
    limits: TelegramLimits,
    t0: float,
    t1: float,
    bot_log: str = "",
    loop_lags: Sequence[tuple[float, float]] = (),
) -> Figures:
    """Figures for the window ``[t0, t1)`` (epoch seconds); posts owed/delivered for the run.
    ``db``: the bot's store, a SQLite file or a PostgreSQL URL."""
    figures = Figures(seconds=t1 - t0, tables=len(tables))
    figures.tables_started = sum(t.matches_started > 0 for t in tables)

    def inside(at: float | None) -> bool:
        return at is not None and t0 <= at < t1

    figures.limiter_sleeps = [float(n) for n in RETRYING.findall(bot_log)]
    for kind, at, text in store_rows(db, "SELECT kind, at, text FROM table_log"):
        if kind == "action" and inside(float(str(at))):
            figures.actions += 1
            figures.cards += max(0, len(str(text).split()) - 2)  # "<seat> <verb> <cards...>"
        elif kind == "deal":
            figures.deals_owed += 1
        elif kind == "match":
            figures.matches_owed += 1

    call_time = {}
    last: float | None = None
    for call in fake.calls:
        call_time[call.seq] = call.time
        if call.method != "getUpdates" and inside(call.time):
            if last is not None and call.time - last > 1.0:
                figures.silences.append(call.time - last)
            last = call.time
        if inside(call.time) and limits.applies(call.method, call.params):
            figures.limited_calls[call.method] += 1
            if _is_group(call.params.get("chat_id")):
                figures.group_calls[call.method] += 1
            if call.status == 429:
                figures.refused_calls[call.method] += 1
    figures.reasons = reasons(
        fake.calls,
        limits,
        inside,
        lambda text: DEAL_POST.search(text) is not None,
        figures.reason_samples,
    )
    figures.loop_lags = [lag for at, lag in loop_lags if inside(at)]
    limited = sorted(
        c.time for c in fake.calls if c.status != 429 and limits.applies(c.method, c.params)
    )
    for hit in fake.rate_limit_hits:
        at = call_time.get(hit.seq)
        if inside(at):
            assert at is not None
            figures.hit_contexts.append(
                (
                    bisect.bisect_left(limited, at) - bisect.bisect_left(limited, at - 1.0),
                    bisect.bisect_left(limited, at) - bisect.bisect_left(limited, at - 0.25),
                    max((lag for t, lag in loop_lags if at - 1.0 <= t <= at + 0.1), default=0.0),
                )
            )
            figures.hits_by_scope[hit.scope] += 1
            if hit.waited_out is False:
                figures.hits_not_waited_out += 1
                if hit.next_at is not None:
                    figures.early_gaps.append(hit.next_at - hit.at)
            elif hit.waited_out is None:
                figures.hits_no_next_call += 1

    for press in fake.press_log:
        if not inside(press.at):
            continue
        figures.presses += 1
        if press.latency is None:
            figures.presses_unanswered += 1
        else:
            figures.answer_latencies.append(press.latency)
            if press.taken_at is not None and press.answered_at is not None:
                figures.take_latencies.append(press.taken_at - press.at)
                figures.handle_latencies.append(press.answered_at - press.taken_at)
            text = press.answer.text if press.answer else None
            if text and re.search(r"out of date|not your turn", text, re.IGNORECASE):
                figures.stale_answers += 1

    # A match's last play has no next turn (the next match's lobby comes first).
    match_ends: dict[int, list[float]] = {}
    sql = (
        "SELECT g.chat_id, l.at FROM table_log l JOIN game_tables g ON g.id = l.table_id "
        "WHERE l.kind = 'match'"
    )
    for chat_id, at in store_rows(db, sql):
        match_ends.setdefault(int(str(chat_id)), []).append(float(str(at)))
    for table in tables:
        _turn_lags(fake, table, inside, figures, match_ends.get(table.group.id, []))
    _group_shows(fake, db, inside, figures)

    for chat in {t.group.id for t in tables}:
        # A result is a message of its own or an edit of the deal's table: the first
        # version of a message that says it (the same result in two messages: posted twice).
        seen: Counter[str] = Counter()
        for message in fake.chat(chat).messages.values():
            if not message.from_bot or not message.versions:
                continue
            texts = [v.text for v in message.versions]
            deal = next((text for text in texts if DEAL_POST.search(text)), None)
            figures.deal_posts += deal is not None
            figures.match_posts += any(MATCH_OVER in text for text in texts)
            if deal is not None:
                seen[deal] += 1
        figures.deal_posts_repeated += sum(n - 1 for n in seen.values())
    return figures


# What follows a trick's last play. Not a special lead: one declared mid-trick gives the
# trick's cards back to their owners (docs/rules.md, Molodka), so the play before it may have
# ended no trick, and its cards come out again later.
TRICK_STARTS = {"lead"}
SHOWN_WITHIN = 5.0  # seconds: a trick's end the group sees later counts as late


def _group_shows(
    fake: FakeTelegram,
    db: Path | str,
    inside: Callable[[float | None], bool],
    figures: Figures,
) -> None:
    """When each play in the window first appears on its group's table message (a line
    "<name>: <cards>", or "<name>: <n> cards face down"), and how soon each trick's last
    play does. A deal's last trick is left out: the next deal's table replaces it and the
    deal's result post tells it."""
    names = {
        (int(str(table_id)), int(str(seat))): str(name)
        for table_id, seat, name in store_rows(db, "SELECT table_id, seat, name FROM seats")
    }
    log: dict[int, list[tuple[str, float, str, int]]] = {}
    sql = (
        "SELECT l.table_id, l.kind, l.at, l.text, g.chat_id FROM table_log l "
        "JOIN game_tables g ON g.id = l.table_id ORDER BY l.id"
    )
    for table_id, kind, at, text, chat_id in store_rows(db, sql):
        log.setdefault(int(str(table_id)), []).append(
            (str(kind), float(str(at)), str(text), int(str(chat_id)))
        )
    versions: dict[int, list[tuple[float, list[str]]]] = {}
    timely: dict[int, bool] = {}
    for table_id, entries in log.items():
        chat_id = entries[0][3]
        if chat_id not in versions:
            chat = fake.chat(chat_id)
            versions[chat_id] = sorted(
                (v.at, v.text.split("\n"))
                for m in chat.messages.values()
                if m.from_bot
                for v in m.versions
            )
        shown_at = [at for at, _ in versions[chat_id]]
        for i, (kind, at, text, _) in enumerate(entries):
            if kind != "action" or not inside(at):
                continue
            seat, verb, *cards = text.split()
            name = names.get((table_id, int(seat)), "?")
            wanted = f"{len(cards)} card" if verb == "discard" else " ".join(cards)
            shown = None
            for j in range(bisect.bisect_left(shown_at, at), len(shown_at)):
                lines = versions[chat_id][j][1]
                if any(_shows(line, name, wanted, verb) for line in lines):
                    shown = shown_at[j]
                    break
            if shown is not None:
                figures.play_show_lags.append(shown - at)
                if inside(shown):
                    figures.cards_shown += len(cards)
            following = entries[i + 1][0:3] if i + 1 < len(entries) else None
            if following is None or following[0] != "action":
                continue  # the deal's last trick, or the window's end
            if following[2].split()[1] not in TRICK_STARTS:
                continue  # not a trick's last play
            if shown is None:
                figures.tricks_never_shown += 1
                timely[table_id] = False
            else:
                figures.trick_show_lags.append(shown - at)
                ok = shown - at <= SHOWN_WITHIN
                timely[table_id] = timely.get(table_id, True) and ok
    by_chat: dict[int, bool] = {}
    for table_id, ok in timely.items():
        chat_id = log[table_id][0][3]
        by_chat[chat_id] = by_chat.get(chat_id, True) and ok
    figures.tables_with_tricks = len(by_chat)
    figures.tables_tricks_timely = sum(by_chat.values())


def _shows(line: str, name: str, wanted: str, verb: str) -> bool:
    """Whether a line of a group's table shows the play: "<name>: <cards>" (the trick on
    the table), or a part "<name> <cards>" of the last trick's line ("✋ Last trick taken
    by ...: Anna K♠ 9♠ · Boris ⚔️ 10♠ A♠ · Vera 🂠🂠")."""
    if "✋" in line:
        brief = line.partition(": ")[2]
        for part in brief.split(" · "):
            if not part.startswith(name + " "):
                continue
            shown = part[len(name) + 1 :]
            if verb == "discard":
                return shown == "🂠" * int(wanted.split()[0])
            if f" {wanted} " in f" {shown} ":
                return True
        return False
    head, _, rest = line.partition(": ")
    if not rest or name not in head:
        return False
    if verb == "discard":
        return "face down" in rest and rest.startswith(wanted)
    return f" {wanted} " in f" {rest.replace('⬅️', '').strip()} "


def _is_group(chat_id: object) -> bool:
    try:
        return int(str(chat_id)) < 0
    except ValueError:
        return True  # "@username"


def _turn_lags(
    fake: FakeTelegram,
    table: TableRun,
    inside: Callable[[float | None], bool],
    figures: Figures,
    match_ends: list[float],
) -> None:
    """Accepted play -> the next moment a hand of the table shows "👉" (a turn); not for
    a play that ended its match (``match_ends``: when the table's matches ended).

    A turn shown on another person's hand counts from the press (it was nobody else's turn
    before); on the player's own hand (a trick won, a lead again) only after the answer.
    The lag is measured from the answer that said "Played", never below zero.
    """
    user_ids = {u.id for u in table.users}
    marks: dict[int, list[float]] = {}
    for user in table.users:
        marks[user.id] = sorted(
            v.at
            for m in user.private_chat.messages.values()
            if m.from_bot
            for v in m.versions
            if TURN_MARK in v.text and is_hand_version(v)
        )
    for press in fake.press_log:
        if press.user_id not in user_ids or not inside(press.answered_at):
            continue
        if press.answer is None or not played(press.answer.text):
            continue
        assert press.answered_at is not None
        if any(press.at <= end <= press.answered_at for end in match_ends):
            continue
        candidates = []
        for user_id, times in marks.items():
            since = press.answered_at if user_id == press.user_id else press.at
            i = bisect.bisect_right(times, since)
            if i < len(times):
                candidates.append(times[i])
        if candidates:
            lag = max(0.0, min(candidates) - press.answered_at)
            figures.turn_lags.append(lag)
            figures.slowest_turns.append((lag, table.index, press.answered_at))
            figures.slowest_turns = sorted(figures.slowest_turns, reverse=True)[:3]
        else:
            figures.turns_never_shown += 1


# ------------------------------------------------------------------ output


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:,.0f} ms"


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _rows(rows: Iterable[tuple[str, str]]) -> list[str]:
    rows = list(rows)
    width = max(len(k) for k, _ in rows)
    return [f"  {k.ljust(width)}  {v}" for k, v in rows]


def summary(figures: Figures, header: Sequence[tuple[str, str]]) -> dict[str, object]:
    """The figures as plain data (for ``--json``): counts, and percentiles in seconds."""
    f = figures

    def spread(values: Sequence[float]) -> dict[str, float | int | None]:
        return {
            "n": len(values),
            **{f"p{p}": percentile(values, p) for p in (50, 95, 99, 100)},
        }

    return {
        "run": dict(header),
        "seconds": f.seconds,
        "tables": f.tables,
        "tables_started": f.tables_started,
        "cards": f.cards,
        "plays": f.actions,
        "cards_per_second": f.cards_per_second,
        "limited_calls": dict(f.limited_calls),
        "limited_calls_to_groups": dict(f.group_calls),
        "calls_by_reason": dict(f.reasons),
        "calls_by_reason_samples": f.reason_samples,
        "limited_calls_per_card": f.per_card(sum(f.limited_calls.values())),
        "refused_calls": dict(f.refused_calls),
        "turn_lag": spread(f.turn_lags),
        "turns_never_shown": f.turns_never_shown,
        "slowest_turns": [
            {"lag": lag, "table": index, "at": at} for lag, index, at in f.slowest_turns
        ],
        "answer_latency": spread(f.answer_latencies),
        "presses": f.presses,
        "presses_unanswered": f.presses_unanswered,
        "stale_answers": f.stale_answers,
        "hits_by_scope": dict(f.hits_by_scope),
        "hits_not_waited_out": f.hits_not_waited_out,
        "hits_no_next_call": f.hits_no_next_call,
        "limiter_sleeps": {"n": len(f.limiter_sleeps), "seconds": sum(f.limiter_sleeps)},
        "silences": {"n": len(f.silences), "seconds": sum(f.silences)},
        "bot_cpu_seconds": f.bot_cpu,
        "bot_cpu_per_press_ms": _per_press(f),
        "cards_shown_in_groups_per_minute": f.cards_shown * 60 / f.seconds if f.seconds else None,
        "play_shown_in_group": spread(f.play_show_lags),
        "trick_end_shown_in_group": spread(f.trick_show_lags),
        "tricks_never_shown": f.tricks_never_shown,
        "tables_showing_every_trick_within_5s": [f.tables_tricks_timely, f.tables_with_tricks],
        "deal_posts_repeated": f.deal_posts_repeated,
        "deals_owed": f.deals_owed,
        "deal_posts": f.deal_posts,
        "matches_owed": f.matches_owed,
        "match_posts": f.match_posts,
    }


def _per_press(f: Figures) -> float | None:
    """The bots' CPU milliseconds per press answered in the window."""
    answered = len(f.answer_latencies)
    return 1000 * f.bot_cpu / answered if answered and f.bot_cpu else None


def _by_kind(f: Figures) -> str:
    def n(method: str, group: bool) -> int:
        total = f.limited_calls.get(method, 0)
        in_groups = f.group_calls.get(method, 0)
        return in_groups if group else total - in_groups

    parts = [
        ("hand edits", n("editMessageText", False)),
        ("hand sends", n("sendMessage", False)),
        ("group edits", n("editMessageText", True)),
        ("group sends", n("sendMessage", True)),
        ("deletions", n("deleteMessage", False) + n("deleteMessage", True)),
    ]
    return ", ".join(f"{label} {_num(f.per_card(count))}" for label, count in parts)


def render(figures: Figures, header: Sequence[tuple[str, str]]) -> str:
    f = figures
    lines = ["", "Kozel load benchmark", *(_rows(header)), ""]
    lines.append("Throughput")
    lines += _rows(
        [
            ("tables playing", f"{f.tables_started} of {f.tables}"),
            ("cards played", f"{f.cards} in {f.actions} plays, {f.seconds:.0f} s"),
            ("cards per second", _num(f.cards_per_second)),
            (
                "cards shown in groups",
                f"{f.cards_shown} ({f.cards_shown * 60 / f.seconds if f.seconds else 0:.0f} "
                "a minute; plays of the window the groups' tables showed in it)",
            ),
            (
                "bot CPU",
                f"{f.bot_cpu:.1f} s in the window "
                f"({100 * f.bot_cpu / f.seconds if f.seconds else 0:.0f} % of a core); "
                f"{_num(_per_press(f))} ms a press answered",
            ),
        ]
    )
    lines += ["", "Rate-limited calls (methods with a chat_id; 429s included)"]
    lines.append(
        f"  {'method':<24}{'calls':>7}{'per card':>10}{'private':>9}{'group':>7}{'429':>6}"
    )
    rows = [
        (m, n, f.group_calls.get(m, 0), f.refused_calls.get(m, 0))
        for m, n in f.limited_calls.most_common()
    ]
    total = ("total", *(sum(r[i] for r in rows) for i in (1, 2, 3)))
    for method, count, group, refused in [*rows, total]:
        lines.append(
            f"  {method:<24}{count:>7}{_num(f.per_card(count)):>10}{count - group:>9}"
            f"{group:>7}{refused:>6}"
        )
    lines.append(f"  per card by kind: {_by_kind(f)}")
    lines.append("  per card by reason:")
    for reason, count in f.reasons.most_common():
        lines.append(f"    {reason:<40}{count:>7}{_num(f.per_card(count)):>8}")
    lines += ["", "Latency                      p50        p95        p99        max"]
    for label, values in (
        ("turn lag (play -> turn)", f.turn_lags),
        ("press -> answer", f.answer_latencies),
        ("  press -> bot got it", f.take_latencies),
        ("  bot got it -> answer", f.handle_latencies),
        ("play -> shown in group", f.play_show_lags),
        ("trick end -> in group", f.trick_show_lags),
    ):
        cells = "".join(f"{_ms(percentile(values, p)):>11}" for p in (50, 95, 99, 100))
        lines.append(f"  {label:<26}{cells}  (n={len(values)})")
    lines += _rows(
        [
            ("turns never shown", str(f.turns_never_shown)),
            (
                "tricks in groups",
                f"{sum(lag <= SHOWN_WITHIN for lag in f.trick_show_lags)} of "
                f"{len(f.trick_show_lags) + f.tricks_never_shown} trick ends shown within "
                f"{SHOWN_WITHIN:.0f} s, {f.tricks_never_shown} never; tables whose group showed "
                f"every one within {SHOWN_WITHIN:.0f} s: {f.tables_tricks_timely} of "
                f"{f.tables_with_tricks}",
            ),
            (
                "slowest turns",
                ", ".join(
                    f"{lag:.1f} s (table {index}, play answered at "
                    f"{time.strftime('%H:%M:%S', time.localtime(at))})"
                    for lag, index, at in f.slowest_turns
                )
                or "-",
            ),
            (
                "presses",
                f"{f.presses}, never answered {f.presses_unanswered}, "
                f"answered 'out of date' {f.stale_answers}",
            ),
        ]
    )
    lines += ["", "429 answers"]
    scopes = ", ".join(f"{scope} {n}" for scope, n in sorted(f.hits_by_scope.items())) or "-"
    lines += _rows(
        [
            ("total", f"{sum(f.hits_by_scope.values())} ({scopes})"),
            (
                "not waited out",
                f"{f.hits_not_waited_out}"
                + (
                    " (the next call came "
                    + ", ".join(f"{gap * 1000:.0f} ms" for gap in f.early_gaps)
                    + " after the 429)"
                    if f.early_gaps
                    else ""
                ),
            ),
            ("no call after it", str(f.hits_no_next_call)),
            (
                "before each",
                "; ".join(
                    f"{second} calls in 1 s, {quarter} in 0.25 s, loop lag {lag * 1000:.0f} ms"
                    for second, quarter, lag in f.hit_contexts
                )
                or "-",
            ),
            (
                "harness loop lag",
                f"p99 {(percentile(f.loop_lags, 99) or 0) * 1000:.0f} ms, max "
                f"{max(f.loop_lags, default=0) * 1000:.0f} ms (the fake timestamps calls on it)",
            ),
            (
                "bot's limiter slept",
                f"{len(f.limiter_sleeps)} times, {sum(f.limiter_sleeps):.0f} s in all "
                f"(whole run; PTB holds every request meanwhile)",
            ),
            (
                "bot silent > 1 s",
                f"{len(f.silences)} times, {sum(f.silences):.0f} s in all, longest "
                f"{max(f.silences, default=0):.1f} s (no call but getUpdates)",
            ),
        ]
    )
    lines += ["", "Result posts (whole run: the bot's table_log vs the groups)"]
    lines += _rows(
        [
            (
                "deals finished / posted",
                f"{f.deals_owed} / {f.deal_posts} (posted twice: {f.deal_posts_repeated})",
            ),
            ("matches finished / posted", f"{f.matches_owed} / {f.match_posts}"),
        ]
    )
    return "\n".join(lines)
