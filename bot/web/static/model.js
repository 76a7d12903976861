// The Mini App's pure logic: what the page shows, given the server's state. No DOM and no
// network here, so that `node --test` checks it (tests/web/js/model.test.js). The rules of
// the game stay on the server: which cards are playable, what a tap does, which moves exist
// all come in the state or in the answer to a tap.

export const HOLD_MS = 1400; // a taken trick stays on the felt this long before it is swept
export const CARD_RATIO = 1.4; // height / width of every card drawn

// ------------------------------------------------------------------ words

/** The page's string `key` with every `{name}` replaced (all of them, not only the first). */
export function say(strings, key, fill = {}) {
  let text = strings[key] ?? key;
  for (const [name, value] of Object.entries(fill)) {
    text = text.split(`{${name}}`).join(String(value));
  }
  return text;
}

/** `⏱ m:ss` for the seconds left (never below zero). */
export function clock(seconds) {
  const left = Math.max(0, Math.ceil(seconds));
  return `⏱ ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

// ------------------------------------------------------------------ launch

/** The initData and table the page was opened with: Telegram's script knows them (it keeps
 * them over a reload without the URL fragment); without it, the fragment Telegram wrote. */
export function launch(hash, search, webApp) {
  const fragment = new URLSearchParams(hash.replace(/^#/, ""));
  const query = new URLSearchParams(search);
  const unsafe = (webApp && webApp.initDataUnsafe) || {};
  const start = startParam(unsafe.start_param || fragment.get("tgWebAppStartParam") || "");
  const table = query.get("table");
  return {
    initData: (webApp && webApp.initData) || fragment.get("tgWebAppData") || "",
    table: table || start.table,
    replay: query.get("replay") || (table ? null : start.replay),
  };
}

/** A direct link's start parameter: a table (`<id>`) or a deal's replay (`r<id>_<deal>`). */
function startParam(start) {
  const replay = /^r(\d+)_(\d+)$/.exec(start);
  return replay ? { table: replay[1], replay: replay[2] } : { table: start, replay: null };
}

// ------------------------------------------------------------------ the page's state

/** The page before the server said anything. */
export function initial() {
  return {
    state: null,
    chosen: [], // the cards selected, as the server last said
    cued: false, // the turn is being cued (until the player touches the hand)
    dismissed: null, // the deal whose result the player closed
    showLast: false, // the player asked to see the last trick
    swept: "", // the taken trick already swept off the felt (its key)
  };
}

/** A state from the server (pushed, or the answer to a call). Never steps back to an
 * older version; keeps the selection while the same move is awaited; cues a turn that
 * starts. Returns the new page and whether a turn started. */
export function receive(page, next) {
  const prev = page.state;
  if (prev && next.table === prev.table && next.version < prev.version) {
    return { page, turnStarts: false };
  }
  const samePly = Boolean(prev) && prev.ply === next.ply;
  const turnStarts = isTurn(next) && !(prev && prev.my_turn);
  return {
    page: {
      ...page,
      state: next,
      chosen: samePly ? inHand(next, page.chosen) : [],
      cued: isTurn(next) && (turnStarts || page.cued),
      showLast: samePly ? page.showLast : false,
    },
    turnStarts,
  };
}

const isTurn = (state) => state.status === "playing" && state.my_turn;

function inHand(state, cards) {
  const held = new Set(state.hand.map((h) => h.card));
  return cards.filter((c) => held.has(c));
}

/** The server's answer to a tap on a card: the selection it made (its state comes next,
 * through `receive`). */
export function tapped(page, answer) {
  const chosen = Array.isArray(answer.chosen) ? answer.chosen : page.chosen;
  return { ...page, chosen, cued: false };
}

/** The player touched the hand: the cue has done its work. */
export function touched(page) {
  return page.cued ? { ...page, cued: false } : page;
}

/** Moves the player may confirm for the cards chosen (several when the same cards can be
 * played more than one way, such as beat or discard): the server's own list, filtered. */
export function choices(actions, chosen) {
  const picked = new Set(chosen);
  return actions.filter(
    (a) => !a.special && a.cards.length === picked.size && a.cards.every((c) => picked.has(c)),
  );
}

export const specials = (actions) => actions.filter((a) => a.special);

/** How a card of the hand looks: dimmed only on the player's turn, when no move holds it;
 * green then when it can beat the trick (the answer's prompt says so). */
export function handCards(state, chosen) {
  const picked = new Set(chosen);
  return state.hand.map((h) => ({
    card: h.card,
    trump: h.trump,
    selected: picked.has(h.card),
    dimmed: state.my_turn && !h.playable,
    beats: state.my_turn && Boolean(h.beats),
  }));
}

// ------------------------------------------------------------------ the felt

export const hasPlays = (trick) => Boolean(trick && trick.plays.length);
const taken = (trick) => Boolean(trick && trick.taker !== null && trick.plays.length);

/** A trick's identity: who played what (face-down cards as counts), and who took it. */
export function trickKey(trick) {
  if (!trick) return "";
  const plays = trick.plays.map((p) => [p.seat, p.verb, p.cards, p.count]);
  return JSON.stringify([trick.leader, trick.taker, plays]);
}

/** Whether the deal's result covers the felt: until the player closes it, or the next
 * deal has taken its first trick (the server sends it until then); the match's last one
 * stays. The hand below stays in reach (the strip says when it is the player's turn). */
export function showsDealEnd(page) {
  const state = page.state;
  if (!state || !state.deal_end) return false;
  return state.match_over || state.deal_end.number !== page.dismissed;
}

/** What the felt shows: `kind` is "deal" (the finished deal's last trick, under its
 * result), "peek" (the last trick, asked for), "current" (the trick being played), "taken"
 * (a trick just taken, before it is swept to its taker) or "empty". */
export function scene(page) {
  const state = page.state;
  if (showsDealEnd(page)) return { kind: "deal", trick: state.deal_end.trick };
  if (page.showLast && taken(state.last_trick)) return { kind: "peek", trick: state.last_trick };
  if (hasPlays(state.trick)) return { kind: "current", trick: state.trick };
  if (taken(state.last_trick) && trickKey(state.last_trick) !== page.swept) {
    return { kind: "taken", trick: state.last_trick };
  }
  return { kind: "empty", trick: null };
}

/** Whether `part`'s plays begin `whole`'s (the same trick, seen before it was complete). */
export function isPartOf(part, whole) {
  if (!part || !whole || part.plays.length > whole.plays.length) return false;
  return part.plays.every((p, i) => {
    const q = whole.plays[i];
    return p.seat === q.seat && p.verb === q.verb && p.count === q.count;
  });
}

/** The seat the cards now on the felt fly to as the next scene replaces them (null: they
 * simply give way). A trick goes to its taker once it is done. */
export function sweepTo(before, after, last) {
  if (!before || !before.trick || !taken(last) || !sweeps(before, after)) return null;
  if (after.kind === "taken" && isPartOf(before.trick, after.trick)) return null; // completed
  return before.kind === "taken" || isPartOf(before.trick, last) ? last.taker : null;
}

/** Only the table's own course sweeps cards: not a look at the last trick, not the deal's
 * result, and not the same trick drawn again. */
function sweeps(before, after) {
  const looks = ["peek", "deal"];
  if (looks.includes(before.kind) || after.kind === "peek") return false;
  return !(after.trick && trickKey(after.trick) === trickKey(before.trick));
}

/** Where each seat sits around the felt: the page's own seat at the bottom (seat 0 for a
 * spectator), the others in playing order. */
export function spots(count, me) {
  const around = { 2: ["top"], 3: ["left", "right"], 4: ["left", "top", "right"] }[count] || [];
  const bottom = me === null || me === undefined ? 0 : me;
  const placed = { [bottom]: "bottom" };
  around.forEach((spot, i) => {
    placed[(bottom + 1 + i) % count] = spot;
  });
  return placed;
}

/** Each seat's cards in the trick, in the order played: a face-up card by name, a
 * face-down one as null (a back); `top` marks the cards to beat, or the winner's. */
export function trickBySeat(trick) {
  const seats = new Map();
  if (!trick) return seats;
  for (const play of trick.plays) {
    const shown = play.cards.length && !play.face_down;
    const list = seats.get(play.seat) || [];
    for (let i = 0; i < play.count; i++) {
      list.push({
        card: shown ? play.cards[i] : null,
        trump: shown ? Boolean(play.trumps && play.trumps[i]) : false,
        top: play.top,
      });
    }
    seats.set(play.seat, list);
  }
  return seats;
}

/** The felt's measures for its width (CSS px): table cards, seat chips, and the height
 * that holds a chip and a row of cards at the top and the bottom and a row between. */
export function feltGeometry(width) {
  const cardW = width >= 372 ? 52 : 48;
  const cardH = Math.round(cardW * CARD_RATIO);
  const chipW = 80;
  const chipH = 50;
  const pad = 4;
  const gap = 4;
  return {
    width,
    height: 2 * (pad + chipH + gap + cardH + gap) + cardH,
    cardW,
    cardH,
    chipW,
    chipH,
    pad,
    gap,
    side: pad + chipW + 6, // where left cards start (and right cards end)
  };
}

/** The fan of `count` cards of one spot: the first card's top-left corner, and the step to
 * the next card. Left and right fans never meet, whatever their counts (up to four). */
export function fanAt(spot, count, geo) {
  const { width, height, cardW, cardH, chipH, pad, gap, side } = geo;
  const room = spot === "left" || spot === "right" ? (width - 2 * side - 8) / 2 : width * 0.6;
  const step = count > 1 ? Math.min(cardW * 0.45, (room - cardW) / (count - 1)) : 0;
  const fan = cardW + step * Math.max(0, count - 1);
  const middle = Math.round((height - cardH) / 2);
  const positions = {
    top: { x: (width - fan) / 2, y: pad + chipH + gap },
    bottom: { x: (width - fan) / 2, y: height - pad - chipH - gap - cardH },
    left: { x: side, y: middle },
    right: { x: width - side - fan, y: middle },
  };
  const at = positions[spot] || positions.top;
  return { x: Math.round(at.x), y: Math.round(at.y), step: Math.round(step * 10) / 10, fan };
}

/** Where a chip sits (the centre of its box): the point a taken trick flies to. */
export function chipCentre(spot, geo) {
  const { width, height, chipW, chipH, pad } = geo;
  return {
    top: { x: width / 2, y: pad + chipH / 2 },
    bottom: { x: width / 2, y: height - pad - chipH / 2 },
    left: { x: pad + chipW / 2, y: height / 2 },
    right: { x: width - pad - chipW / 2, y: height / 2 },
  }[spot];
}

/** The hand's cards for the width they may use: side by side while they fit at a good
 * size, overlapping (every rank still showing) when there are many. */
export function handGeometry(count, width, { largest = 84, smallest = 56, gap = 8 } = {}) {
  const n = Math.max(1, count);
  const fitting = (width - gap * (n - 1)) / n;
  const cardW = Math.floor(Math.max(smallest, Math.min(largest, fitting)));
  const step = n > 1 ? Math.min(cardW + gap, (width - cardW) / (n - 1)) : 0;
  return { cardW, cardH: Math.round(cardW * CARD_RATIO), step: Math.floor(step) };
}

// ------------------------------------------------------------------ colours

/** `#rgb` or `#rrggbb` as [r, g, b] (null for anything else). */
export function parseColour(text) {
  if (typeof text !== "string") return null;
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(text);
  if (short) return short.slice(1).map((h) => parseInt(h + h, 16));
  const long = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(text);
  return long ? long.slice(1).map((h) => parseInt(h, 16)) : null;
}

export const hex = (rgb) => "#" + rgb.map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");

/** `a` and `b` mixed, `share` of `b` (0..1). */
export const mix = (a, b, share) => a.map((v, i) => v + (b[i] - v) * share);

/** Relative luminance (WCAG), 0 for black to 1 for white. */
export function luminance(rgb) {
  const [r, g, b] = rgb.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const DEFAULTS = {
  light: {
    bg: "#ffffff", text: "#1c1c1e", hint: "#707579", link: "#2481cc", button: "#2481cc",
    button_text: "#ffffff", secondary_bg: "#f1f1f4",
  },
  dark: {
    bg: "#17212b", text: "#f5f5f5", hint: "#708499", link: "#6ab3f3", button: "#5288c1",
    button_text: "#ffffff", secondary_bg: "#232e3c",
  },
};
const FELT = { light: [36, 112, 70], dark: [28, 84, 54] }; // a card table's green
const GOLD = [240, 184, 0];

/** The page's colours (CSS custom properties) from Telegram's theme: its own colours where
 * it gives them, and a felt and accents made to sit with them. */
export function palette(params, scheme) {
  const p = params || {};
  const bgGiven = parseColour(p.bg_color);
  const mode = bgGiven ? (luminance(bgGiven) < 0.2 ? "dark" : "light") : scheme === "dark" ? "dark" : "light";
  const base = DEFAULTS[mode];
  const pick = (key) => (parseColour(p[key + "_color"]) ? p[key + "_color"].toLowerCase() : base[key]);
  const bg = parseColour(pick("bg"));
  const button = parseColour(pick("button"));
  // The felt takes a little of the background (and of the accent), so each theme has its own.
  const felt = mix(mix(FELT[mode], bg, mode === "dark" ? 0.3 : 0.08), button, 0.08);
  const accent = parseColour(p.accent_text_color) || button;
  return {
    scheme: mode,
    vars: {
      "--bg": pick("bg"),
      "--text": pick("text"),
      "--hint": pick("hint"),
      "--link": pick("link"),
      "--button": pick("button"),
      "--button-text": pick("button_text"),
      "--secondary-bg": pick("secondary_bg"),
      "--felt": hex(felt),
      "--felt-edge": hex(mix(felt, [0, 0, 0], 0.35)),
      "--felt-text": "#ffffff",
      "--accent": hex(accent),
      "--glow": hex(mix(GOLD, accent, 0.15)),
      "--veil": hex(bg) + "f5", // the deal's result over the felt: the felt barely shows
    },
  };
}
