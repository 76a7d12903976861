// The Kozel Mini App: one seat's table, drawn from the server's state, pushed live.
// It works from the URL alone (Telegram puts #tgWebAppData=<initData>&... there); Telegram's
// own script is loaded late and used when it arrives (theme, haptics), never waited for.
"use strict";
(() => {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  let initData = fragment.get("tgWebAppData") || "";
  let table = query.get("table") || fragment.get("tgWebAppStartParam") || "";
  const main = document.getElementById("app");
  const toastBox = document.getElementById("toast");
  const cueBox = document.getElementById("cue");
  const SILENT_MS = 12000; // the server writes every 5 s at least (RECHECK in mini_app.py)

  let state = null;
  let strings = {};
  let chosen = new Set();
  let showLast = false;
  let busy = false;
  let stream = null;
  let timer = null; // {left, at}: seconds left when the state came, and when it came

  const tg = () => (window.Telegram && window.Telegram.WebApp) || null;
  const say = (key, fill) => {
    let text = strings[key] || key;
    for (const [k, v] of Object.entries(fill || {})) text = text.replace("{" + k + "}", v);
    return text;
  };

  // ------------------------------------------------------------------ theme

  const applyTheme = window.KozelTheme.apply;
  try {
    applyTheme(JSON.parse(fragment.get("tgWebAppThemeParams") || "null"));
  } catch (e) { /* no theme in the URL: the system's colours stay */ }

  function telegramArrived() {
    const app = tg();
    if (!app) return;
    if (app.initData) initData = app.initData;
    if (!table && app.initDataUnsafe && app.initDataUnsafe.start_param) {
      table = app.initDataUnsafe.start_param;
    }
    applyTheme(app.themeParams);
    if (app.onEvent) app.onEvent("themeChanged", () => applyTheme(app.themeParams));
    if (app.ready) app.ready();
    if (app.expand) app.expand();
  }
  window.addEventListener("load", () => {
    // After the page is up, so that a slow or missing script never holds it back.
    const script = document.createElement("script");
    script.src = "https://telegram.org/js/telegram-web-app.js";
    script.async = true;
    script.onload = telegramArrived;
    document.head.append(script);
  });

  const { el, face, cardButton } = window.KozelCards;
  const back = () => window.KozelCards.back(say("face_down"));

  // ------------------------------------------------------------------ talking to the server

  async function api(method, path, body) {
    const url = path + "?table=" + encodeURIComponent(table);
    const headers = { "X-Telegram-Init-Data": initData };
    if (body) headers["Content-Type"] = "application/json";
    const response = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined });
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (!response.ok) {
      const error = new Error((data && data.error) || "HTTP " + response.status);
      error.status = response.status;
      throw error;
    }
    return data;
  }

  function fail(error) {
    stopStream();
    main.dataset.status = "error";
    main.replaceChildren(el("p", { class: "error", id: "error", role: "alert", "data-http": error.status || "", text: error.message }));
  }

  async function load() {
    try {
      const data = await api("GET", "api/state");
      strings = data.strings;
      document.documentElement.lang = data.lang || document.documentElement.lang;
      setState(data.state);
      openStream();
    } catch (error) {
      fail(error);
    }
  }

  // Server-Sent Events over fetch (the stream needs the initData header, EventSource has none).
  async function openStream() {
    if (stream || document.hidden || !state || state.status !== "playing") return;
    const controller = new AbortController();
    stream = controller;
    heard = performance.now();
    try {
      const response = await fetch("api/events?table=" + encodeURIComponent(table), {
        headers: { "X-Telegram-Init-Data": initData }, signal: controller.signal,
      });
      if (!response.ok) throw Object.assign(new Error("HTTP " + response.status), { status: response.status });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      heard = performance.now();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        heard = performance.now();
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const lines = block.split("\n");
          if (lines[0] === "event: state" && lines[1] && lines[1].startsWith("data: ")) {
            setState(JSON.parse(lines[1].slice(6)));
          }
        }
      }
    } catch (error) {
      console.info("event stream ended:", error.message);
      if (error.status === 401 || error.status === 403) {
        stream = null;
        fail(error);
        return;
      }
    }
    if (stream !== controller) return; // closed on purpose
    stream = null;
    if (state && state.status === "playing" && !document.hidden) {
      toast(say("reconnecting"));
      setTimeout(() => { load(); }, 1000);
    }
  }

  // The server speaks at least every few seconds; a stream that went silent is opened anew.
  let heard = 0;
  setInterval(() => {
    if (stream && performance.now() - heard > SILENT_MS) {
      console.warn("event stream silent: reconnecting");
      stopStream();
      load();
    }
  }, 1000);

  // The page's sign of life while it is shown: the bot tells the player's turn here instead
  // of by a new message only while these come (a frozen page stops counting after ~12 s).
  setInterval(() => {
    if (!stream || document.hidden) return;
    const headers = { "X-Telegram-Init-Data": initData };
    fetch("api/alive?table=" + encodeURIComponent(table), { method: "POST", headers }).catch(() => {});
  }, 5000);

  function stopStream() {
    if (stream) {
      const controller = stream;
      stream = null;
      controller.abort();
    }
  }

  // Open and visible: the stream is open. Hidden: it is closed, and the bot notifies again.
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) stopStream();
    else load();
  });

  // ------------------------------------------------------------------ state and moves

  function setState(next) {
    // A push loaded before a move may arrive after the move's own answer: never step back.
    if (state && next.table === state.table && next.version < state.version) return;
    const wasMyTurn = state && state.my_turn && state.ply === next.ply;
    if (!state || state.ply !== next.ply) {
      chosen = new Set();
    }
    const inHand = new Set(next.hand.map((h) => h.card));
    chosen = new Set([...chosen].filter((c) => inHand.has(c)));
    const turnStarts = next.my_turn && !wasMyTurn && (!state || !state.my_turn || state.ply !== next.ply);
    state = next;
    timer = next.timer === null ? null : { left: next.timer, at: performance.now() };
    render();
    if (turnStarts && next.status === "playing") cue();
  }

  function cue() {
    const app = tg();
    if (app && app.HapticFeedback) app.HapticFeedback.notificationOccurred("warning");
    else if (navigator.vibrate) navigator.vibrate(80);
    cueBox.textContent = say("your_turn", { chat: state.chat });
    cueBox.hidden = false;
    clearTimeout(cue.hide);
    cue.hide = setTimeout(() => { cueBox.hidden = true; }, 2500);
  }

  function toast(text) {
    if (!text) return;
    toastBox.textContent = text;
    toastBox.classList.add("shown");
    clearTimeout(toast.hide);
    toast.hide = setTimeout(() => toastBox.classList.remove("shown"), 2200);
  }

  const plainActions = () => state.actions.filter((a) => !a.special);
  const sameSet = (a, b) => a.length === b.size && a.every((c) => b.has(c));
  const within = (set, cards) => [...set].every((c) => cards.includes(c));

  function tap(card) {
    if (busy) return;
    const legal = plainActions();
    if (!legal.length) { toast(say("not_turn")); return; }
    const next = new Set(chosen);
    if (next.has(card)) next.delete(card); else next.add(card);
    if (next.size && !legal.some((a) => within(next, a.cards))) {
      const playable = legal.some((a) => a.cards.includes(card));
      toast(say(playable ? "not_with" : "cannot_now", { card }));
      return;
    }
    // Where the cards chosen can be played one way only, the tap plays them (as the hand does).
    const containing = legal.filter((a) => next.size && within(next, a.cards));
    if (containing.length === 1 && sameSet(containing[0].cards, next)) {
      move(containing[0]);
      return;
    }
    chosen = next;
    render();
  }

  async function move(action) {
    if (busy) return;
    busy = true;
    try {
      const data = await api("POST", "api/move", { ply: state.ply, verb: action.verb, cards: action.cards });
      chosen = new Set();
      toast(data.text);
      setState(data.state);
    } catch (error) {
      if (error.status === 401 || error.status === 403) fail(error);
      else toast(error.message);
    } finally {
      busy = false;
    }
  }

  async function comeBack() {
    try {
      const data = await api("POST", "api/back");
      toast(data.text);
      setState(data.state);
    } catch (error) {
      fail(error);
    }
  }

  // ------------------------------------------------------------------ drawing

  function timerText() {
    if (!timer) return "";
    const left = Math.max(0, Math.ceil(timer.left - (performance.now() - timer.at) / 1000));
    return "⏱ " + Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
  }

  setInterval(() => {
    for (const node of document.querySelectorAll(".timer")) {
      node.textContent = timerText();
      const left = timer ? timer.left - (performance.now() - timer.at) / 1000 : 99;
      node.classList.toggle("low", left < 10);
    }
  }, 250);

  function positions(n, me) {
    // The other seats in play order after mine, around the table; mine at the bottom.
    const spots = { 2: ["top"], 3: ["left", "right"], 4: ["left", "top", "right"] }[n] || [];
    const placed = { [me]: "me" };
    spots.forEach((spot, i) => { placed[(me + 1 + i) % n] = spot; });
    return placed;
  }

  function seatChip(seat, spot) {
    const marks = [];
    if (seat.me) marks.push(say("you"));
    if (seat.partner) marks.push(say("partner"));
    if (seat.dealer) marks.push("🎴 " + say("dealer"));
    if (seat.leads) marks.push("▶ " + say("leads"));
    const chip = el("div", {
      class: ["seat", "pos-" + spot, seat.to_move ? "to-move" : "", seat.partner ? "partner" : "",
        seat.in_game ? "" : "out"].join(" "),
      "data-seat": seat.seat,
    },
    el("div", { class: "name", text: (seat.computer ? "🤖 " : "") + seat.name + (seat.away ? " 💤" : "") }),
    el("div", { class: "meta", text: seat.cards_text + " · " + seat.tricks_text }),
    marks.length ? el("div", { class: "marks", text: marks.join(" · ") }) : null);
    if (seat.to_move && timer) chip.append(el("div", { class: "timer", text: timerText() }));
    return chip;
  }

  function trickBox(trick, heading) {
    const box = el("div", { class: "trick" }, el("h2", { text: heading }));
    for (const play of trick.plays) {
      const cards = el("span", { class: "cards" });
      if (play.cards.length) {
        for (const card of play.cards) cards.append(play.face_down ? back() : cardButton(card));
      } else {
        for (let i = 0; i < play.count; i++) cards.append(back());
      }
      const name = state.seats[play.seat].name;
      box.append(el("div", { class: "play" + (play.top ? " top" : ""), "data-seat": play.seat, "data-verb": play.verb },
        el("span", { class: "who", text: name }), cards));
    }
    return box;
  }

  function felt() {
    const box = el("div", { class: "felt", id: "felt" });
    const current = state.trick && state.trick.plays.length ? state.trick : null;
    const last = state.last_trick && state.last_trick.taker !== null ? state.last_trick : null;
    const takenBy = () => say("trick_taken", { name: state.seats[last.taker].name });
    if (current && !(showLast && last)) box.append(trickBox(current, say("on_table")));
    else if (last) box.append(trickBox(last, takenBy()));
    return box;
  }

  function render() {
    main.dataset.status = state.status;
    main.dataset.ply = state.ply;
    main.dataset.version = state.version;
    main.dataset.myTurn = state.my_turn ? "yes" : "no";
    main.classList.toggle("busy", busy);
    const info = el("div", { class: "info" }, el("span", { text: state.trump_text }));
    if (state.trump_card) info.append(cardButton(state.trump_card, { trump: true, classes: "shown" }));
    const seats = el("div", { class: "seats" });
    const spots = positions(state.seats.length, state.seat);
    for (const seat of state.seats) seats.append(seatChip(seat, spots[seat.seat] || "top"));
    seats.append(felt());

    const hasLast = state.last_trick && state.last_trick.taker !== null;
    const current = state.trick && state.trick.plays.length;
    const lastToggle = hasLast && current
      ? el("button", { class: "link", type: "button", id: "last-trick", onclick: () => { showLast = !showLast; render(); },
        text: say(showLast ? "hide_last" : "show_last") })
      : null;

    const legal = plainActions();
    const playable = new Set(legal.flatMap((a) => a.cards));
    const hand = el("div", { class: "hand", id: "hand" });
    for (const h of state.hand) {
      const live = playable.has(h.card);
      const classes = [live ? "playable" : "dimmed", chosen.has(h.card) ? "selected" : "", h.trump ? "trump" : ""].join(" ");
      const button = cardButton(h.card, { trump: h.trump, classes, onclick: () => tap(h.card) });
      if (!live) button.setAttribute("aria-disabled", "true");
      if (chosen.has(h.card)) button.setAttribute("aria-pressed", "true");
      hand.append(button);
    }

    const actions = el("div", { class: "actions", id: "actions" });
    if (state.away) {
      actions.append(el("button", { type: "button", id: "back", onclick: comeBack, text: say("back") }));
    } else {
      if (chosen.size) {
        for (const a of legal.filter((x) => sameSet(x.cards, chosen))) {
          actions.append(el("button", { type: "button", "data-verb": a.verb, onclick: () => move(a), text: a.label }));
        }
        actions.append(el("button", { type: "button", class: "secondary", onclick: () => { chosen = new Set(); render(); }, text: say("clear") }));
      }
      // Special leads have their own buttons whenever they are allowed, also out of turn.
      for (const a of state.actions.filter((x) => x.special)) {
        actions.append(el("button", { type: "button", class: "special", "data-verb": a.verb, onclick: () => move(a), text: a.label }));
      }
    }

    const sides = el("div", { class: "sides", id: "sides" });
    for (const side of state.sides) {
      sides.append(el("div", { class: "side" + (side.mine ? " mine" : "") + (side.out ? " out" : "") },
        el("span", { text: side.names }),
        el("span", { text: side.tricks_text + " · 🐐 " + side.defeat_points })));
    }

    const results = [];
    if (state.closed_text) results.push(el("div", { class: "result", id: "closed", text: state.closed_text }));
    if (state.match_text) results.push(el("div", { class: "result", id: "match-result", text: state.match_text }));
    if (state.deal_text) results.push(el("div", { class: "result", id: "deal-result", text: state.deal_text }));

    const parts = [
      el("h1", { text: state.title }),
      info,
      seats,
      lastToggle,
      el("p", { class: "prompt", id: "prompt", text: state.prompt }),
      state.phase_text ? el("p", { class: "phase", text: state.phase_text }) : null,
      hand,
      actions,
      el("p", { class: "phase", text: state.standings_text }),
      sides,
      ...results,
    ];
    main.replaceChildren(...parts.filter(Boolean));
  }

  // ------------------------------------------------------------------ start

  // Without initData (not opened by Telegram) the server refuses, in its own words (a 401).
  load();
})();
