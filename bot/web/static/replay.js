// A finished deal's replay: trick by trick, forward and back, with every hand open, who took
// each trick, the running card points, the stock and trump, and the coach's marks on the
// viewer's own plays; the match deal by deal. The server sends the whole deal at once.

import { el, tableCard } from "./dom.js";
import * as model from "./model.js";

const TURN_MS = 700; // face-down cards are shown as such first, then turned

export function startReplay(root, api, deal, { applyTheme, toast }) {
  const shown = { data: null, strings: {}, step: 0, turning: null };

  async function load(number) {
    try {
      const answer = await api.replay(number);
      Object.assign(shown, { data: answer.replay, strings: answer.strings, step: 0 });
      document.title = shown.data.heading;
      draw();
    } catch (error) {
      if (!shown.data || error.final) fail(root, error);
      else toast(error.message);
    }
  }

  function go(next) {
    shown.step = Math.max(0, Math.min(shown.data.tricks.length - 1, next));
    draw();
  }

  function draw() {
    clearTimeout(shown.turning);
    drawReplay(root, shown, { load, go });
    shown.turning = setTimeout(() => turnFaceDown(root, shown.strings), TURN_MS);
  }

  applyTheme();
  addEventListener("keydown", (event) => {
    if (!shown.data) return;
    if (event.key === "ArrowRight") go(shown.step + 1);
    if (event.key === "ArrowLeft") go(shown.step - 1);
  });
  load(deal);
}

function fail(root, error) {
  root.dataset.status = "error";
  root.replaceChildren(el("p", { class: "error", id: "error", role: "alert", "data-http": error.status || "", text: error.message }));
}

function drawReplay(root, { data, strings, step }, on) {
  const trick = data.tricks[step];
  const last = step === data.tricks.length - 1;
  Object.assign(root.dataset, {
    status: "replay", scene: "replay", deal: data.deal, step: step + 1, steps: data.tricks.length,
    spectator: data.seat === null ? "yes" : "no",
  });
  const name = (seat) => (data.seats[seat].me ? model.say(strings, "you") : data.seats[seat].name);
  const say = (key, fill) => model.say(strings, key, fill);
  root.replaceChildren(
    el("header", { class: "top" },
      el("div", { class: "title", id: "title", text: data.title }),
      el("h1", { class: "replay-heading", id: "replay-heading", text: data.heading })),
    el("nav", { class: "replay-deals", hidden: data.deals < 2 },
      dealButton("prev-deal", "◀ " + say("deal_n", { n: data.deal - 1 }), data.deal > 1, () => on.load(data.deal - 1)),
      dealButton("later-deal", say("deal_n", { n: data.deal + 1 }) + " ▶", data.deal < data.deals, () => on.load(data.deal + 1))),
    el("section", { class: "replay-felt", id: "felt" },
      el("div", { class: "caption", id: "replay-step", text: say("trick_of", { n: trick.number, total: data.tricks.length }) }),
      el("div", { class: "caption", id: "replay-stock", text: trick.stock_text }),
      el("div", { class: "replay-trick", id: "replay-trick" },
        ...trick.returned.map((p) => playRow(p, trick, name, strings, true)),
        ...trick.plays.map((p) => playRow(p, trick, name, strings, false))),
      el("div", { class: "caption", id: "replay-taker", text: trick.taker_text || "" })),
    el("p", { class: "replay-points", id: "replay-points", text: trick.points_text }),
    ...(trick.marks.length ? [el("div", { class: "marks", id: "marks" },
      ...trick.marks.map((m) => el("p", { class: "mark", "data-ply": m.ply, text: "🎓 " + m.text })))] : []),
    ...(data.coach_note ? [el("p", { class: "coach-note", id: "coach-note", text: data.coach_note })] : []),
    el("div", { class: "actions replay-steps", id: "actions" },
      navButton("step-back", "◀ " + say("back_step"), step > 0, () => on.go(step - 1)),
      navButton("step-forward", say("forward_step") + " ▶", !last, () => on.go(step + 1))),
    el("div", { class: "replay-hands", id: "replay-hands" },
      ...trick.hands.map((hand, seat) => el("div", { class: "replay-hand", "data-seat": seat },
        el("div", { class: "who", text: name(seat) }),
        el("div", { class: "row" }, ...hand.map((c) => tableCard(c.card, { trump: c.trump })))))),
    ...(last ? [el("div", { class: "result", id: "replay-result" },
      el("h2", { text: data.result.heading }), ...data.result.lines.map((line) => el("p", { text: line })))] : []),
  );
}

/** One play of the trick: its player (🎓 where the coach judged it) and its cards; a
 * face-down card first as its back, as the table saw it (turned a moment later). */
function playRow(play, trick, name, strings, returned) {
  const cards = play.cards.map((c) => {
    if (!play.face_down) return tableCard(c.card, { trump: c.trump });
    const node = tableCard(null, { label: model.say(strings, "face_down") });
    node.dataset.turn = c.card;
    node.dataset.trump = c.trump ? "yes" : "no";
    return node;
  });
  const marked = trick.marks.some((m) => m.ply === play.ply);
  const classes = ["play", returned && "returned", marked && "marked", play.seat === trick.taker && "taker"];
  return el("div", { class: classes.filter(Boolean).join(" "), "data-seat": play.seat, "data-ply": play.ply },
    el("div", { class: "who", text: (marked ? "🎓 " : "") + name(play.seat) }),
    el("div", { class: "fan" }, ...cards));
}

function turnFaceDown(root, strings) {
  for (const node of root.querySelectorAll(".replay-trick .card[data-turn]")) {
    const card = node.dataset.turn;
    const turned = tableCard(card, { trump: node.dataset.trump === "yes" });
    turned.classList.add("turned");
    turned.setAttribute("aria-label", `${card} (${model.say(strings, "face_down")})`);
    node.replaceWith(turned);
  }
}

/** Another deal of the match: only the deals that are over (the others are not there). */
function dealButton(id, text, enabled, onclick) {
  const button = navButton(id, text, enabled, onclick);
  button.hidden = !enabled;
  return button;
}

function navButton(id, text, enabled, onclick) {
  return el("button", { type: "button", id, class: "secondary", disabled: !enabled, onclick, text });
}
