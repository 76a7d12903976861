"""Mini Apps (web apps): ``savePreparedInlineMessage`` (Bot API 8.0), a message a Mini App's
user may share; the checks are in :mod:`fakebot.prepared`."""

from __future__ import annotations

from . import prepared
from .common import bad, int_param
from .models import JSONDict


class WebAppsMixin:
    """Mini App methods for :class:`~fakebot.server.FakeTelegram`."""

    def api_savePreparedInlineMessage(self, params: JSONDict) -> JSONDict:
        """Bot API 8.0: a message a Mini App's user may share (``fakebot.prepared``)."""
        user_id = int_param(params, "user_id")
        try:
            message = prepared.prepare(params, known_user=user_id in self.users)
        except prepared.InvalidPrepared as err:
            raise bad(str(err)) from None
        self.prepared_messages[message.id] = message
        return message.to_api()
