// The page's DOM: a scoreboard, the felt with the seats around it, a strip that says whose
// move it is, the hand and its buttons. Built once; each part is redrawn only when what it
// shows changed, so a push never moves the hand under the player's thumb.

import { el, face, back, tableCard, handCard } from "./dom.js";
import * as model from "./model.js";

const SWEEP_MS = 420;

export function createView(root, on) {
  const parts = skeleton(root, on);
  const felt = feltPart(parts, on);
  const drawn = {}; // what each part shows now (its key): unchanged parts are left alone
  const once = (name, key, draw) => {
    if (drawn[name] === key) return;
    drawn[name] = key;
    draw();
  };

  function render(page, strings) {
    const state = page.state;
    Object.assign(root.dataset, {
      status: state.status, ply: state.ply, version: state.version,
      myTurn: state.my_turn ? "yes" : "no", spectator: state.spectator ? "yes" : "no",
      toMove: state.to_move === null ? "" : state.to_move,
    });
    const geo = model.feltGeometry(parts.felt.clientWidth);
    parts.felt.style.height = `${geo.height}px`;
    const spotOf = model.spots(state.seats.length, state.seat);
    once("score", JSON.stringify([state.title, state.deal_text, state.sides, state.out_at]), () =>
      drawScore(parts, state));
    once("stock", JSON.stringify([state.trump, state.trump_card, state.stock, state.trump_text]), () =>
      drawStock(parts.stock, state, geo));
    once("chips", JSON.stringify([state.seats, geo.width]), () =>
      drawChips(parts.chips, state, strings, spotOf));
    root.dataset.scene = felt.draw(page, strings, geo, spotOf);
    once("overlay", JSON.stringify([root.dataset.scene, state.deal_end, state.match_text, state.closed_text]), () =>
      drawOverlay(parts.overlay, state, strings, root.dataset.scene === "deal", on));
    once("strip", JSON.stringify([page.cued, state.my_turn, state.prompt, state.phase_text, state.spectator]), () =>
      drawStrip(parts.strip, page, strings));
    const cards = model.handCards(state, page.chosen);
    once("hand", JSON.stringify([cards, parts.hand.clientWidth]), () => drawHand(parts.hand, cards, on));
    once("actions", JSON.stringify([state.actions, page.chosen, state.away, state.spectator]), () =>
      drawActions(parts.actions, page, strings, on));
  }

  return {
    render,
    /** The seconds left to the mover (null: no timer). */
    tick(left) {
      for (const node of parts.chips.querySelectorAll(".chip.to-move .timer")) {
        node.hidden = left === null; // a computer player has no timer
        node.textContent = left === null ? "" : model.clock(left);
        node.classList.toggle("low", left !== null && left < 10);
      }
    },
    fullscreen: (can, on, label) => drawFullscreen(parts.full, can, on, label),
    /** The page's size changed (a new viewport): everything is placed again. */
    resized() {
      for (const name of Object.keys(drawn)) delete drawn[name];
      felt.forget();
    },
    fail(message, status) {
      felt.forget();
      root.dataset.status = "error";
      root.replaceChildren(el("p", { class: "error", id: "error", role: "alert", "data-http": status || "", text: message }));
    },
  };
}

/** The full-screen button: shown where the client can, saying what a tap does. */
function drawFullscreen(button, can, on, label) {
  button.hidden = !can;
  button.textContent = on ? "⤡" : "⤢";
  button.setAttribute("aria-pressed", on ? "true" : "false");
  button.setAttribute("aria-label", label);
  button.title = label;
}

