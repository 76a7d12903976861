// Small DOM helpers and the cards, drawn as SVG by the page itself (no card images).

const SVG = "http://www.w3.org/2000/svg";
const RED = new Set(["♥", "♦"]);

/** An element with attributes (`class`, `text`, `on<event>` handled specially) and children. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

/** A card's face: big corner indices (legible on a 48 px wide card), a large centre suit,
 * and a gold star on trumps. */
export function face(card, trump = false) {
  const rank = card.slice(0, -1);
  const suit = card.slice(-1);
  const colour = RED.has(suit) ? "#c62828" : "#1b1b1b";
  const picture = svg("svg", { viewBox: "0 0 60 84", "aria-hidden": "true", class: "face" });
  picture.append(svg("rect", {
    class: "paper", x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#fff", stroke: "#9e9e9e",
  }));
  const text = { fill: colour, "font-family": "Georgia, 'DejaVu Serif', serif", "font-weight": 700 };
  const wide = rank.length > 1;
  picture.append(
    svg("text", { ...text, x: 4, y: 20, "font-size": wide ? 17 : 20, "letter-spacing": wide ? -1.5 : 0 }, rank),
    svg("text", { ...text, x: 5, y: 38, "font-size": 17 }, suit),
    svg("text", { ...text, x: 34, y: 64, "font-size": 36, "text-anchor": "middle" }, suit),
    svg("text", {
      ...text, x: 56, y: 80, "font-size": 12, "text-anchor": "end",
    }, rank + suit),
  );
  if (trump) {
    picture.append(
      svg("circle", { cx: 50, cy: 11, r: 8, fill: "#f0b800", stroke: "#8a6a00", "stroke-width": 0.8 }),
      svg("text", { x: 50, y: 15.5, "font-size": 12, "text-anchor": "middle", fill: "#1b1b1b" }, "★"),
    );
  }
  return picture;
}

let clips = 0; // each back clips its pattern with a clip path of its own id

/** A card's back (face-down cards, the stock). */
export function back() {
  const id = `kozel-back-${++clips}`;
  const picture = svg("svg", { viewBox: "0 0 60 84", "aria-hidden": "true", class: "back" });
  const clip = svg("clipPath", { id });
  clip.append(svg("rect", { x: 6, y: 6, width: 48, height: 72, rx: 4 }));
  const lines = svg("g", { "clip-path": `url(#${id})`, stroke: "#4a6fb0", "stroke-width": 2 });
  for (let i = -9; i < 7; i++) {
    lines.append(svg("line", { x1: 6 + i * 8, y1: 6, x2: 54 + i * 8, y2: 78 }));
    lines.append(svg("line", { x1: 6 + i * 8, y1: 78, x2: 54 + i * 8, y2: 6 }));
  }
  picture.append(
    svg("defs", {}, null),
    svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#233f72", stroke: "#e8ecf4", "stroke-width": 2 }),
    lines,
    svg("rect", { x: 6, y: 6, width: 48, height: 72, rx: 4, fill: "none", stroke: "#9fb6e0", "stroke-width": 1.5 }),
  );
  picture.firstChild.append(clip);
  return picture;
}

/** A card on the table (not a control): a face, or a back named for screen readers. */
export function tableCard(card, { trump = false, label = "" } = {}) {
  if (card === null) {
    return el("div", { class: "card down", role: "img", "aria-label": label }, back());
  }
  return el("div", { class: "card up", role: "img", "aria-label": card, "data-card": card }, face(card, trump));
}

/** A card of the hand: a button named by the card ("10♣"). */
export function handCard(card, { trump, selected, dimmed, beats, onclick }) {
  const classes = [
    "card", "up", selected ? "selected" : "", dimmed ? "dimmed" : "", trump ? "trump" : "",
    beats ? "beats" : "",
  ];
  const button = el("button", {
    class: classes.filter(Boolean).join(" "),
    type: "button",
    "aria-label": card,
    "data-card": card,
    "aria-pressed": selected ? "true" : "false",
    "aria-disabled": dimmed ? "true" : null,
    onclick,
  }, face(card, trump));
  return button;
}
