"""The Mini App in a real browser (headless Chromium driven by Selenium, 390×844 CSS px) with
Telegram's real ``telegram-web-app.js``, against the real bot process and the fake Bot API.

A native client (``TelegramWebviewProxy``) opens Anna's page from her hand's web_app button
and she plays a whole deal against computer players by tapping cards, while Bea, a member of
the group without a seat, watches the group's table link. Telegram Web (an iframe parent at
web.telegram.org) opens the table too. What a card player would notice is measured: table
card sizes, a hand that never moves, a clear whose-move, the turn cue, Telegram's events
(ready, expand, haptics, swipes, closing, theme, viewport), and not one console error.

Selenium's calls block, and the fake Bot API runs on this test's event loop: every browser
call goes through ``asyncio.to_thread``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from e2e.driver import ENV_FAST, Table
from fakebot.fixtures import BotProcessFactory
from fakebot.models import StoredMessage
from fakebot.server import FakeTelegram
from fakebot.users import SimUser
from initdata import telegram_init_data
from telegram_client import REPO, Browser, TelegramOrg, free_port, need_browser

pytestmark = pytest.mark.e2e

OUTPUT = Path(os.environ.get("KOZEL_TEST_OUTPUT", REPO / "test-output")) / "miniapp"
DARK = {  # Telegram's dark theme, as its clients pass it (tgWebAppThemeParams)
    "bg_color": "#101820",
    "text_color": "#f0f0f0",
    "hint_color": "#8a9aa9",
    "link_color": "#6ab3f3",
    "button_color": "#3a7bd5",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#1e2c3a",
}
LIGHT = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#999999",
    "link_color": "#2481cc",
    "button_color": "#2481cc",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#efeff3",
}

BROWSER = Path(__file__).parent / "browser"  # scripts run in the page (eslint checks them)
SNAPSHOT_JS = (BROWSER / "snapshot.js").read_text()
FIXED_JS = (BROWSER / "fixed.js").read_text()
# Counts the toasts the page shows (a move's answer), whenever the test looks.
TOAST_WATCH_JS = """
const box = document.getElementById('toast');
if (window.__toastsShown === undefined) {
  window.__toastsShown = 0;
  new MutationObserver(() => { if (box.classList.contains('shown')) window.__toastsShown++; })
    .observe(box, {attributes: true, attributeFilter: ['class']});
}
"""
# The longest toast the page shows (it takes three lines on a phone).
SHOW_TOAST_JS = """
const box = document.getElementById('toast');
box.textContent = '🎓 The coach is looking at your play in deal 1. The answer comes in your '
  + 'private chat in a moment.';
box.classList.add('shown');
"""
CUE_TIMER_JS = (BROWSER / "cue_timer.js").read_text()


@dataclass
class Figures:
    """What a card player would notice, measured over a deal (printed for the report)."""

    face_up_widths: list[float] = field(default_factory=list)
    rank_heights: list[float] = field(default_factory=list)
    hand_tops: list[float] = field(default_factory=list)  # the hand's own box
    card_tops: list[float] = field(default_factory=list)  # its cards, but a selected one
    waiting_opacity: list[float] = field(default_factory=list)
    cue_gone: list[float] = field(default_factory=list)
    updates: list[float] = field(default_factory=list)
    samples: int = 0

    def take(self, snap: dict[str, Any]) -> None:
        """Checks one look at the page during the deal."""
        self.samples += 1
        if snap["scene"] != "deal":
            self.face_up_widths += [c["w"] for c in snap["faceUp"]]
        self.rank_heights += snap["ranks"]
        self.hand_tops.append(snap["handTop"])
        self.card_tops += [c["top"] for c in snap["hand"] if not c["selected"]]
        if not snap["myTurn"]:
            self.waiting_opacity += [c["opacity"] for c in snap["hand"]]
        if snap["toMove"] is not None:
            assert snap["movers"] == [snap["toMove"]], snap  # the mover, and only the mover
        if snap["myTurn"]:  # a person's turn is timed (a computer's is not)
            assert re.fullmatch(r"⏱ \d:\d\d", snap["timer"] or ""), snap["timer"]

    def moved(self) -> float:
        """How far the hand's top edge moved (its box, or a card not selected)."""
        spread = [max(tops) - min(tops) for tops in (self.hand_tops, self.card_tops)]
        return max(spread)

    def check(self) -> None:
        """The issue's figures for a deal on a phone."""
        assert min(self.face_up_widths) >= 44, self.report()
        assert min(self.rank_heights) >= 12, self.report()
        assert self.moved() <= 8, self.report()
        assert self.waiting_opacity and min(self.waiting_opacity) >= 0.85, self.report()
        assert self.cue_gone and max(self.cue_gone) <= 1.0, self.report()

    def report(self) -> str:
        return (
            f"{self.samples} looks: face-up table cards {min(self.face_up_widths):.0f}-"
            f"{max(self.face_up_widths):.0f} px wide, trick ranks ≥ {min(self.rank_heights):.1f}"
            f" px; hand top moved {self.moved():.1f} px; waiting cards' opacity ≥ "
            f"{min(self.waiting_opacity):.2f}; cue gone {max(self.cue_gone):.3f} s after a tap "
            f"(max of {len(self.cue_gone)}); the page showed the next turn ≤ "
            f"{max(self.updates):.2f} s after a move"
        )


