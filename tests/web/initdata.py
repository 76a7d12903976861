"""Signed ``initData`` as Telegram builds it, written here from Telegram's documented algorithm
(independently of ``bot.web.auth``, so that the tests check the bot against the spec)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import urlencode


def telegram_init_data(
    token: str,
    user_id: int,
    *,
    first_name: str = "Ann",
    language_code: str = "en",
    auth_date: float | None = None,
    start_param: str | None = None,
    extra: dict[str, str] | None = None,
) -> str:
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(
            {"id": user_id, "first_name": first_name, "language_code": language_code},
            separators=(",", ":"),
            ensure_ascii=False,
        ),
        "auth_date": str(int(time.time() if auth_date is None else auth_date)),
        **(extra or {}),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    # data-check-string: all fields but hash, sorted by key, "key=value" joined with "\n";
    # secret = HMAC-SHA256(key="WebAppData", msg=token); hash = hex HMAC-SHA256(secret, dcs).
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)