function skeleton(root, on) {
  const parts = {
    title: el("div", { class: "title", id: "title" }),
    score: el("div", { class: "score", id: "score" }),
    stock: el("div", { class: "stock", id: "stock" }),
    chips: el("div", { class: "chips", id: "seats" }),
    trick: el("div", { class: "trick", id: "trick" }),
    sweep: el("div", { class: "sweep", "aria-hidden": "true" }),
    caption: el("div", { class: "caption", id: "caption" }),
    last: el("button", { class: "last", id: "last-trick", type: "button", onclick: () => on.toggleLast() }),
    // Full screen, where the client can (Telegram 8.0 on a phone): app.js shows and names it.
    full: el("button", { class: "last full", id: "fullscreen", type: "button", hidden: true, onclick: () => on.fullscreen() }),
    overlay: el("div", { class: "overlay", id: "deal-result", role: "dialog", hidden: true }),
    strip: el("div", { class: "strip", id: "strip", "aria-live": "polite" }),
    hand: el("div", { class: "hand", id: "hand" }),
    actions: el("div", { class: "actions", id: "actions" }),
  };
  parts.felt = el("section", { class: "felt", id: "felt" },
    parts.stock, parts.chips, parts.trick, parts.sweep, parts.caption, parts.last, parts.full, parts.overlay);
  root.replaceChildren(
    el("header", { class: "top" }, parts.title, parts.score), parts.felt, parts.strip, parts.hand, parts.actions,
  );
  return parts;
}

/** The cards on the felt: the scene's trick, a trick swept to its taker when it is done. */
function feltPart(parts, on) {
  let shown = null; // the scene drawn now
  let drawnKey = "";
  let holding = null; // the timer that sweeps a taken trick

  function draw(page, strings, geo, spotOf) {
    const state = page.state;
    const next = model.scene(page);
    const key = JSON.stringify([next.kind, model.trickKey(next.trick), geo.width]);
    if (drawnKey !== key) {
      const flyTo = model.sweepTo(shown, next, state.last_trick);
      if (flyTo !== null && spotOf[flyTo]) sweep(parts, model.chipCentre(spotOf[flyTo], geo));
      drawnKey = key;
      drawTrick(parts.trick, next, geo, spotOf, strings);
      shown = next;
      clearTimeout(holding);
      if (next.kind === "taken") {
        const taken = model.trickKey(next.trick);
        holding = setTimeout(() => on.swept(taken), model.HOLD_MS);
      }
    }
    drawCaption(parts, next, state, strings);
    return next.kind;
  }

  return {
    draw,
    forget() {
      clearTimeout(holding);
      drawnKey = "";
    },
  };
}

function drawCaption(parts, scene, state, strings) {
  const looking = scene.kind === "taken" || scene.kind === "peek";
  const taker = looking && scene.trick.taker !== null ? state.seats[scene.trick.taker] : null;
  parts.caption.textContent = taker ? model.say(strings, "trick_taken", { name: taker.name }) : "";
  const lastTaken = Boolean(state.last_trick && state.last_trick.taker !== null);
  parts.last.hidden = !lastTaken || !["current", "empty", "peek"].includes(scene.kind);
  const peeking = scene.kind === "peek";
  const label = model.say(strings, peeking ? "hide_last" : "show_last");
  parts.last.setAttribute("aria-label", label);
  parts.last.title = label;
  parts.last.setAttribute("aria-pressed", peeking ? "true" : "false");
  parts.last.textContent = peeking ? "✕" : "↶";
}

// ------------------------------------------------------------------ the parts

function drawScore(parts, state) {
  parts.title.textContent = state.title;
  parts.title.title = state.title; // cut short on a narrow phone (the house rules): whole here
  const deal = el("div", { class: "deal", text: state.deal_text });
  const sides = state.sides.map((side) => el("div", {
    class: ["side", side.mine ? "mine" : "", side.out ? "out" : ""].join(" "),
    title: `${side.names}: ${side.defeat_points}/${state.out_at} · ${side.tricks_text}`,
  },
  el("div", { class: "names", text: side.names }),
  el("div", { class: "figures" },
    el("span", { class: "goat", text: `🐐 ${side.defeat_points}/${state.out_at}` }),
    el("span", { class: "tricks", text: side.tricks_text }))));
  parts.score.replaceChildren(deal, ...sides);
  parts.score.setAttribute("aria-label", state.standings_text);
}

function drawStock(box, state, geo) {
  box.replaceChildren();
  box.style.setProperty("--card-w", `${geo.cardW}px`);
  box.title = state.trump_text;
  box.setAttribute("aria-label", state.trump_text);
  box.setAttribute("role", "img");
  if (state.trump_card) box.append(el("div", { class: "card up trump-card", "data-card": state.trump_card }, face(state.trump_card, true)));
  if (state.stock > 0) {
    box.append(el("div", { class: "card down pile" }, back()), el("span", { class: "count", text: String(state.stock) }));
  }
  if (!state.trump_card && state.trump) {
    const red = state.trump === "♥" || state.trump === "♦";
    box.append(el("span", { class: red ? "suit red" : "suit", text: state.trump }));
  }
  box.hidden = !box.childNodes.length;
}