@dataclass
class Match:
    fake: FakeTelegram
    table: Table
    anna: SimUser
    bea: SimUser
    base: str
    page_url: str
    table_id: int


@pytest.fixture
async def telegram_org(tmp_path: Path) -> AsyncIterator[TelegramOrg]:
    need_browser()
    server = TelegramOrg(tmp_path)
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def match(fake_telegram: FakeTelegram, bot_process: BotProcessFactory) -> Match:
    """Anna and three computer players at a street table; Bea is in the group, not seated."""
    return await seat_anna(fake_telegram, bot_process)


async def seat_anna(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory, **more: str
) -> Match:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **ENV_FAST,
        **more,
        "KOZEL_PUBLIC_URL": base,
        "KOZEL_LISTEN": f"127.0.0.1:{port}",
        "KOZEL_WEBAPP_NAME": "table",
    }
    await bot_process(env=env).start()
    anna, bea = fake_telegram.add_user("Anna"), fake_telegram.add_user("Bea")
    group = fake_telegram.add_group("Kozel club", [anna, bea], admins=[anna])
    table = Table(fake_telegram, group)
    await table.start_private(anna)
    await table.open(anna, "street")
    for _ in range(3):
        await table.add_computer(anna, "basic")
    await table.start(anna)
    hand = await fake_telegram.wait_for(lambda: table.hand(anna), what="Anna's hand")
    opener = hand.buttons[-1]
    assert opener.text == "🃏 Open the table"
    page_url = opener.raw["web_app"]["url"]
    assert page_url.startswith(f"{base}/app?table=")
    table_id = int(page_url.rsplit("=", 1)[1])
    link = group_table(fake_telegram, table).buttons[0].url
    assert link == f"https://t.me/{fake_telegram.bot_user['username']}/table?startapp={table_id}"
    return Match(fake_telegram, table, anna, bea, base, page_url, table_id)


def fragment(token: str, user: SimUser, theme: dict[str, str], platform: str, **init: Any) -> str:
    """The URL fragment a Telegram client opens a Mini App with."""
    data = telegram_init_data(token, user.id, first_name=user.first_name, **init)
    start = init.get("start_param")
    return (
        f"tgWebAppData={quote(data, safe='')}&tgWebAppVersion=8.0&tgWebAppPlatform={platform}"
        f"&tgWebAppThemeParams={quote(json.dumps(theme), safe='')}"
        + (f"&tgWebAppStartParam={start}" if start else "")
    )


def group_table(fake: FakeTelegram, table: Table) -> StoredMessage:
    tables = [
        m
        for m in fake.messages(table.group, from_bot=True)
        if (m.text or "").startswith("🐐") and "Defeat points" in (m.text or "")
    ]
    assert tables, "the group has a table message"
    return tables[-1]


def disagreements(page: dict[str, Any], group: str) -> list[str]:
    """What the page shows that the group's table does not (empty: they agree)."""
    lines = group.splitlines()
    problems = []
    for label, text in (("trump/stock", page["stock"]), ("standings", page["score"])):
        if text not in lines:
            problems.append(f"{label} {text!r}")
    names = {}
    for chip in page["chips"]:
        name, counts = chip["title"].split(" · ", 1)
        names[chip["seat"]] = name
        if not any(name in line and line.endswith(counts) for line in lines):
            problems.append(f"seat {name!r}: {counts!r}")
    if page["scene"] == "current":
        for seat, name in names.items():
            cards = [c["card"] for c in page["trick"] if c["seat"] == seat]
            if not cards:
                continue
            said = [line for line in lines if line.startswith((f"🤖 {name}:", f"{name}:"))]
            shown = " ".join(c for c in cards if c)
            if not any((shown in line) if shown else ("face down" in line) for line in said):
                problems.append(f"play {name}: {cards}")
    return problems


async def agrees_with_the_group(match: Match, anna: Browser) -> dict[str, Any]:
    """The table waits for Anna: her page and the group's table say the same."""
    problems: list[str] = []
    deadline = time.monotonic() + 5  # the group's edit may come a little later
    while True:
        snap = await look(anna)
        group = group_table(match.fake, match.table).text or ""
        problems = disagreements(snap, group)
        if not problems or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    assert not problems, (problems, snap, group)
    return snap


async def look(browser: Browser) -> dict[str, Any]:
    data: dict[str, Any] = await asyncio.to_thread(browser.run, SNAPSHOT_JS)
    return data


