"""Callback data: a small versioned format, parsed strictly (it is untrusted input).

``v1:<table id>:<version or ply>:<op>[:<arg>]`` — at most 64 bytes, ASCII only.
Cards travel as one base-36 character each (the card's index 0..35).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from kozel_rules.action import Action, Verb
from kozel_rules.card import CARDS, Card

PREFIX = "v1"
MAX_BYTES = 64
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_VERB_CODES = {
    Verb.LEAD: "L",
    Verb.BEAT: "B",
    Verb.DISCARD: "D",
    Verb.MOLODKA: "M",
    Verb.MOSCOW: "W",
    Verb.PLAY: "P",
    Verb.GIVE: "G",
    Verb.RETURN: "R",
}
_CODE_VERBS = {code: verb for verb, code in _VERB_CODES.items()}


class Op(StrEnum):
    """What a button does. Lobby ops carry the table version; hand ops the match ply."""

    JOIN = "join"
    LEAVE = "leave"
    ADD_COMPUTER = "bot"
    REMOVE_COMPUTER = "unbot"  # not "kick": /kick removes a person
    VARIANT = "var"
    OPTION = "opt"  # a house rule in the lobby (the arg names it and its value)
    START = "start"
    CANCEL = "cancel"
    TOGGLE = "tog"
    ACT = "act"
    CONFIRM = "cnf"  # play the chosen cards with a verb (a button drawn before any choice)
    CLEAR = "clr"
    BACK = "back"
    LANGUAGE = "lang"
    RULES = "rules"
    RESET = "reset"
    SETTINGS = "set"
    KICK = "kick"  # remove a seated person (the /kick menu)
    COACH = "coach"  # "How did I play?" about a deal (the version field is the deal)
    AGAIN = "again"  # a rematch of a finished table (under its result)
    NEXT = "next"  # tell me when the next table opens in this chat (topic)
    CUP = "cup"  # join a cup for four (the table field is the cup's id)


# Ops whose answer replaces the message they sit on (menus): such a press must come from a
# message that carries it, or a forged one could turn any message of the bot into a menu.
MENU_OPS = frozenset({Op.RULES, Op.LANGUAGE, Op.SETTINGS, Op.RESET, Op.KICK})
_OPS = frozenset(Op)
_ARG = re.compile(r"[0-9A-Za-z_\-]{0,24}")
# ASCII digits only (``\d`` would take any script's digits), and no leading zeros.
_ROOT = re.compile(r"v1:(0|[1-9][0-9]{0,11}):([0-9]{1,9}):([a-z]{2,6})(?::(.*))?")


class CallbackDataError(ValueError):
    """The callback data is malformed or forged."""


@dataclass(frozen=True)
class Callback:
    table: int
    version: int
    op: Op
    arg: str = ""

    def encode(self) -> str:
        data = f"{PREFIX}:{self.table}:{self.version}:{self.op}"
        if self.arg:
            data += f":{self.arg}"
        if len(data.encode()) > MAX_BYTES:
            raise CallbackDataError(f"callback data too long: {data!r}")
        return data


def parse(data: str | None) -> Callback:
    if not data or len(data.encode()) > MAX_BYTES:
        raise CallbackDataError("empty or oversized callback data")
    match = _ROOT.fullmatch(data)  # fullmatch: ``$`` would let a newline through
    if match is None:
        raise CallbackDataError(f"malformed callback data: {data!r}")
    table, version, op, arg = match.group(1), match.group(2), match.group(3), match.group(4) or ""
    if op not in _OPS or not _ARG.fullmatch(arg):
        raise CallbackDataError(f"unknown callback op: {data!r}")
    return Callback(int(table), int(version), Op(op), arg)


def encode_card(card: Card) -> str:
    return _DIGITS[int(card)]


def decode_card(char: str) -> Card:
    index = _DIGITS.find(char)
    if len(char) != 1 or index < 0:
        raise CallbackDataError(f"not a card code: {char!r}")
    return CARDS[index]


def encode_action(action: Action) -> str:
    """The ``arg`` of an ``act`` button: verb code, then the cards (the seat is the presser's)."""
    return _VERB_CODES[action.verb] + "".join(encode_card(c) for c in action.cards)


def decode_action(seat: int, arg: str) -> Action:
    if not 2 <= len(arg) <= 5 or arg[0] not in _CODE_VERBS:
        raise CallbackDataError(f"not an action code: {arg!r}")
    cards = [decode_card(ch) for ch in arg[1:]]
    if len(set(cards)) != len(cards):
        raise CallbackDataError(f"repeated card in action code: {arg!r}")
    return Action.make(seat, _CODE_VERBS[arg[0]], cards)
