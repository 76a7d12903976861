// The Kozel Mini App's cards, drawn as SVG by the project itself (no card images are used),
// and the small DOM helper the page is built with.
"use strict";
window.KozelCards = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const RED = new Set(["♥", "♦"]);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === false || v === null || v === undefined) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    return node;
  }

  function face(card, trump) {
    const rank = card.slice(0, -1);
    const suit = card.slice(-1);
    const colour = RED.has(suit) ? "#c62828" : "#1b1b1b";
    const picture = svg("svg", { viewBox: "0 0 60 84", "aria-hidden": "true" });
    picture.append(svg("rect", {
      class: "face", x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#fff", stroke: "#9e9e9e",
    }));
    const corner = (x, y, size, text, anchor) => {
      const t = svg("text", {
        x, y, fill: colour, "font-size": size, "font-family": "Georgia, serif",
        "text-anchor": anchor, "font-weight": "700",
      });
      t.textContent = text;
      picture.append(t);
    };
    corner(6, 17, 15, rank, "start");
    corner(6, 31, 14, suit, "start");
    corner(54, 78, 15, rank, "end");
    corner(30, 58, 30, suit, "middle");
    if (trump) {
      picture.append(svg("circle", { cx: 49, cy: 12, r: 8, fill: "#e0a800" }));
      const star = svg("text", { x: 49, y: 16.5, "font-size": 12, "text-anchor": "middle", fill: "#111" });
      star.textContent = "★";
      picture.append(star);
    }
    return picture;
  }

  function back(label) {
    const picture = svg("svg", { viewBox: "0 0 60 84", role: "img", "aria-label": label });
    picture.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#29487d", stroke: "#9e9e9e" }));
    picture.append(svg("rect", { x: 6, y: 6, width: 48, height: 72, rx: 4, fill: "none", stroke: "#8fa8d6", "stroke-width": 2 }));
    for (let i = -6; i < 10; i++) {
      picture.append(svg("line", {
        x1: 6 + i * 8, y1: 6, x2: 6 + i * 8 + 48, y2: 78, stroke: "#3d5f9c", "stroke-width": 2,
      }));
    }
    return picture;
  }

  // A card is a button named by the card ("10♣"); on the table it only shows.
  function cardButton(card, { trump = false, onclick = null, classes = "" } = {}) {
    return el("button", {
      class: "card " + classes, type: "button", "aria-label": card, "data-card": card,
      disabled: onclick ? null : true, onclick,
    }, face(card, trump));
  }

  return { el, face, back, cardButton };
})();