async def until(
    browser: Browser, check: Callable[[dict[str, Any]], Any], what: str, timeout: float = 10.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        snap = await look(browser)
        if check(snap):
            return snap
        if time.monotonic() > deadline:
            errors = await asyncio.to_thread(browser.errors)
            raise AssertionError(f"timed out waiting for {what}; the page shows {snap}; {errors}")
        await asyncio.sleep(0.05)


async def no_console_errors(browser: Browser, where: str) -> None:
    errors = await asyncio.to_thread(browser.errors)
    assert not errors, f"console errors ({where}): {errors}"


async def test_a_deal_at_the_card_table_in_a_native_telegram_client(
    match: Match, telegram_org: TelegramOrg
) -> None:
    fake = match.fake
    anna = await asyncio.to_thread(Browser, telegram_org, native=True)
    bea = await asyncio.to_thread(Browser, telegram_org, native=True)
    try:
        own = fragment(fake.token, match.anna, DARK, "ios")
        await asyncio.to_thread(anna.open, f"{match.page_url}#{own}")
        watching = fragment(fake.token, match.bea, LIGHT, "android", start_param=match.table_id)
        await asyncio.to_thread(bea.open, f"{match.base}/app#{watching}")
        first = await until(anna, lambda s: s["status"] == "playing", "the table")
        assert first["background"] == "rgb(16, 24, 32)"  # Telegram's theme
        assert first["scrollWidth"] <= first["innerWidth"] == 390  # no sideways scrolling
        await telegram_handshake(anna)
        await full_screen(anna)
        await asyncio.to_thread(anna.run, COUNT_SWEPT)
        spectator = await until(bea, lambda s: s["status"] == "playing", "Bea's table")
        assert spectator["spectator"] and not spectator["hand"]
        figures = await play_the_deal(match, anna, bea)
        print(figures.report())
        figures.check()
        # Each taken trick's cards flew to the taker and were gone after the flight.
        swept = await asyncio.to_thread(anna.run, "return window.__swept")
        assert swept >= 2 * TRICKS_SWEPT, swept
        await until(anna, lambda s: s["sweeping"] == 0, "the swept cards to land")
        await deal_result(match, anna)
        await reload_without_fragment(match, anna)
        for browser, who in ((anna, "Anna"), (bea, "Bea")):
            await no_console_errors(browser, who)
        # The turn was felt through Telegram's haptics, never the browser's vibrate().
        warning = {"type": "notification", "notification_type": "warning"}
        assert ("web_app_trigger_haptic_feedback", warning) in await asyncio.to_thread(anna.sent)
        assert not await asyncio.to_thread(anna.run, "return window.__telegram.vibrations")
        watcher = await asyncio.to_thread(bea.sent)  # Bea may close her page without a question
        assert ("web_app_setup_closing_behavior", {"need_confirmation": True}) not in watcher
        asked = [c for c in fake.calls_to("getChatMember") if c.params["user_id"] == match.bea.id]
        assert 1 <= len(asked) <= 2, asked  # cached: not a Telegram call per card for her
        await forged_init_data_is_refused(match, anna)
    finally:
        await asyncio.to_thread(anna.close)
        await asyncio.to_thread(bea.close)


PLACES_JS = """
const main = document.getElementById('app'), top = document.querySelector('header.top');
const button = document.getElementById('fullscreen');
return {padding: parseFloat(getComputedStyle(main).paddingTop),
  header: top.getBoundingClientRect().top,
  button: button && !button.hidden ? button.getAttribute('aria-label') : null};
"""


async def full_screen(anna: Browser) -> None:
    """On a phone with Telegram 8.0 the table goes full screen and back: the header moves
    below the status bar and Telegram's buttons (the safe areas), then returns."""
    from selenium.webdriver.common.by import By

    before = await asyncio.to_thread(anna.run, PLACES_JS)
    assert before["button"] == "Full screen" and before["header"] < 20, before
    await asyncio.to_thread(anna.driver.find_element(By.ID, "fullscreen").click)
    deadline = time.monotonic() + 5
    while (full := await asyncio.to_thread(anna.run, PLACES_JS))["button"] != "Leave full screen":
        assert time.monotonic() < deadline, full
        await asyncio.sleep(0.05)
    assert full["padding"] >= 6 + 47 + 46 and full["header"] >= 47 + 46, full
    assert "web_app_request_fullscreen" in [kind for kind, _ in await asyncio.to_thread(anna.sent)]
    await asyncio.to_thread(anna.screenshot, OUTPUT / "dark-fullscreen.png")
    await asyncio.to_thread(anna.driver.find_element(By.ID, "fullscreen").click)
    deadline = time.monotonic() + 5
    while (back := await asyncio.to_thread(anna.run, PLACES_JS))["button"] != "Full screen":
        assert time.monotonic() < deadline, back
        await asyncio.sleep(0.05)
    assert back["header"] == before["header"], (back, before)


# Counts the cards that start flying to a trick's taker (they are moved into `.sweep`).
COUNT_SWEPT = """
window.__swept = 0;
new MutationObserver((changes) => {
  for (const change of changes) window.__swept += change.addedNodes.length;
}).observe(document.querySelector(".sweep"), { childList: true });
"""
TRICKS_SWEPT = 3  # a deal has more tricks; a few taken while the page looked are enough


async def telegram_handshake(browser: Browser) -> None:
    """The page tells Telegram it is ready, takes the whole height, keeps swipes from closing
    it and asks before closing during the deal."""
    sent = await asyncio.to_thread(browser.sent)
    kinds = [kind for kind, _ in sent]
    for kind in ("web_app_ready", "web_app_expand", "web_app_request_viewport"):
        assert kind in kinds, kinds
    assert ("web_app_setup_swipe_behavior", {"allow_vertical_swipe": False}) in sent
    assert ("web_app_setup_closing_behavior", {"need_confirmation": True}) in sent


async def play_the_deal(match: Match, anna: Browser, bea: Browser) -> Figures:
    """Anna plays deal 1 by tapping cards; every look at her page and Bea's is checked."""
    figures = Figures()
    shots = viewport_checked = peeked = 0
    moved: float | None = None
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        snap = await until(
            anna, lambda s: s["myTurn"] or s["scene"] == "deal", "Anna's turn or the deal's end", 30
        )
        if moved is not None:
            figures.updates.append(time.monotonic() - moved)
        figures.take(snap)
        if snap["scene"] == "deal":
            assert shots and viewport_checked and peeked, (shots, viewport_checked, peeked)
            return figures
        snap = await agrees_with_the_group(match, anna)
        await spectator_agrees(bea, anna)
        if len(snap["trick"]) >= 2 and not shots:
            await both_themes(anna, "trick")
            snap = await look(anna)
            shots += 1
        if not viewport_checked and shots:
            await asyncio.to_thread(
                anna.telegram_event,
                "viewport_changed",
                {"height": 480, "is_expanded": False, "is_state_stable": True},
            )
            await asyncio.to_thread(
                anna.telegram_event,
                "safe_area_changed",
                {"top": 0, "bottom": 34, "left": 0, "right": 0},
            )
        assert snap["cue"] or moved is not None, snap  # the first turn is cued in the page
        if snap["lastTrick"] == "Show the last trick" and not peeked:
            await peek_at_the_last_trick(anna)
            peeked = 1
        if not viewport_checked and shots:
            await asyncio.to_thread(anna.run, TOAST_WATCH_JS)
        await make_a_move(anna, snap, figures)
        moved = time.monotonic()
        if not viewport_checked and shots:
            await fixed_elements_within(anna, 480 - 34)
            await asyncio.to_thread(
                anna.telegram_event,
                "viewport_changed",
                {"height": 844, "is_expanded": True, "is_state_stable": True},
            )
            viewport_checked = 1
        await waiting_looks(anna, figures)
    raise AssertionError("the deal did not end in time")


async def peek_at_the_last_trick(anna: Browser) -> None:
    """The button in the felt's corner shows the last trick in place, and hides it again."""
    from selenium.webdriver.common.by import By

    before = await look(anna)
    await asyncio.to_thread(anna.driver.find_element(By.ID, "last-trick").click)
    peek = await until(anna, lambda s: s["scene"] == "peek", "the last trick")
    assert peek["lastTrick"] == "Hide the last trick" and peek["trick"] != before["trick"]
    caption = await asyncio.to_thread(
        anna.run, "return document.getElementById('caption').textContent"
    )
    assert caption.startswith("Last trick taken by"), caption
    assert any(c["top"] for c in peek["trick"])  # the winner's cards marked
    await asyncio.to_thread(anna.driver.find_element(By.ID, "last-trick").click)
    # The table again: the trick under way, or (Anna took the last one) an empty felt.
    again = await until(anna, lambda s: s["scene"] != "peek", "the table again")
    assert again["scene"] in ("current", "taken", "empty"), again
    assert again["lastTrick"] == "Show the last trick", again


async def waiting_looks(anna: Browser, figures: Figures) -> None:
    """Looks at the page while the computers move (the hand waits at full contrast)."""
    for _ in range(3):
        snap = await look(anna)
        if snap["myTurn"] or snap["scene"] == "deal":
            return
        figures.take(snap)
        await asyncio.sleep(0.05)


async def make_a_move(anna: Browser, snap: dict[str, Any], figures: Figures) -> None:
    """Tap cards as a player does: one after another until they are played, or until a
    confirm button offers to play the cards chosen (multi-card plays, beat or discard)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    ply = snap["ply"]
    cued = snap["cue"]
    for _ in range(3):  # a push may redraw the hand under the finger: look again
        try:
            for card in [h["card"] for h in snap["hand"] if not h["dimmed"] and not h["selected"]]:
                button = await asyncio.to_thread(
                    anna.driver.find_element, By.CSS_SELECTOR, f'#hand button[data-card="{card}"]'
                )
                assert button.accessible_name == card  # what a screen reader says
                if cued:
                    await asyncio.to_thread(anna.run, CUE_TIMER_JS)
                await asyncio.to_thread(button.click)
                if cued:
                    figures.cue_gone.append(await cue_gone(anna))
                    cued = False
                before = snap["hand"]
                now = await until(
                    anna,
                    lambda s, before=before: s["ply"] != ply or s["confirm"] or s["hand"] != before,
                    "the tap's answer",
                )
                figures.take(now)
                if now["ply"] != ply:
                    return
                if now["confirm"]:
                    await asyncio.to_thread(
                        anna.driver.find_element(By.CSS_SELECTOR, "#actions button.confirm").click
                    )
                    await until(anna, lambda s: s["ply"] != ply, "the move made")
                    return
                snap = now
        except StaleElementReferenceException:
            snap = await look(anna)
            if snap["ply"] != ply:
                return
    raise AssertionError(f"no card could be played: {snap}")


async def cue_gone(anna: Browser) -> float:
    """Seconds from the tap to the cue's going, as the page itself timed them. (Not a look
    for a strip without the cue: a tap that plays may let the computers answer and give Anna
    the lead again, with a new cue, before the test looks: it failed so in CI.)"""
    deadline = time.monotonic() + 5
    while True:
        timed = await asyncio.to_thread(anna.run, "return window.__cue")
        if timed["gone"] is not None:
            return float(timed["gone"] - timed["tapped"]) / 1000
        if time.monotonic() > deadline:
            raise AssertionError(f"the cue did not go after the tap: {await look(anna)}")
        await asyncio.sleep(0.05)


async def spectator_agrees(bea: Browser, anna: Browser) -> None:
    """Bea sees the trick Anna sees, live, and no card of any hand. (Both pages are looked at
    again until they show the same move: a computer may declare a special lead at any time.)"""
    deadline = time.monotonic() + 5
    while True:
        mine, theirs = await look(anna), await look(bea)
        if (mine["ply"], mine["scene"]) == (theirs["ply"], theirs["scene"]):
            break
        assert time.monotonic() < deadline, ("Bea's page does not follow the table", mine, theirs)
        await asyncio.sleep(0.05)
    assert theirs["spectator"] and not theirs["hand"] and not theirs["myTurn"]
    own = {h["card"] for h in mine["hand"]}
    shown = {c["card"] for c in theirs["trick"] if c["card"]}
    assert not shown & own, "a spectator never sees a card of a hand"
    assert [c["card"] for c in theirs["trick"]] == [c["card"] for c in mine["trick"]]
    assert "watching" in (theirs["strip"] or "")


SETTLED_JS = """
return document.getAnimations().every(
  (a) => a.playState !== 'running' || a.effect.getComputedTiming().iterations === Infinity);
