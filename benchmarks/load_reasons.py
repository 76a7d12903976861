"""Where the rate-limited calls go: each call of the window by the reason a player would see.

From the fake server's call log alone: every edit of a private hand is judged by what changed
against the version before it (the turn arrived, the player played, the selection changed, the
timer's line, a waiting hand's own cards or its last trick line, ...); a hand sent anew is a
turn's ping (with "👉") or another new hand; a group edit shows a trick's end (its "✋" line
changed), a deal's result, or a move in between.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from fakebot.limits import TelegramLimits
from fakebot.models import Call

TURN = "👉"
CHOSEN = "✅"
HURRY = "⏳"
LAST_TRICK = "✋"


@dataclass(frozen=True)
class Look:
    """What a hand or table version shows that decides why it changed."""

    my_turn: bool
    cards: frozenset[str]
    chosen: frozenset[str]
    hurry: str
    last_trick: str
    text: str
    others: tuple[str, ...] = ()  # the buttons that are not cards (play, clear, ...)


def _buttons(params: dict[str, object]) -> list[str]:
    markup = params.get("reply_markup")
    if not isinstance(markup, dict):
        return []
    rows = markup.get("inline_keyboard") or []
    return [str(b.get("text", "")) for row in rows for b in row if isinstance(b, dict)]


def _look(params: dict[str, object]) -> Look:
    text = str(params.get("text", ""))
    cards, chosen, others = set(), set(), []
    for label in _buttons(params):
        bare = label.removeprefix(CHOSEN).strip("()").removeprefix("★")
        if len(bare) <= 3 and any(s in bare for s in "♠♣♥♦"):
            cards.add(bare)
            if label.startswith(CHOSEN):
                chosen.add(bare)
        else:
            others.append(label)
    lines = text.split("\n")
    return Look(
        my_turn=TURN in text,
        cards=frozenset(cards),
        chosen=frozenset(chosen),
        hurry=next((line for line in lines if HURRY in line), ""),
        last_trick=next((line for line in lines if LAST_TRICK in line), ""),
        text=text,
        others=tuple(others),
    )


def hand_reason(old: Look | None, new: Look) -> str:
    """Why a private hand was edited (``old``: its version before)."""
    if old is None:
        return "hand edit, version unknown"
    if not old.my_turn and new.my_turn:
        return "turn arrives"
    if old.my_turn and not new.my_turn:
        if new.cards == old.cards:
            return "turn taken away (timer, away)"
        return "after the play" if new.cards < old.cards else "after the play and a draw"
    if old.my_turn and new.my_turn:
        if new.cards != old.cards:
            # The hand still showed the turn played (its edit waited), or a trick won.
            return "turn arrives (after one's play)"
        if old.chosen != new.chosen:
            if old.others == new.others:
                return "selection echo (only the marks change)"
            return "selection echo (play buttons change)"
        if old.hurry != new.hurry:
            return "time left"
        return "own turn, other change"
    if new.cards != old.cards:
        return "waiting hand: own cards"
    if old.last_trick != new.last_trick:
        return "waiting hand: trick end"
    if old.text == new.text:
        return "waiting hand: buttons only"
    return "waiting hand: other text"


def table_reason(old: Look | None, new: Look, deal_post: Callable[[str], bool]) -> str:
    if deal_post(new.text):
        return "group: deal result"
    if old is None:
        return "group: edit, version unknown"
    if old.last_trick != new.last_trick:
        return "group: trick end"
    return "group: move in between"


def reasons(
    calls: Iterable[Call],
    limits: TelegramLimits,
    inside: Callable[[float | None], bool],
    deal_post: Callable[[str], bool],
    samples: dict[str, list[tuple[str, str]]] | None = None,
) -> Counter[str]:
    """The window's rate-limited calls counted by reason (versions before the window are
    read too, so that the first edit in it is judged)."""
    shown: dict[tuple[object, object], Look] = {}
    counts: Counter[str] = Counter()
    for call in calls:
        if not limits.applies(call.method, call.params):
            continue
        chat = call.params.get("chat_id")
        group = str(chat).startswith("-")
        result = call.result if call.ok else None
        old: Look | None = None
        if call.method == "sendMessage":
            look = _look(call.params)
            if isinstance(result, dict):
                shown[(chat, result.get("message_id"))] = look
            if group:
                reason = "group: post" if deal_post(look.text) else "group: new message"
            else:
                reason = "hand sent: turn ping" if look.my_turn else "private: new message"
        elif call.method == "editMessageText":
            key = (chat, call.params.get("message_id"))
            look = _look(call.params)
            old = shown.get(key)
            if call.ok:
                shown[key] = look
            reason = table_reason(old, look, deal_post) if group else hand_reason(old, look)
        elif call.method == "deleteMessage":
            reason = "group: deletion" if group else "private: deletion"
        else:
            reason = f"{call.method}"
        if call.status == 429:
            reason += " (429)"
        if inside(call.time):
            counts[reason] += 1
            if samples is not None and len(samples.setdefault(reason, [])) < 3:
                before = old.text if call.method == "editMessageText" and old else ""
                after = str(call.params.get("text", ""))
                buttons = " | ".join(_buttons(call.params))
                samples[reason].append((before, f"{after}\n[{buttons}]"))
    return counts
