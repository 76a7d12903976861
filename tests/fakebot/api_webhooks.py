"""Getting updates: ``getUpdates`` (long polling) and ``setWebhook``, ``deleteWebhook``,
``getWebhookInfo``; the posting itself is :mod:`fakebot.webhook`."""

from __future__ import annotations

import asyncio
import re
import time
from urllib.parse import urlsplit

from .common import DEFAULT_ALLOWED_UPDATES, LOOPBACK, bad
from .models import ApiError, JSONDict
from .webhook import Delivery, WebhookSender

_CONFLICT = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance "
    "is running"
)
_WEBHOOK_ACTIVE = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to "
    "delete the webhook first"
)
_SECRET_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{1,256}")
_WEBHOOK_PORTS = frozenset({80, 88, 443, 8443})


class WebhooksMixin:
    """Getting updates for :class:`~fakebot.server.FakeTelegram`."""

    async def api_getUpdates(self, params: JSONDict) -> list[JSONDict]:
        if self._webhook is not None:
            raise ApiError(409, _WEBHOOK_ACTIVE)
        offset = int(params.get("offset") or 0)
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        timeout = max(float(params.get("timeout") or 0), 0.0)
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else DEFAULT_ALLOWED_UPDATES
        if offset > 0:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        elif offset < 0:
            self._updates = self._updates[offset:]
        self._poll_generation += 1
        generation = self._poll_generation
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(409, _WEBHOOK_ACTIVE if self._webhook else _CONFLICT)
            if self._updates or self._closing:
                taken = self._updates[:limit]
                self._taken(taken)
                return taken
            remaining = deadline - loop.time()
            if remaining <= 0:
                return []
            await self._changed.wait(remaining)

    async def api_deleteWebhook(self, params: JSONDict) -> bool:
        await self._drop_webhook()
        if params.get("drop_pending_updates") is True:
            self._updates.clear()
        return True

    async def api_setWebhook(self, params: JSONDict) -> bool:
        url = str(params.get("url") or "")
        if not url:
            return await self.api_deleteWebhook(params)
        parts = urlsplit(url)
        # Telegram wants HTTPS on ports 80/88/443/8443; the fake also takes plain HTTP to a
        # loopback address (any port), so tests need no certificates.
        loopback = parts.hostname in LOOPBACK
        if parts.scheme != "https" and not (loopback and parts.scheme == "http"):
            raise bad("bad webhook: An HTTPS URL must be provided for webhook")
        if not loopback and (parts.port or 443) not in _WEBHOOK_PORTS:
            raise bad("bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443")
        secret = params.get("secret_token")
        if secret is not None and not _SECRET_TOKEN_RE.fullmatch(str(secret)):
            raise bad("secret token contains unallowed characters")
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else DEFAULT_ALLOWED_UPDATES
        max_connections = min(max(int(params.get("max_connections") or 40), 1), 100)
        hook, token = self._webhook, None if secret is None else str(secret)
        drop = params.get("drop_pending_updates") is True
        same = (url, token, max_connections)
        if (
            hook is not None
            and not drop
            and (hook.url, hook.secret_token, hook.max_connections) == same
        ):
            # Telegram: "Webhook is already set"; the posts under way go on, none twice
            # (each worker of several sets the same webhook when it starts).
            return True
        await self._drop_webhook()
        if drop:
            self._updates.clear()
        self._poll_generation += 1  # a long poll in progress ends with a conflict
        self._webhook = WebhookSender(
            url,
            token,
            max_connections,
            pending=lambda: self._updates,
            confirm=self._delivered,
            wait_changed=self._changed.wait,
            record=self._delivery_tried,
            retry=self.webhook_retry,
            posting=lambda update: self._taken([update]),
        )
        self._webhook.start()
        self._changed.fire()
        return True

    def api_getWebhookInfo(self, params: JSONDict) -> JSONDict:
        hook = self._webhook
        info: JSONDict = {
            "url": "" if hook is None else hook.url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
        if hook is not None:
            info["max_connections"] = hook.max_connections
            if self._allowed_updates != DEFAULT_ALLOWED_UPDATES:
                info["allowed_updates"] = sorted(self._allowed_updates)
            if hook.last_error_date is not None:
                info["last_error_date"] = hook.last_error_date
                info["last_error_message"] = hook.last_error_message
        return info

    @property
    def webhook_url(self) -> str | None:
        """The URL set with setWebhook, None while the bot polls."""
        return None if self._webhook is None else self._webhook.url

    async def _drop_webhook(self) -> None:
        hook, self._webhook = self._webhook, None
        if hook is not None:
            await hook.stop()

    def _delivery_tried(self, delivery: Delivery) -> None:
        self.webhook_deliveries.append(delivery)
        self._changed.fire()

    def _taken(self, updates: list[JSONDict]) -> None:
        """Note when the bot first got each press (what it then took is its own time)."""
        now = time.time()
        for update in updates:
            query = self._queries.get(update.get("callback_query", {}).get("id", ""))
            if query is not None and query.record.taken_at is None:
                query.record.taken_at = now

    def _delivered(self, update: JSONDict) -> None:
        self._updates = [u for u in self._updates if u["update_id"] != update["update_id"]]
        self._changed.fire()