"""


async def settled(browser: Browser) -> None:
    """Every animation that ends has ended (a glow goes on for ever)."""
    deadline = time.monotonic() + 3
    while not await asyncio.to_thread(browser.run, SETTLED_JS) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


async def both_themes(anna: Browser, moment: str) -> None:
    """Screenshots in Telegram's dark theme and, switched live, its light one (and back)."""
    await settled(anna)
    await asyncio.to_thread(anna.screenshot, OUTPUT / f"dark-{moment}.png")
    dark = await look(anna)
    await asyncio.to_thread(anna.telegram_event, "theme_changed", {"theme_params": LIGHT})
    light = await until(anna, lambda s: s["background"] == "rgb(255, 255, 255)", "the light theme")
    assert light["felt"] != dark["felt"]  # the felt follows Telegram's theme too
    await settled(anna)
    await asyncio.to_thread(anna.screenshot, OUTPUT / f"light-{moment}.png")
    await asyncio.to_thread(anna.telegram_event, "theme_changed", {"theme_params": DARK})
    await until(anna, lambda s: s["background"] == "rgb(16, 24, 32)", "the dark theme again")


async def fixed_elements_within(anna: Browser, bottom: float) -> None:
    """After Telegram shrank the visible height, the toast (and anything else fixed to the
    screen) stays inside it, above the home indicator."""
    await until(anna, lambda s: True, "a look")
    shown = await asyncio.to_thread(anna.run, "return window.__toastsShown")
    assert shown, "the move's answer shows a toast"
    fixed = await asyncio.to_thread(anna.run, FIXED_JS)
    assert all(e["top"] >= 0 and e["bottom"] <= bottom for e in fixed), (fixed, bottom)
    # The longest toast, shown on purpose (the move's may be gone after 2.2 s): it grows
    # upwards, inside what Telegram shows.
    for _ in range(3):  # (the move's own toast may hide it as its 2.2 s end: again)
        await asyncio.to_thread(anna.run, SHOW_TOAST_JS)
        await asyncio.sleep(0.4)  # its fade-in
        fixed = await asyncio.to_thread(anna.run, FIXED_JS)
        if fixed:
            break
    assert fixed and fixed[0]["bottom"] - fixed[0]["top"] > 40, fixed  # two lines or more
    for element in fixed:
        assert element["top"] >= 0 and element["bottom"] <= bottom, (element, bottom)


