"""The Mini App's initData check, against Telegram's documented algorithm."""

from __future__ import annotations

import time
from urllib.parse import parse_qsl, urlencode

import pytest
from initdata import telegram_init_data

from bot.web.auth import InitDataError, check_init_data

TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"


def test_data_signed_with_the_bot_token_names_its_user() -> None:
    raw = telegram_init_data(TOKEN, 4242, first_name="Зоя", language_code="ru", start_param="17")
    user = check_init_data(raw, TOKEN)
    assert (user.user_id, user.first_name, user.language_code) == (4242, "Зоя", "ru")
    assert user.start_param == "17"


def test_any_extra_field_telegram_sends_is_part_of_the_signature() -> None:
    raw = telegram_init_data(TOKEN, 1, extra={"chat_type": "sender", "signature": "abc"})
    assert check_init_data(raw, TOKEN).user_id == 1
    fields = dict(parse_qsl(raw))
    fields["chat_type"] = "private"  # changed after signing
    with pytest.raises(InitDataError):
        check_init_data(urlencode(fields), TOKEN)


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.update(user=f["user"].replace('"id":1', '"id":2')),  # someone else
        lambda f: f.update(hash="0" * 64),
        lambda f: f.pop("hash"),
        lambda f: f.update(hash=f["hash"].upper()),
        lambda f: f.update(auth_date=str(int(f["auth_date"]) + 1)),
    ],
)
def test_forged_data_is_refused(change) -> None:  # type: ignore[no-untyped-def]
    fields = dict(parse_qsl(telegram_init_data(TOKEN, 1)))
    change(fields)
    with pytest.raises(InitDataError):
        check_init_data(urlencode(fields), TOKEN)


def test_data_signed_for_another_bot_is_refused() -> None:
    raw = telegram_init_data("999:OTHER", 1)
    with pytest.raises(InitDataError):
        check_init_data(raw, TOKEN)


def test_data_older_than_an_hour_is_refused() -> None:
    now = time.time()
    fresh = telegram_init_data(TOKEN, 1, auth_date=now - 3590)
    assert check_init_data(fresh, TOKEN, now=now).user_id == 1
    stale = telegram_init_data(TOKEN, 1, auth_date=now - 3610)
    with pytest.raises(InitDataError, match="too old"):
        check_init_data(stale, TOKEN, now=now)


@pytest.mark.parametrize("raw", [None, "", "hash=", "a=1&a=2", "x" * 5000, "%%%", "user=1"])
def test_missing_or_malformed_data_is_refused(raw: str | None) -> None:
    with pytest.raises(InitDataError):
        check_init_data(raw, TOKEN)


def test_a_repeated_field_is_refused_even_when_signed() -> None:
    raw = telegram_init_data(TOKEN, 1)
    with pytest.raises(InitDataError):
        check_init_data(raw + "&auth_date=1", TOKEN)


@pytest.mark.parametrize("forged", ["é" * 64, "ф" + "0" * 63, "0" * 63 + "\u0000", "✓"])
def test_a_hash_that_is_not_hex_is_refused_like_any_wrong_one(forged: str) -> None:
    fields = dict(parse_qsl(telegram_init_data(TOKEN, 1)))
    fields["hash"] = forged  # not even ASCII: the comparison must still just say no
    with pytest.raises(InitDataError):
        check_init_data(urlencode(fields), TOKEN)
