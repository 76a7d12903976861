"""The fake Bot API's webhooks, driven by python-telegram-bot's client and a small receiver."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from fakebot import TEST_TOKEN, FakeTelegram
from fakebot.proxy import serve
from fakebot.webhook import SECRET_HEADER, chat_key
from telegram import Bot
from telegram.error import BadRequest, Conflict


class Receiver:
    """A webhook endpoint that records what it gets and answers what the test says."""

    def __init__(self) -> None:
        self.got: list[tuple[int, str | None]] = []  # (update_id, secret header)
        self.status = 200
        self.fail_ids: dict[int, int] = {}  # update_id -> how many first tries fail
        self.hold: asyncio.Event | None = None
        self.port = 0
        self._runner: web.AppRunner | None = None

    async def handle(self, request: web.Request) -> web.Response:
        update = await request.json()
        update_id = int(update["update_id"])
        self.got.append((update_id, request.headers.get(SECRET_HEADER)))
        if self.hold is not None:
            await self.hold.wait()
        if self.fail_ids.get(update_id, 0) > 0:
            self.fail_ids[update_id] -= 1
            return web.Response(status=500)
        return web.Response(status=self.status)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/hook", self.handle)
        self._runner, self.port = await serve(app)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def wait_got(self, count: int, timeout: float = 5.0) -> None:
        """Until ``count`` requests arrived (they may still be held, unanswered)."""
        async with asyncio.timeout(timeout):
            while len(self.got) < count:
                await asyncio.sleep(0.01)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"


@pytest.fixture
async def bot(fake_telegram: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(TEST_TOKEN, base_url=fake_telegram.base_url) as client:
        yield client


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    hook = Receiver()
    await hook.start()
    try:
        yield hook
    finally:
        await hook.stop()


async def test_updates_are_posted_with_the_secret_and_polling_is_refused(
    fake_telegram: FakeTelegram, bot: Bot, receiver: Receiver
) -> None:
    fake = fake_telegram
    assert await bot.set_webhook(receiver.url, secret_token="abc_DEF-1")
    ann = fake.add_user("Ann")
    await ann.start_bot()
    await fake.wait_for(lambda: fake.pending_updates == [], what="the update taken")
    assert receiver.got == [(fake.update_log[-1]["update_id"], "abc_DEF-1")]
    with pytest.raises(Conflict, match="webhook is active"):
        await bot.get_updates()
    info = await bot.get_webhook_info()
    assert (info.url, info.pending_update_count, info.max_connections) == (receiver.url, 0, 40)


async def test_a_failed_delivery_is_retried_and_a_chat_keeps_its_order(
    fake_telegram: FakeTelegram, bot: Bot, receiver: Receiver
) -> None:
    fake = fake_telegram
    await bot.set_webhook(receiver.url)
    ann, bob = fake.add_user("Ann"), fake.add_user("Bob")
    receiver.hold = asyncio.Event()
    await ann.start_bot()
    first = fake.update_log[-1]["update_id"]
    receiver.fail_ids[first] = 2
    await ann.send(ann, "/help")
    await bob.start_bot()  # another chat: not held up behind Ann's
    await receiver.wait_got(2)  # both chats' first updates, held unanswered
    assert sorted(u for u, _ in receiver.got) == [first, first + 2]
    receiver.hold.set()
    await fake.wait_for(lambda: fake.pending_updates == [], what="every update taken")
    anns = [u for u, _ in receiver.got if u != first + 2]
    assert anns == [first, first, first, first + 1]  # twice refused, then taken; then the next
    refused = [d for d in fake.webhook_deliveries if d.status == 500]
    assert len(refused) == 2
    info = await bot.get_webhook_info()
    assert info.last_error_message == "Wrong response from the webhook: 500 Internal Server Error"


async def test_setting_the_same_webhook_again_does_not_post_an_update_twice(
    fake_telegram: FakeTelegram, bot: Bot, receiver: Receiver
) -> None:
    """As Telegram ("Webhook is already set"): a second worker starting sets the same webhook;
    a post under way is not sent again beside it (another worker would get it meanwhile)."""
    fake = fake_telegram
    await bot.set_webhook(receiver.url, secret_token="x")
    ann = fake.add_user("Ann")
    receiver.hold = asyncio.Event()
    await ann.start_bot()
    await receiver.wait_got(1)  # held, unanswered
    assert await bot.set_webhook(receiver.url, secret_token="x")
    await asyncio.sleep(0.3)
    assert len(receiver.got) == 1
    receiver.hold.set()
    await fake.wait_for(lambda: fake.pending_updates == [], what="the update taken")
    assert [d.status for d in fake.webhook_deliveries] == [200]
    # Another secret is another webhook: what is pending goes out again, with the new one.
    receiver.hold = asyncio.Event()
    await ann.send(ann, "/help")
    await receiver.wait_got(2)
    assert await bot.set_webhook(receiver.url, secret_token="y")
    await receiver.wait_got(3)
    assert receiver.got[-1] == (receiver.got[-2][0], "y")
    receiver.hold.set()


async def test_pending_updates_wait_and_go_to_get_updates_after_delete_webhook(
    fake_telegram: FakeTelegram, bot: Bot, receiver: Receiver
) -> None:
    fake = fake_telegram
    receiver.status = 401
    await bot.set_webhook(receiver.url, secret_token="x")
    ann = fake.add_user("Ann")
    await ann.start_bot()
    await fake.wait_for(lambda: len(receiver.got) >= 2, what="a retried delivery")
    assert (await bot.get_webhook_info()).pending_update_count == 1
    assert (await bot.get_webhook_info()).last_error_message == (
        "Wrong response from the webhook: 401 Unauthorized"
    )
    assert await bot.delete_webhook()
    tried = len(receiver.got)
    updates = await bot.get_updates()
    assert [u.update_id for u in updates] == [fake.update_log[-1]["update_id"]]
    await asyncio.sleep(0.3)
    assert len(receiver.got) == tried  # no delivery after deleteWebhook
    assert (await bot.get_webhook_info()).url == ""


async def test_set_webhook_wants_https_and_a_clean_secret(bot: Bot) -> None:
    with pytest.raises(BadRequest, match=r"(?i)https url must be provided"):
        await bot.set_webhook("http://bot.example.org/hook")
    with pytest.raises(BadRequest, match=r"(?i)ports 80, 88, 443 or 8443"):
        await bot.set_webhook("https://bot.example.org:8080/hook")
    with pytest.raises(BadRequest, match=r"(?i)secret token"):
        await bot.set_webhook("https://bot.example.org/hook", secret_token="no spaces")
    assert await bot.set_webhook("https://bot.example.org/hook", secret_token="ok")


def test_chat_key_orders_by_chat_then_sender() -> None:
    chat = {"id": -5, "type": "group"}
    assert chat_key({"update_id": 1, "message": {"chat": chat}}) == -5
    assert (
        chat_key({"update_id": 2, "callback_query": {"from": {"id": 7}, "message": {"chat": chat}}})
        == -5
    )
    assert chat_key({"update_id": 3, "callback_query": {"from": {"id": 7}}}) == "user:7"
