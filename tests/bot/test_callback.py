"""Callback data is untrusted input: parsed strictly, never over 64 bytes."""

import pytest

from bot.callback import (
    Callback,
    CallbackDataError,
    decode_action,
    encode_action,
    parse,
)
from kozel_rules.action import Action


def test_round_trip_of_a_hand_button() -> None:
    action = Action.parse("2 beat 10♠ A♠")
    data = Callback(123456789012, 999999999, "act", encode_action(action)).encode()
    assert len(data.encode()) <= 64
    cb = parse(data)
    assert cb.op == "act"
    assert decode_action(2, cb.arg) == action


def test_the_seat_comes_from_the_presser_not_the_data() -> None:
    action = Action.parse("1 lead K♠ 9♠")
    assert decode_action(3, encode_action(action)).seat == 3


@pytest.mark.parametrize(
    "data",
    [
        None,
        "",
        "v2:1:1:join",
        "v1:x:1:join",
        "v1:1:1:drop",
        "v1:1:1:act:L@@",
        "v1:1:1:join:" + "a" * 60,
        "v1:1:1:join;rm -rf",
        "v1:1:1",
        # Only ASCII digits, no leading zeros, no trailing newline (``$`` allows one).
        "v1:\u0661:1:join",
        "v1:1:\u0663:join",
        "v1:01:1:join",
        "v1:1:1:join\n",
        "v1:1:1:bot:strong\n",
    ],
)
def test_malformed_or_forged_data_is_refused(data: str | None) -> None:
    with pytest.raises(CallbackDataError):
        parse(data)


@pytest.mark.parametrize("arg", ["", "Z0", "L", "Laa", "L0123456", "Lz~"])
def test_bad_action_codes_are_refused(arg: str) -> None:
    with pytest.raises(CallbackDataError):
        decode_action(0, arg)