async def deal_result(match: Match, anna: Browser) -> None:
    """The deal's result covers the felt, in view without scrolling, with its last trick and
    the defeat points of each side; then the next deal."""
    snap = await until(anna, lambda s: s["overlay"] is not None, "the deal's result")
    box = snap["overlay"]
    assert snap["scrollY"] == 0 and box["y"] >= 0 and box["y"] + box["h"] <= snap["innerHeight"]
    assert box["next"] is not None and box["next"]["bottom"] <= box["y"] + box["h"], box  # in it
    assert box["text"].startswith("🏁 Deal 1 is over")
    assert box["plays"] == 4 and box["winner"] >= 1, box  # the last trick, its winner marked
    assert all(c["w"] >= 44 for c in snap["faceUp"] if c["mini"])
    group = match.table.group
    post = await match.fake.wait_for(
        lambda: [m.text for m in match.fake.messages(group) if "Deal 1 is over" in (m.text or "")],
        what="the deal's result in the group",
    )
    for line in (post[0] or "").splitlines()[1:]:
        assert line in box["text"], (line, box["text"])  # the group's own figures per side
    assert "Defeat points" in box["text"]
    # The last trick's line repeats the small trick in words: one line, whatever its length
    # (a molodka's four-card plays made it three, and "Next deal" left the box).
    one_line = (
        "const p = document.querySelector('#deal-text p.last-trick');"
        "return p && [p.getBoundingClientRect().height,"
        " parseFloat(getComputedStyle(p).lineHeight), p.title];"
    )
    last_line = await asyncio.to_thread(anna.run, one_line)
    assert last_line is not None, box["text"]
    height, line_height, title = last_line
    assert height <= line_height + 1 and title.startswith("✋ Last trick taken by"), last_line
    await both_themes(anna, "deal-result")
    from selenium.webdriver.common.by import By

    await replay_of_the_deal(match, anna)
    snap = await until(anna, lambda s: s["status"] == "playing", "the table again")
    if snap["overlay"] is not None:  # the next deal has taken no trick yet
        await asyncio.to_thread(anna.driver.find_element(By.ID, "next-deal").click)
    await until(anna, lambda s: s["overlay"] is None and s["scene"] != "deal", "the next deal")


