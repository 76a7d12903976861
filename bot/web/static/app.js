// The Kozel Mini App: one seat's card table (or a spectator's), drawn from the server's
// state and pushed live. Telegram's script (telegram-web-app.js, loaded first by the page)
// gives the initData, the theme, the viewport, haptics and the closing guard.

import { connect } from "./api.js";
import * as model from "./model.js";
import { startReplay } from "./replay.js";
import { createView } from "./view.js";

const webApp = (window.Telegram && window.Telegram.WebApp) || null;
const root = document.getElementById("app");
const toastBox = document.getElementById("toast");

let page = model.initial();
let strings = {};
let queue = Promise.resolve(); // the player's calls, one after another (a tap needs the last one's answer)
let stream = null; // the open event stream's AbortController
let timer = null; // {left, at}: the mover's seconds left when the state came, and when

const launched = model.launch(location.hash, location.search, webApp);
const api = connect(launched);
const view = createView(root, {
  tap: (card) => tap(card),
  move: (action) => {
    const ply = page.state.ply; // the move meant now: a later one is refused as out of date
    act(() => api.move(ply, action).then(answered));
  },
  clear: () => update({ ...page, chosen: [] }),
  back: () => act(() => api.back().then(answered)),
  coach: (deal) => act(() => api.coach(deal).then(answered)),
  toggleLast: () => update({ ...page, showLast: !page.showLast }),
  dismiss: (number) => update({ ...page, dismissed: number }),
  swept: (key) => update({ ...page, swept: key }),
  // Telegram's script keeps the initData over this load (the fragment is not needed).
  // "📤 Share": the bot prepares the result card, Telegram lets the player pick the chat.
  share: () => act(() => api.share().then(shareCard)),
  canShare: () => supports("8.0") && typeof webApp.shareMessage === "function",
  fullscreen: () => toggleFullscreen(),
  replay: (deal) => location.assign(`app?table=${encodeURIComponent(page.state.table)}&replay=${deal}`),
});

// ------------------------------------------------------------------ Telegram

const supports = (version) => Boolean(webApp && webApp.isVersionAtLeast && webApp.isVersionAtLeast(version));

function applyTheme() {
  const params = webApp ? webApp.themeParams : themeFromFragment();
  const scheme = webApp ? webApp.colorScheme : matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  const colours = model.palette(params, scheme);
  document.documentElement.dataset.scheme = colours.scheme;
  for (const [name, value] of Object.entries(colours.vars)) {
    document.documentElement.style.setProperty(name, value);
  }
}

function themeFromFragment() {
  try {
    return JSON.parse(new URLSearchParams(location.hash.slice(1)).get("tgWebAppThemeParams"));
  } catch {
    return null;
  }
}

// Full screen on phones whose Telegram can (8.0); elsewhere the page stays as it was opened.
const canFullscreen = () => supports("8.0") && ["ios", "android"].includes(webApp.platform);

function toggleFullscreen() {
  if (!canFullscreen()) return;
  if (webApp.isFullscreen) webApp.exitFullscreen();
  else webApp.requestFullscreen();
}

function showFullscreen() {
  const on = Boolean(webApp && webApp.isFullscreen);
  view.fullscreen(canFullscreen(), on, model.say(strings, on ? "exit_fullscreen" : "fullscreen"));
}

function setUpTelegram() {
  applyTheme();
  if (!webApp) return;
  webApp.onEvent("themeChanged", applyTheme);
  webApp.onEvent("viewportChanged", relayout);
  webApp.onEvent("fullscreenChanged", () => {
    showFullscreen();
    relayout(); // the safe areas changed with it
  });
  webApp.onEvent("fullscreenFailed", () => showFullscreen());
  webApp.onEvent("safeAreaChanged", relayout);
  webApp.onEvent("contentSafeAreaChanged", relayout);
  if (supports("7.7")) webApp.disableVerticalSwipes(); // a swipe on the table must not close it
  webApp.ready();
  webApp.expand();
}

let guarding = false;
/** Closing asks first while the player is in a running deal. */
function guardClosing(state) {
  const guard = state.status === "playing" && !state.spectator;
  if (guard === guarding || !supports("6.2")) return;
  guarding = guard;
  if (guard) webApp.enableClosingConfirmation();
  else webApp.disableClosingConfirmation();
}

function haptic(kind) {
  if (!supports("6.1")) return; // only Telegram's own haptics: browsers block vibrate()
  const feedback = webApp.HapticFeedback;
  if (kind === "turn") feedback.notificationOccurred("warning");
  else if (kind === "refused") feedback.notificationOccurred("error");
  else feedback.selectionChanged();
}