function drawChips(box, state, strings, spotOf) {
  box.replaceChildren(...state.seats.map((seat) => {
    const badges = [];
    if (seat.computer) badges.push(el("span", { class: "badge", text: "🤖" }));
    if (seat.dealer) badges.push(el("span", { class: "badge", title: model.say(strings, "dealer"), text: "🎴" }));
    if (seat.partner) badges.push(el("span", { class: "badge", title: model.say(strings, "partner"), text: "🤝" }));
    if (seat.away) badges.push(el("span", { class: "badge", text: "💤" }));
    const name = seat.me ? model.say(strings, "you") : seat.name;
    const classes = ["chip", spotOf[seat.seat] || "top", seat.to_move ? "to-move" : "", seat.me ? "me" : "",
      seat.partner ? "partner" : "", seat.in_game ? "" : "out"];
    return el("div", {
      class: classes.filter(Boolean).join(" "),
      "data-seat": seat.seat,
      title: `${seat.name} · ${seat.cards_text} · ${seat.tricks_text}`,
    },
    el("div", { class: "name", text: name }),
    el("div", { class: "meta" },
      el("span", { class: "n-cards", title: seat.cards_text, text: String(seat.cards) }),
      el("span", { class: "n-tricks", title: seat.tricks_text, text: String(seat.tricks) })),
    seat.to_move ? el("div", { class: "timer" }) : null,
    el("div", { class: "badges" }, ...badges));
  }));
}

function drawTrick(box, scene, geo, spotOf, strings) {
  box.replaceChildren();
  box.style.setProperty("--card-w", `${geo.cardW}px`);
  const faceDown = model.say(strings, "face_down");
  for (const [seat, cards] of model.trickBySeat(scene.trick)) {
    const spot = spotOf[seat];
    if (!spot) continue;
    const fan = model.fanAt(spot, cards.length, geo);
    cards.forEach((c, i) => {
      const node = tableCard(c.card, { label: faceDown, trump: c.trump });
      node.classList.toggle("top", c.top && c.card !== null);
      node.dataset.seat = seat;
      node.style.left = `${fan.x + i * fan.step}px`;
      node.style.top = `${fan.y}px`;
      box.append(node);
    });
  }
  box.dataset.kind = scene.kind;
}

/** The cards on the felt fly to the taker's chip and fade; the new scene is drawn at once. */
function sweep(parts, to) {
  const flying = [...parts.trick.children];
  if (!flying.length) return;
  parts.sweep.replaceChildren(...flying);
  for (const node of flying) {
    const x = to.x - (node.offsetLeft + node.offsetWidth / 2);
    const y = to.y - (node.offsetTop + node.offsetHeight / 2);
    const animation = node.animate(
      [{ transform: "none", opacity: 1 }, { transform: `translate(${x}px, ${y}px) scale(0.4)`, opacity: 0 }],
      { duration: SWEEP_MS, easing: "ease-in", fill: "forwards" },
    );
    animation.onfinish = () => node.remove();
  }
}

function drawStrip(box, page, strings) {
  const state = page.state;
  const lines = [];
  if (page.cued) lines.push(el("div", { class: "line cue-text", id: "cue", text: model.say(strings, "your_turn", { chat: state.chat }) }));
  else if (!state.my_turn && state.phase_text) lines.push(el("div", { class: "line phase", text: state.phase_text }));
  if (state.spectator) lines.push(el("div", { class: "line", text: model.say(strings, "watching") }));
  else if (state.prompt) lines.push(el("div", { class: "line prompt", id: "prompt", text: state.prompt }));
  box.replaceChildren(...lines);
  box.classList.toggle("cue", page.cued);
  box.classList.toggle("mine", state.my_turn);
}