REPLAY_JS = (BROWSER / "replay.js").read_text()


async def replay_of_the_deal(match: Match, anna: Browser) -> None:
    """Anna asks the coach about deal 1, then opens its replay from the result: she steps
    forward through every trick and back, sees the coach's marks on her own plays (as many
    as its answer in her chat lists), face-down cards turned, and nothing of deal 2."""
    from selenium.webdriver.common.by import By

    fake = match.fake
    await asyncio.to_thread(anna.driver.find_element(By.ID, "coach").click)
    answer = await fake.wait_for(
        lambda: [
            m.text
            for m in fake.messages(match.anna)
            if "How you played in deal 1" in (m.text or "")
        ],
        what="the coach's answer",
        timeout=90,
    )
    # The review's mistakes are its bulleted lines (its plays below are numbered by trick).
    mistakes = len(re.findall(r"^• ", answer[0] or "", re.M))
    await asyncio.to_thread(anna.driver.find_element(By.ID, "replay").click)
    look_replay = lambda: asyncio.to_thread(anna.run, REPLAY_JS)  # noqa: E731
    shown = await look_replay()
    deadline = time.monotonic() + 10
    while shown["status"] != "replay" and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
        shown = await look_replay()
    assert shown["status"] == "replay" and shown["step"] == 1, shown
    steps = shown["steps"]
    assert steps >= 4 and shown["heading"] == "▶️ Replay of deal 1", shown
    assert shown["laterDeal"] is False  # deal 2 is being played: no replay of it
    seen_marks, turned, points, shot = 0, 0, [], False
    for step in range(1, steps + 1):
        if step > 1:
            await asyncio.to_thread(anna.driver.find_element(By.ID, "step-forward").click)
        shown = await look_replay()
        assert shown["step"] == step and shown["plays"] >= 2 and shown["taker"], shown
        assert len(shown["hands"]) == 4 and shown["stock"].startswith("Trump"), shown
        points.append(shown["points"])
        seen_marks += len(shown["marks"])
        assert all(who == "🎓 You" for who in shown["markedPlays"]), shown
        if shown["marks"] and not shot:  # the screenshots: a trick with a coach mark
            await replay_shots(anna)
            shot = True
        if shown["faceDown"]:
            await asyncio.sleep(0.9)  # shown as backs first, then turned
            turned += (await look_replay())["turned"]
        assert shown["laterDeal"] is False
    assert shown["result"].startswith("🏁 Deal 1 is over"), shown
    assert seen_marks == mistakes, (seen_marks, answer)
    for step in range(steps - 1, 0, -1):
        await asyncio.to_thread(anna.driver.find_element(By.ID, "step-back").click)
        shown = await look_replay()
        assert shown["step"] == step and shown["points"] == points[step - 1], shown
    assert shown["backEnabled"] is False
    if not shot:
        await replay_shots(anna)
    await no_console_errors(anna, "the replay")
    back = ("web_app_setup_back_button", {"is_visible": True})
    assert back in await asyncio.to_thread(anna.sent)  # Telegram's back button: the table
    init = telegram_init_data(fake.token, match.anna.id, first_name="Anna")
    for deal, status in ((1, 200), (2, 403)):  # nothing of the deal in play
        url = f"{match.base}/api/replay?table={match.table_id}&deal={deal}"
        assert await asyncio.to_thread(status_of, url, init) == status
    print(f"replay: {steps} tricks, {seen_marks} coach marks, {turned} face-down cards turned")
    await asyncio.to_thread(anna.telegram_event, "back_button_pressed", {})