function relayout() {
  view.resized();
  update(page);
}

// ------------------------------------------------------------------ state

function update(next) {
  page = next;
  if (!page.state) return;
  view.render(page, strings);
  view.tick(secondsLeft());
}

const secondsLeft = () => (timer ? timer.left - (performance.now() - timer.at) / 1000 : null);

function accept(state) {
  const { page: next, turnStarts } = model.receive(page, state);
  if (next.state === state) timer = state.timer === null ? null : { left: state.timer, at: performance.now() };
  update(next);
  if (next.state === state) guardClosing(state);
  if (turnStarts) haptic("turn");
}

function answered(data) {
  toast(data.text);
  if (data.ok === false) haptic("refused");
  accept(data.state);
}

function shareCard(data) {
  if (!data.ok) {
    toast(data.text);
    haptic("refused");
    return;
  }
  webApp.shareMessage(data.id);
}

/** A tap counts at once for the cue; it is sent once the taps before it are answered, and
 * only while the move it was meant for is still awaited (a quick second tap on a card the
 * first one played is dropped, not refused). */
function tap(card) {
  update(model.touched(page));
  const ply = page.state.ply;
  act(() => (page.state.ply === ply && held(card) ? tapCard(card) : null));
}

const held = (card) => page.state.hand.some((h) => h.card === card);

async function tapCard(card) {
  const data = await api.tap(page.state.ply, card, page.chosen);
  toast(data.text);
  haptic(data.ok ? "tap" : "refused");
  page = model.tapped(page, data);
  accept(data.state);
}

/** The player's calls go one at a time, in order; a refusal by the server ends the page. */
function act(call) {
  queue = queue.then(async () => {
    if (!page.state || root.dataset.status === "error") return;
    try {
      await call();
    } catch (error) {
      if (error.final) fail(error);
      else toast(error.message);
    }
  });
}

function fail(error) {
  stopStream();
  view.fail(error.message, error.status);
}

function toast(text) {
  if (!text) return;
  toastBox.textContent = text;
  toastBox.classList.add("shown");
  clearTimeout(toast.hide);
  toast.hide = setTimeout(() => toastBox.classList.remove("shown"), 2200);
}

// ------------------------------------------------------------------ loading and the stream

async function load() {
  try {
    const data = await api.state();
    strings = data.strings;
    showFullscreen();
    document.documentElement.lang = data.lang || document.documentElement.lang;
    document.title = data.state.title;
    accept(data.state);
    openStream();
  } catch (error) {
    if (error.final || !page.state) fail(error);
    else toast(error.message);
  }
}

/** The live stream, while the page is visible and the table in play; it is opened again
 * (after a full load) when it drops. */
async function openStream() {
  if (stream || document.hidden || !page.state || page.state.status !== "playing") return;
  const controller = new AbortController();
  stream = controller;
  try {
    await api.stream(accept, controller.signal);
  } catch (error) {
    if (stream === controller && error.final) {
      stream = null;
      fail(error);
      return;
    }
    console.info("event stream ended:", error.message);
  }
  if (stream !== controller) return; // closed on purpose
  stream = null;
  if (page.state && page.state.status === "playing" && !document.hidden) {
    toast(model.say(strings, "reconnecting"));
    setTimeout(load, 1000);
  }
}

function stopStream() {
  const controller = stream;
  stream = null;
  if (controller) controller.abort();
}

// Open and visible: the stream is open. Hidden: it is closed, and the bot notifies again.
document.addEventListener("visibilitychange", () => {
  if (document.hidden) stopStream();
  else if (!launched.replay) load(); // a replay has nothing live
});

// The page's sign of life while it is shown: the bot tells the player's turn here instead of
// by a new message only while these come (a frozen page stops counting after ~12 s).
setInterval(() => {
  if (stream && !document.hidden) api.alive().catch(() => {});
}, 5000);

setInterval(() => view.tick(secondsLeft()), 250);
addEventListener("resize", relayout);

setUpTelegram();
// Telegram's back button leads from a replay back to the table it was opened from.
const backButton = supports("6.1") ? webApp.BackButton : null;
if (launched.replay) {
  startReplay(root, api, Number(launched.replay), { applyTheme, toast });
  if (backButton && history.length > 1) {
    backButton.onClick(() => history.back());
    backButton.show();
  }
} else {
  if (backButton) backButton.hide();
  load();
}