function drawHand(box, cards, on) {
  const geo = model.handGeometry(cards.length, box.clientWidth);
  const width = geo.cardW + geo.step * Math.max(0, cards.length - 1);
  const left = Math.max(0, (box.clientWidth - width) / 2);
  box.style.setProperty("--hand-card-w", `${geo.cardW}px`);
  box.replaceChildren(...cards.map((c, i) => {
    const button = handCard(c.card, { ...c, onclick: () => on.tap(c.card) });
    button.style.left = `${left + i * geo.step}px`;
    button.style.zIndex = String(i + 1);
    return button;
  }));
}

function drawActions(box, page, strings, on) {
  const state = page.state;
  const buttons = [];
  if (state.away) {
    buttons.push(el("button", { type: "button", id: "back", onclick: () => on.back(), text: model.say(strings, "back") }));
  } else if (!state.spectator) {
    if (page.chosen.length) {
      for (const action of model.choices(state.actions, page.chosen)) {
        buttons.push(el("button", { type: "button", class: "confirm", "data-verb": action.verb, onclick: () => on.move(action), text: action.label }));
      }
      buttons.push(el("button", { type: "button", class: "secondary", id: "clear", onclick: () => on.clear(), text: model.say(strings, "clear") }));
    }
    // A special lead has its own button whenever it is allowed, also out of turn.
    for (const action of model.specials(state.actions)) {
      buttons.push(el("button", { type: "button", class: "special", "data-verb": action.verb, onclick: () => on.move(action), text: action.label }));
    }
  }
  box.replaceChildren(...buttons);
}

function drawOverlay(box, state, strings, dealShown, on) {
  const blocks = [];
  if (state.closed_text) blocks.push(el("p", { class: "heading", id: "closed", text: state.closed_text }));
  if (state.match_text) {
    const [heading, ...lines] = state.match_text.split("\n");
    const share = on.canShare() && state.match_over && strings.share
      ? el("div", { class: "buttons" }, el("button", { type: "button", id: "share", onclick: () => on.share(), text: strings.share }))
      : null;
    blocks.push(el("div", { class: "result", id: "match-result" },
      el("h2", { text: heading }), ...lines.map((line) => el("p", { text: line })), share));
  }
  if (dealShown && state.deal_end) {
    const end = state.deal_end;
    blocks.push(el("div", { class: "result", id: "deal-text" },
      el("h2", { text: end.heading }),
      miniTrick(end.trick, state, strings),
      ...end.lines.map((line) => el("p", lineAttrs(line)))));
    // "How did I play?" beside "Next deal", one row: the result stays in view without scrolling.
    const buttons = [];
    if (end.coach) {
      buttons.push(el("button", { type: "button", class: "secondary", id: "coach", onclick: () => on.coach(end.number), text: model.say(strings, "coach") }));
    }
    if (end.replay) {
      buttons.push(el("button", { type: "button", class: "secondary", id: "replay", onclick: () => on.replay(end.number), text: end.replay }));
    }
    if (!state.match_over) {
      buttons.push(el("button", { type: "button", id: "next-deal", onclick: () => on.dismiss(end.number), text: model.say(strings, "next_deal") }));
    }
    if (buttons.length) blocks.push(el("div", { class: "buttons" }, ...buttons));
  }
  box.replaceChildren(...blocks);
  box.hidden = !blocks.length;
}

/** A line of the deal's result. The last trick's line ("✋ …") repeats the small trick drawn
 * above it in words: one line, cut short, so that a trick of four-card plays (a molodka's)
 * does not push "Next deal" out of view; the whole line is its title. */
function lineAttrs(line) {
  return line.startsWith("✋") ? { class: "last-trick", text: line, title: line } : { text: line };
}

/** The finished deal's last trick, small, in the order played, the taker's cards marked. */
function miniTrick(trick, state, strings) {
  const row = el("div", { class: "mini-trick" });
  for (const [seat, cards] of model.trickBySeat(trick)) {
    const fan = el("div", { class: "fan", "data-count": cards.length });
    for (const c of cards) {
      const node = tableCard(c.card, { label: model.say(strings, "face_down"), trump: c.trump });
      node.classList.toggle("top", c.top && c.card !== null);
      fan.append(node);
    }
    const who = state.seats[seat];
    row.append(el("div", { class: "play", "data-seat": seat }, fan,
      el("div", { class: "who", text: who.me ? model.say(strings, "you") : who.name })));
  }
  return row;
}