def status_of(url: str, init: str) -> int:
    request = urllib.request.Request(url, headers={"X-Telegram-Init-Data": init})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as err:
        return err.code


async def replay_shots(anna: Browser) -> None:
    await settled(anna)
    await asyncio.to_thread(anna.screenshot, OUTPUT / "dark-replay.png")
    await asyncio.to_thread(anna.telegram_event, "theme_changed", {"theme_params": LIGHT})
    await asyncio.sleep(0.3)
    await asyncio.to_thread(anna.screenshot, OUTPUT / "light-replay.png")
    await asyncio.to_thread(anna.telegram_event, "theme_changed", {"theme_params": DARK})


async def reload_without_fragment(match: Match, anna: Browser) -> None:
    """Telegram's script keeps initData over a reload that loses the URL fragment."""
    await asyncio.to_thread(anna.driver.get, match.page_url)
    snap = await until(anna, lambda s: s["status"] == "playing" or s["error"], "the reload")
    assert snap["status"] == "playing", snap["error"]


async def forged_init_data_is_refused(match: Match, anna: Browser) -> None:
    fake = match.fake
    good = telegram_init_data(fake.token, match.anna.id, first_name="Anna")
    forged = telegram_init_data("1:NOT-THIS-BOT", match.anna.id, first_name="Anna")
    await asyncio.to_thread(anna.run, "sessionStorage.clear()")
    await asyncio.to_thread(anna.open, f"{match.page_url}#tgWebAppData={quote(forged, safe='')}")
    snap = await until(anna, lambda s: s["error"], "the error")
    assert "Telegram" in snap["error"]
    errors = await asyncio.to_thread(anna.errors)
    assert all("401" in e for e in errors), errors  # only the refused requests themselves

    def call(method: str, path: str, init: str, body: bytes | None = None) -> int:
        request = urllib.request.Request(
            f"{match.base}{path}?table={match.table_id}",
            data=body,
            method=method,
            headers={"X-Telegram-Init-Data": init, "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return int(response.status)
        except urllib.error.HTTPError as err:
            return err.code

    move = json.dumps({"ply": 0, "verb": "lead", "cards": ["A♠"]}).encode()
    assert await asyncio.to_thread(call, "GET", "/api/state", forged) == 401
    assert await asyncio.to_thread(call, "POST", "/api/move", forged, move) == 401
    assert await asyncio.to_thread(call, "GET", "/api/state", good) == 200


async def test_telegram_web_frames_the_table(match: Match, telegram_org: TelegramOrg) -> None:
    """Telegram Web shows the page in an iframe and talks to it with postMessage: the page
    takes Telegram Web's style, its theme and viewport, sends its events there (haptics
    too), and reloads when Telegram Web asks, three times in a row without a console error."""
    browser = await asyncio.to_thread(Browser, telegram_org, native=False)
    try:
        own = fragment(match.fake.token, match.anna, LIGHT, "weba")
        await asyncio.to_thread(
            browser.open, telegram_org.web_client_url(f"{match.page_url}#{own}")
        )
        for run in range(3):
            await framed_page(browser, run)
        received = await asyncio.to_thread(browser.run, "return window.received")
        kinds = [kind for kind, _ in received]
        assert kinds.count("iframe_ready") == 3 and kinds.count("iframe_will_reload") == 2, kinds
        for kind in ("web_app_ready", "web_app_expand", "web_app_request_theme"):
            assert kinds.count(kind) == 3, kinds
        assert ["web_app_setup_swipe_behavior", {"allow_vertical_swipe": False}] in received
        assert ["web_app_setup_closing_behavior", {"need_confirmation": True}] in received
        turn = [
            "web_app_trigger_haptic_feedback",
            {"type": "notification", "notification_type": "warning"},
        ]
        assert turn in received, received  # the turn's cue reached Telegram Web
    finally:
        await asyncio.to_thread(browser.close)


async def framed_page(browser: Browser, run: int) -> None:
    """One opening of the page inside Telegram Web, then Telegram Web's reload."""
    from selenium.webdriver.common.by import By

    def into_frame() -> None:
        browser.driver.switch_to.default_content()
        browser.driver.switch_to.frame(browser.driver.find_element(By.ID, "app"))

    await asyncio.sleep(0.2)
    await asyncio.to_thread(into_frame)
    snap = await until(browser, lambda s: s["status"] == "playing", f"the framed page ({run})")
    # The theme it was opened with, then (after a reload) the one Telegram Web sent last.
    assert snap["background"] == ("rgb(255, 255, 255)" if run == 0 else "rgb(16, 24, 32)")
    full = "return document.getElementById('fullscreen').hidden"
    assert await asyncio.to_thread(browser.run, full) is True  # Telegram Web: no full screen
    style = "return getComputedStyle(document.body).getPropertyValue('--telegram-web-style')"
    assert (await asyncio.to_thread(browser.run, style)).strip() == "applied"  # CSP lets it in
    await asyncio.to_thread(browser.driver.switch_to.default_content)
    dark = {"theme_params": DARK}
    await asyncio.to_thread(browser.run, "window.send('theme_changed', arguments[0])", dark)
    await asyncio.to_thread(into_frame)
    await until(
        browser, lambda s: s["background"] == "rgb(16, 24, 32)", "Telegram Web's dark theme"
    )
    await until(browser, lambda s: s["myTurn"], "Anna's turn", 15)
    await no_console_errors(browser, f"Telegram Web, opening {run + 1}")
    await asyncio.to_thread(browser.driver.switch_to.default_content)
    if run < 2:
        await asyncio.to_thread(browser.run, "window.send('reload_iframe', null)")


async def test_a_finished_match_is_shared_with_telegrams_own_flow(
    fake_telegram: FakeTelegram, bot_process: BotProcessFactory, telegram_org: TelegramOrg
) -> None:
    """Anna lets her turns time out (a computer plays for her) until the match is over, then
    opens the table: "📤 Share" under the match's result makes the bot prepare the result
    card (savePreparedInlineMessage, for her) and the page hands its id to Telegram's
    shareMessage, which lets her pick the chat."""
    match = await seat_anna(fake_telegram, bot_process, KOZEL_TIMEOUT_SCALE="0.01")
    fake = match.fake
    await fake.wait_for(
        lambda: any(
            "The match is over!" in (m.text or "") for m in fake.messages(match.table.group)
        ),
        timeout=180,
        what="the match's end",
    )
    anna = await asyncio.to_thread(Browser, telegram_org, native=True)
    try:
        own = fragment(fake.token, match.anna, LIGHT, "android")
        await asyncio.to_thread(anna.open, f"{match.page_url}#{own}")
        share_js = "const b = document.getElementById('share'); return b ? b.textContent : null;"
        deadline = time.monotonic() + 15
        while await asyncio.to_thread(anna.run, share_js) is None:
            assert time.monotonic() < deadline, await look(anna)
            await asyncio.sleep(0.1)
        assert await asyncio.to_thread(anna.run, share_js) == "📤 Share"
        from selenium.webdriver.common.by import By

        await asyncio.to_thread(anna.driver.find_element(By.ID, "share").click)
        card = await fake.wait_for(
            lambda: next(iter(fake.prepared_messages.values()), None), what="the prepared card"
        )
        assert card.user_id == match.anna.id
        text = fake_text(card.text)
        assert text.startswith("🐐 Street Kozel · Kozel club"), text
        assert "🏆 The match is over!" in text and "🐐 The goat" in text, text
        assert ("Winner" in text or "1." in text) and "Anna" in text, text
        button = card.result["reply_markup"]["inline_keyboard"][0][0]
        assert button["url"] == f"https://t.me/kozel_test_bot/table?startapp={match.table_id}"
        calls = fake.calls_to("savePreparedInlineMessage")
        assert len(calls) == 1 and calls[0].params["user_id"] == match.anna.id
        deadline = time.monotonic() + 5
        wanted = ("web_app_send_prepared_message", {"id": card.id})
        while wanted not in await asyncio.to_thread(anna.sent):
            assert time.monotonic() < deadline, await asyncio.to_thread(anna.sent)
            await asyncio.sleep(0.1)
        await no_console_errors(anna, "sharing")
    finally:
        await asyncio.to_thread(anna.close)


def fake_text(html: str) -> str:
    """The card's text as the chat would show it (its tags gone)."""
    return re.sub(r"<[^>]+>", "", html)
