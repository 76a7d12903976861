"""The Mini App's HTTP side: the page, its API and its live event stream (aiohttp routes).

Every API call carries the raw ``initData`` in the ``X-Telegram-Init-Data`` header; it is
checked (``auth``) before anything is read, and binds the caller to their own seat, or, for a
member of the table's group who has none, to the public view (a spectator; membership is
asked of Telegram once and cached). Moves go through the service's use cases, the same as the
hand's buttons. The stream pushes the page's state after every committed change of its table
(``Core.live``), with no Telegram call.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Coroutine
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

from aiohttp import web

from ..i18n import get_translator, negotiate
from ..service import coach, replay, share, webapp
from ..service.core import Core
from ..service.live import TooManyWatchers
from ..service.ports import Person
from ..wake import woken
from .auth import MAX_AGE, InitDataError, WebUser, check_init_data
from .limits import RateLimit
from .replay_json import replay_state
from .seat_json import seat_state
from .strings import page_strings, replay_strings, too_many_text, unauthorized_text

log = logging.getLogger(__name__)

HEADER = "X-Telegram-Init-Data"
RECHECK = 5.0  # seconds between a stream's own looks at its table (pushes may come from elsewhere)
MAX_BODY = 2048
BODY_TIMEOUT = 10.0  # seconds a request's body may take to arrive
JS = "application/javascript"
STATIC = {  # the page's ES modules and its style sheet
    "app.js": JS,
    "api.js": JS,
    "model.js": JS,
    "view.js": JS,
    "dom.js": JS,
    "replay.js": JS,
    "app.css": "text/css",
}
# The page's own files, and Telegram's script, which the page loads first. Inline style is
# allowed for Telegram Web: its script puts the client's style in a <style> element.
CSP = (
    "default-src 'none'; script-src 'self' https://telegram.org; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'"
)


class MiniApp:
    def __init__(
        self,
        core: Core,
        token: str,
        members: webapp.GroupMember | None = None,
        prepare: share.Preparer | None = None,
    ) -> None:
        """``members``: asks Telegram whether a user is in a group (None: nobody may watch);
        ``prepare``: stores a result card to share (None: sharing is off)."""
        self.core = core
        self._prepare = prepare
        self._token = token
        self._limit = RateLimit()
        self._tasks: set[asyncio.Task[None]] = set()  # hands owed after a page is gone
        self.members = webapp.Members(members or _nobody)
        folder = resources.files("bot.web") / "static"
        self._files = {name: (folder / name).read_bytes() for name in [*STATIC, "app.html"]}

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/app", self.page),
            web.get("/app/static/{name}", self.static),
            web.get("/api/state", self.state),
            web.post("/api/move", self.move),
            web.post("/api/tap", self.tap),
            web.post("/api/back", self.back),
            web.post("/api/coach", self.coach),
            web.get("/api/replay", self.replay),
            web.post("/api/share", self.share),
            web.get("/api/events", self.events),
            web.post("/api/alive", self.alive),
        ]

    async def close(self) -> None:
        """End every open stream (the server is stopping)."""
        self.core.live.close()
        await asyncio.sleep(0)

    # ---------------------------------------------------------------- files

    async def page(self, request: web.Request) -> web.Response:
        headers = {"Content-Security-Policy": CSP, "Cache-Control": "no-cache"}
        return web.Response(
            body=self._files["app.html"], content_type="text/html", charset="utf-8", headers=headers
        )

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC:
            raise web.HTTPNotFound()
        return web.Response(
            body=self._files[name],
            content_type=STATIC[name],
            charset="utf-8",
            headers={"Cache-Control": "no-cache"},
        )

    # ---------------------------------------------------------------- API

    async def state(self, request: web.Request) -> web.Response:
        user, table_id = self._caller(request)
        page = await self._page(table_id, user)
        return _json(
            {"state": seat_state(page), "strings": page_strings(page.t), "lang": page.t.lang}
        )

    async def move(self, request: web.Request) -> web.Response:
        user, table_id = self._caller(request)
        body = await _body(request)
        ply, verb, cards = body.get("ply"), body.get("verb"), _cards(body.get("cards"))
        if not isinstance(ply, int) or not isinstance(verb, str) or cards is None:
            raise web.HTTPBadRequest(text="bad move")
        reply, made = await webapp.move(self.core, table_id, _person(user), ply, verb, cards)
        return await self._answer(table_id, user, reply.text, made)

    async def tap(self, request: web.Request) -> web.Response:
        """A tap on a card with the page's selection: what the hand's tap rule makes of it
        (select, refuse with the reason, or play at once; ``tap`` says which)."""
        user, table_id = self._caller(request)
        body = await _body(request)
        ply, card, chosen = body.get("ply"), body.get("card"), _cards(body.get("chosen", []))
        if not isinstance(ply, int) or not isinstance(card, str) or chosen is None:
            raise web.HTTPBadRequest(text="bad tap")
        done = await webapp.tap_card(self.core, table_id, _person(user), ply, card, chosen)
        now_chosen = [str(c) for c in done.tap.chosen]
        return await self._answer(
            table_id, user, done.reply.text, done.ok, tap=done.tap.kind, chosen=now_chosen
        )

    async def back(self, request: web.Request) -> web.Response:
        user, table_id = self._caller(request)
        reply = await webapp.come_back(self.core, table_id, _person(user))
        return await self._answer(table_id, user, reply.text, not reply.alert)

    async def coach(self, request: web.Request) -> web.Response:
        """ "How did I play?" about a finished deal: the coach's answer comes in the chat."""
        user, table_id = self._caller(request)
        body = await _body(request)
        deal = body.get("deal")
        if not isinstance(deal, int) or isinstance(deal, bool):
            raise web.HTTPBadRequest(text="bad deal")
        reply = await coach.ask(self.core, table_id, _person(user), deal)
        return await self._answer(table_id, user, reply.text, not reply.alert)

    async def replay(self, request: web.Request) -> web.Response:
        """A finished deal, trick by trick, for a player of the table or (once the match is
        over) a member of its group; nothing of a deal still being played."""
        user, table_id = self._caller(request, alive=False)  # not the live table's page
        deal = request.query.get("deal", "")
        if not deal.isdigit() or len(deal) > 4:
            raise web.HTTPBadRequest(text="bad deal")
        try:
            member = self.members.of(user.user_id)
            page = await replay.open_replay(self.core, table_id, _person(user), int(deal), member)
        except replay.NoReplay as err:
            raise _refused(403, str(err)) from None
        return _json({"replay": replay_state(page), "strings": replay_strings(page.t)})

    async def share(self, request: web.Request) -> web.Response:
        """ "📤 Share" under the match's result: the card is prepared for the caller to send
        with ``Telegram.WebApp.shareMessage`` (its id comes back)."""
        user, table_id = self._caller(request)
        if self._prepare is None:
            raise web.HTTPNotFound()
        member = self.members.of(user.user_id)
        done = await share.share(self.core, table_id, _person(user), self._prepare, member)
        return _json({"ok": done.ok, "text": done.text, "id": done.id})

    async def _answer(
        self, table_id: int, user: WebUser, text: str, ok: bool, **more: object
    ) -> web.Response:
        page = await self._page(table_id, user)
        return _json({"ok": ok, "text": text, **more, "state": seat_state(page)})

    # ---------------------------------------------------------------- live

    async def alive(self, request: web.Request) -> web.Response:
        """The page's heartbeat while it is shown: its player is watching (``_caller`` counts
        every checked call as a sign of life; this one does nothing else)."""
        self._caller(request)
        return web.Response(status=204)

    async def events(self, request: web.Request) -> web.StreamResponse:
        user, table_id = self._caller(request)
        page = await self._page(table_id, user)
        expires = user.auth_date + MAX_AGE  # then the stream ends: the page must prove itself
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",  # proxies must not hold the events back
            }
        )
        seat = page.seat
        try:
            with self.core.live.watch(table_id, seat, user.user_id) as watcher:
                await response.prepare(request)
                sent = None
                while not watcher.closed and time.time() < expires:
                    watcher.changed.clear()
                    page = await self._page(table_id, user)
                    if page.table.version != sent:
                        data = json.dumps(seat_state(page), ensure_ascii=False)
                        await response.write(f"event: state\ndata: {data}\n\n".encode())
                        sent = page.table.version
                    else:
                        await response.write(b": still here\n\n")
                    if not webapp.is_playing(page.table):
                        break  # the final state is out; nothing will change any more
                    await woken(watcher.changed, RECHECK)
                    await webapp.page_gone(self.core, table_id, page.seat)  # if it froze
        except TooManyWatchers:
            raise _refused(429, too_many_text(page.t)) from None
        except (ConnectionError, web.HTTPForbidden):
            pass  # the page went away, or the player lost the seat
        finally:  # also when the request is cancelled (the page went away): a task of its own
            self._later(webapp.page_gone(self.core, table_id, seat))
        return response

    def _later(self, job: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---------------------------------------------------------------- checks

    def _caller(self, request: web.Request, *, alive: bool = True) -> tuple[WebUser, int]:
        raw = request.headers.get(HEADER)
        try:
            user = check_init_data(raw, self._token)
        except InitDataError as err:
            log.info("mini app: refused initData from %s: %s", request.remote, err)
            t = get_translator(_unverified_language(raw))
            raise _refused(401, unauthorized_text(t)) from None
        t = get_translator(negotiate(user.language_code))
        if not self._limit.allow(user.user_id, time.monotonic()):
            raise _refused(429, too_many_text(t))
        table = request.query.get("table") or user.start_param or ""
        if not table.isdigit() or len(table) > 12:
            raise web.HTTPBadRequest(text="no table")
        if alive:
            self.core.live.alive(int(table), user.user_id)  # the page is there
        return user, int(table)

    async def _page(self, table_id: int, user: WebUser) -> webapp.SeatPage:
        try:
            member = self.members.of(user.user_id)
            return await webapp.open_seat(self.core, table_id, _person(user), member)
        except webapp.NotSeated as err:
            raise _refused(403, str(err)) from None


async def _nobody(_chat_id: int, _user_id: int) -> bool:
    return False


def _person(user: WebUser) -> Person:
    return Person(user.user_id, user.first_name, user.username, user.language_code)


def _unverified_language(raw: str | None) -> str:
    """The language an unchecked initData claims: only to word the refusal."""
    try:
        user = json.loads(parse_qs(raw or "").get("user", ["{}"])[0])
        code = user.get("language_code") if isinstance(user, dict) else None
    except ValueError:
        code = None
    return negotiate(code if isinstance(code, str) else None)


def _cards(value: object) -> list[str] | None:
    """At most four card texts, as the page sends them (None: anything else)."""
    if not isinstance(value, list) or len(value) > 4 or not all(isinstance(c, str) for c in value):
        return None
    return value


async def _body(request: web.Request) -> dict[str, Any]:
    if request.content_length is None or request.content_length > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(
            max_size=MAX_BODY, actual_size=request.content_length or 0
        )
    try:
        async with asyncio.timeout(BODY_TIMEOUT):  # a body sent a byte at a time is refused
            body = await request.json()
    except TimeoutError:
        raise web.HTTPRequestTimeout(text="too slow") from None
    except ValueError:
        raise web.HTTPBadRequest(text="not JSON") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="not an object")
    return body


def _json(data: dict[str, Any]) -> web.Response:
    return web.json_response(data, dumps=lambda d: json.dumps(d, ensure_ascii=False))


def _refused(status: int, text: str) -> web.HTTPException:
    kinds: dict[int, type[web.HTTPException]] = {
        401: web.HTTPUnauthorized,
        403: web.HTTPForbidden,
        429: web.HTTPTooManyRequests,
    }
    body = json.dumps({"error": text}, ensure_ascii=False)
    return kinds[status](text=body, content_type="application/json")
