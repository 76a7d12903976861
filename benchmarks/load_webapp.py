"""A simulated person who plays in the Mini App instead of on the hand message.

They open the page of their table (the hand's web_app button says which), keep its event
stream open and its heartbeat going (``POST /api/alive`` every 5 s, as the page does), and on
their turn think for the same time as a chat player and make a legal move with
``POST /api/move``, as the page does after its taps. They never press a button of their
hand message. When a match ends the stream ends; the next match's hand names the next table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from web.initdata import telegram_init_data

from benchmarks.load_people import Person

__all__ = ["WebPerson"]

HEARTBEAT = 5.0  # seconds, as app.js


@dataclass(eq=False)
class WebPerson(Person):
    base: str = ""  # the bot's public URL (KOZEL_PUBLIC_URL)
    errors: int = 0  # API calls refused or failed
    state: dict[str, Any] | None = field(default=None, repr=False)
    changed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    async def fidget(self) -> None:
        return None  # a person in the page taps nothing on the hand message

    def table_id(self) -> int | None:
        """The table of their latest hand message (its web_app button's URL)."""
        hand = self.hand()
        for button in hand.buttons if hand is not None else ():
            url = (button.raw.get("web_app") or {}).get("url", "")
            if "table=" in url:
                return int(url.rsplit("table=", 1)[1])
        return None

    async def run(self) -> None:
        headers = {"X-Telegram-Init-Data": self._init_data()}
        timeout = aiohttp.ClientTimeout(total=None, sock_read=20)
        async with aiohttp.ClientSession(self.base, headers=headers, timeout=timeout) as http:
            beat = asyncio.create_task(self._heartbeat(http))
            finished: int | None = None  # the table whose match they saw end
            try:
                while not self.stop.is_set():
                    table = self.table_id()
                    if table is None or table == finished:
                        await self._pause((0.5, 0.5))  # until the next match's hand comes
                        continue
                    if not await self._play_table(http, table):
                        await self._pause((1.0, 1.0))
                    elif self.state is not None and self.state["status"] != "playing":
                        finished = table
            finally:
                beat.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await beat

    def _init_data(self) -> str:
        return telegram_init_data(self.fake.token, self.user.id, first_name=self.user.first_name)

    async def _play_table(self, http: aiohttp.ClientSession, table: int) -> bool:
        """Watch the table's stream and move on their turns until it ends; False if it
        could not be opened (the match is over, or not begun)."""
        listen = asyncio.create_task(self._listen(http, table))
        try:
            while not listen.done() and not self.stop.is_set():
                state = self.state
                if state is not None and state.get("table") == table and state["my_turn"]:
                    await self._move(http, table, state)
                self.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), 1.0)
            return listen.done() and listen.result()
        finally:
            listen.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listen

    async def _listen(self, http: aiohttp.ClientSession, table: int) -> bool:
        try:
            async with http.get("/api/events", params={"table": table}) as response:
                if response.status != 200:
                    self.errors += 1
                    return False
                async for line in response.content:
                    text = line.decode()
                    if text.startswith("data: "):
                        self.state = json.loads(text[6:])
                        self.changed.set()
        except (aiohttp.ClientError, TimeoutError):
            self.errors += 1
        return True

    async def _move(self, http: aiohttp.ClientSession, table: int, state: dict[str, Any]) -> None:
        ply = state["ply"]
        if not await self._pause(self.pace.think):
            return
        current = self.state
        if current is None or current["ply"] != ply or not current["my_turn"]:
            return
        moves = [a for a in current["actions"] if not a["special"]]
        if not moves:
            return
        action = self.rng.choice(moves)
        body = {"ply": ply, "verb": action["verb"], "cards": action["cards"]}
        self.presses += 1
        try:
            async with http.post("/api/move", params={"table": table}, json=body) as response:
                data = await response.json() if response.status == 200 else {}
        except (aiohttp.ClientError, TimeoutError):
            data = {}
        if data.get("ok"):
            self.plays += 1
            self.state = data["state"]
        else:
            self.errors += 1

    async def _heartbeat(self, http: aiohttp.ClientSession) -> None:
        while not self.stop.is_set():
            table = self.table_id()
            if table is not None:
                with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                    async with http.post("/api/alive", params={"table": table}):
                        pass
            await self._pause((HEARTBEAT, HEARTBEAT))
