// Unit tests of the Mini App's pure logic (`npm test`: `node --test tests/web/js/model.test.js`).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import * as model from "../../../bot/web/static/model.js";

const seat = (n, extra = {}) => ({ seat: n, name: `P${n}`, me: false, to_move: false, ...extra });

/** A state as the server sends it, with only what a test changes spelled out. */
function state(extra = {}) {
  return {
    table: 7, version: 10, ply: 4, status: "playing", seat: 0, spectator: false, my_turn: false,
    hand: [
      { card: "9♠", trump: false, playable: true, beats: false },
      { card: "K♠", trump: false, playable: true, beats: true },
      { card: "A♦", trump: true, playable: false, beats: false },
    ],
    actions: [], seats: [0, 1, 2, 3].map((n) => seat(n)), trick: null, last_trick: null,
    deal_end: null, match_over: false, timer: 30,
    ...extra,
  };
}

const play = (seatNo, cards, extra = {}) => ({
  seat: seatNo, verb: "lead", cards, trumps: cards.map(() => false), count: cards.length,
  face_down: false, top: false, ...extra,
});
const trick = (plays, taker = null) => ({ leader: plays.length ? plays[0].seat : 0, taker, plays });

describe("words", () => {
  it("fills every placeholder, also a repeated one", () => {
    const strings = { twice: "{name} and {name} in {chat}" };
    assert.equal(model.say(strings, "twice", { name: "Ann", chat: "Club" }), "Ann and Ann in Club");
    assert.equal(model.say({}, "missing"), "missing");
  });

  it("counts the timer down in minutes and seconds, never below zero", () => {
    assert.equal(model.clock(61.2), "⏱ 1:02");
    assert.equal(model.clock(9), "⏱ 0:09");
    assert.equal(model.clock(-3), "⏱ 0:00");
  });
});

describe("launch", () => {
  it("takes initData and the table from Telegram's script first", () => {
    const webApp = { initData: "auth=1", initDataUnsafe: { start_param: "42" } };
    assert.deepEqual(model.launch("", "", webApp), { initData: "auth=1", table: "42", replay: null });
  });

  it("opens a replay from its start parameter or its query", () => {
    const webApp = { initData: "auth=1", initDataUnsafe: { start_param: "r42_3" } };
    assert.deepEqual(model.launch("", "", webApp), { initData: "auth=1", table: "42", replay: "3" });
    assert.deepEqual(model.launch("", "?table=7&replay=2", { initData: "a" }), { initData: "a", table: "7", replay: "2" });
  });

  it("falls back to the fragment, and the query names the table", () => {
    const hash = "#tgWebAppData=user%3D1%26hash%3Dx&tgWebAppStartParam=9";
    assert.deepEqual(model.launch(hash, "?table=5", null), { initData: "user=1&hash=x", table: "5", replay: null });
    assert.deepEqual(model.launch(hash, "", { initData: "" }), { initData: "user=1&hash=x", table: "9", replay: null });
  });
});

describe("receiving states", () => {
  it("never steps back to an older version", () => {
    const page = model.receive(model.initial(), state({ version: 10 })).page;
    const older = model.receive(page, state({ version: 9, ply: 3 }));
    assert.equal(older.page, page);
    assert.equal(older.turnStarts, false);
  });

  it("keeps the selection within the same move, drops it after a move", () => {
    let page = model.receive(model.initial(), state()).page;
    page = { ...page, chosen: ["9♠", "K♠"] };
    const same = model.receive(page, state({ version: 11, hand: state().hand.slice(1) })).page;
    assert.deepEqual(same.chosen, ["K♠"]); // a card no longer held leaves the selection
    const moved = model.receive(page, state({ version: 11, ply: 5 })).page;
    assert.deepEqual(moved.chosen, []);
  });

  it("cues a turn when it starts, and only then", () => {
    const waiting = model.receive(model.initial(), state()).page;
    const start = model.receive(waiting, state({ version: 11, my_turn: true }));
    assert.equal(start.turnStarts, true);
    assert.equal(start.page.cued, true);
    const again = model.receive(start.page, state({ version: 12, my_turn: true }));
    assert.equal(again.turnStarts, false);
    assert.equal(again.page.cued, true); // still cued: the player has not touched the hand
    assert.equal(model.touched(again.page).cued, false);
    const over = model.receive(again.page, state({ version: 13, ply: 5 }));
    assert.equal(over.page.cued, false);
  });

  it("a page opened on the player's turn cues it; a finished table never does", () => {
    assert.equal(model.receive(model.initial(), state({ my_turn: true })).turnStarts, true);
    const done = state({ my_turn: true, status: "finished" });
    assert.equal(model.receive(model.initial(), done).turnStarts, false);
  });

  it("a tap's answer brings the server's selection and ends the cue", () => {
    const page = { ...model.initial(), chosen: ["9♠"], cued: true };
    const after = model.tapped(page, { tap: "select", chosen: ["9♠", "K♠"] });
    assert.deepEqual(after.chosen, ["9♠", "K♠"]);
    assert.equal(after.cued, false);
  });
});

describe("the hand and its buttons", () => {
  it("dims only unplayable cards, and only on the player's turn", () => {
    const waiting = model.handCards(state(), []);
    assert.ok(waiting.every((c) => !c.dimmed));
    const mine = model.handCards(state({ my_turn: true }), ["K♠"]);
    assert.deepEqual(mine.map((c) => [c.card, c.dimmed, c.selected]), [
      ["9♠", false, false], ["K♠", false, true], ["A♦", true, false],
    ]);
  });

  it("marks the cards that can beat green, only on the player's turn", () => {
    assert.ok(model.handCards(state(), []).every((c) => !c.beats));
    const mine = model.handCards(state({ my_turn: true }), []);
    assert.deepEqual(mine.map((c) => [c.card, c.beats]), [["9♠", false], ["K♠", true], ["A♦", false]]);
  });

  it("offers the server's moves for exactly the cards chosen", () => {
    const actions = [
      { verb: "beat", cards: ["9♠", "K♠"], special: false },
      { verb: "discard", cards: ["9♠", "K♠"], special: false },
      { verb: "beat", cards: ["K♠"], special: false },
      { verb: "molodka", cards: ["9♠", "K♠"], special: true },
    ];
    assert.deepEqual(model.choices(actions, ["K♠", "9♠"]).map((a) => a.verb), ["beat", "discard"]);
    assert.deepEqual(model.choices(actions, []), []);
    assert.deepEqual(model.specials(actions).map((a) => a.verb), ["molodka"]);
  });
});

describe("the felt's scene", () => {
  const taken = trick([play(1, ["9♠"]), play(2, ["K♠"], { top: true })], 2);
  const onTable = trick([play(2, ["A♥"])]);

  it("shows the trick being played", () => {
    const page = { ...model.initial(), state: state({ trick: onTable, last_trick: taken }) };
    assert.equal(model.scene(page).kind, "current");
    assert.equal(model.scene({ ...page, showLast: true }).kind, "peek");
  });

  it("keeps a taken trick until it is swept, then the felt is empty", () => {
    const page = { ...model.initial(), state: state({ trick: trick([]), last_trick: taken }) };
    assert.equal(model.scene(page).kind, "taken");
    assert.equal(model.scene({ ...page, swept: model.trickKey(taken) }).kind, "empty");
  });

  it("shows the deal's result until closed or the next deal's first trick is taken", () => {
    const end = { number: 1, heading: "Deal 1 is over", lines: [], trick: taken };
    const page = { ...model.initial(), state: state({ deal_end: end, trick: trick([]) }) };
    assert.equal(model.scene(page).kind, "deal");
    assert.equal(model.scene({ ...page, dismissed: 1 }).kind, "empty");
    const answer = { ...page, state: state({ deal_end: end, trick: onTable, my_turn: true }) };
    assert.equal(model.scene(answer).kind, "deal"); // read first; the cards wait below it
    assert.equal(model.scene({ ...answer, dismissed: 1 }).kind, "current");
    const later = { ...page, state: state({ deal_end: null, trick: onTable }) };
    assert.equal(model.scene(later).kind, "current"); // the server stopped sending it
    const over = { ...page, dismissed: 1, state: state({ deal_end: end, match_over: true }) };
    assert.equal(model.scene(over).kind, "deal"); // the last result stays
  });

  it("sweeps a trick to its taker once it is done, never on a mere look", () => {
    const before = { kind: "taken", trick: taken };
    assert.equal(model.sweepTo(before, { kind: "empty", trick: null }, taken), 2);
    assert.equal(model.sweepTo(before, { kind: "current", trick: onTable }, taken), 2);
    assert.equal(model.sweepTo(before, { kind: "peek", trick: taken }, taken), null);
    assert.equal(model.sweepTo({ kind: "peek", trick: taken }, { kind: "current", trick: onTable }, taken), null);
    // The trick seen incomplete becomes the taken trick: it stays (with its last card).
    const partial = { kind: "current", trick: trick([play(1, ["9♠"])]) };
    assert.equal(model.sweepTo(partial, { kind: "taken", trick: taken }, taken), null);
    // ...or the next lead came before the page saw it taken: it goes to the taker.
    assert.equal(model.sweepTo(partial, { kind: "current", trick: onTable }, taken), 2);
  });

  it("groups the trick by seat, face-down cards as backs", () => {
    const t = trick([
      play(0, ["9♠", "K♠"], { top: true, trumps: [false, true] }),
      play(1, [], { verb: "discard", count: 2, face_down: true }),
      play(2, ["6♦", "7♦"], { verb: "discard", face_down: true }), // the page's own discard
    ]);
    const bySeat = model.trickBySeat(t);
    assert.deepEqual(bySeat.get(0), [
      { card: "9♠", trump: false, top: true }, { card: "K♠", trump: true, top: true },
    ]);
    assert.deepEqual(bySeat.get(1).map((c) => c.card), [null, null]);
    assert.deepEqual(bySeat.get(2).map((c) => c.card), [null, null]);
  });
});

describe("places around the table", () => {
  it("puts the page's seat at the bottom and the others in playing order", () => {
    assert.deepEqual(model.spots(4, 1), { 1: "bottom", 2: "left", 3: "top", 0: "right" });
    assert.deepEqual(model.spots(3, 2), { 2: "bottom", 0: "left", 1: "right" });
    assert.deepEqual(model.spots(2, 0), { 0: "bottom", 1: "top" });
    assert.deepEqual(model.spots(4, null), { 0: "bottom", 1: "left", 2: "top", 3: "right" });
  });

  for (const width of [344, 360, 374, 414]) {
    it(`fits four-card fans on a ${width} px felt without overlap, cards ≥ 48 px`, () => {
      const geo = model.feltGeometry(width);
      assert.ok(geo.cardW >= 48 && geo.cardH >= 67);
      const boxes = {};
      for (const spot of ["top", "left", "right", "bottom"]) {
        const fan = model.fanAt(spot, 4, geo);
        boxes[spot] = { x0: fan.x, x1: fan.x + fan.fan, y0: fan.y, y1: fan.y + geo.cardH };
        assert.ok(fan.x >= 0 && fan.x + fan.fan <= width, `${spot} inside`);
        assert.ok(fan.y >= geo.pad + geo.chipH || spot !== "top", "top cards below the chip");
        assert.ok(fan.step >= 8, "every card's index shows");
      }
      assert.ok(boxes.left.x1 < boxes.right.x0, "left and right fans do not meet");
      assert.ok(boxes.top.y1 < boxes.left.y0 && boxes.left.y1 < boxes.bottom.y0, "rows apart");
      assert.ok(boxes.bottom.y1 <= geo.height - geo.pad - geo.chipH, "bottom cards above my chip");
      assert.ok(boxes.left.x0 >= geo.pad + geo.chipW, "left cards beside the left chip");
    });
  }

  it("lays the hand side by side while it fits, overlapping when it does not", () => {
    const four = model.handGeometry(4, 374);
    assert.equal(four.cardW, 84);
    assert.equal(four.step, 92);
    assert.ok(four.cardW + 3 * four.step <= 374);
    assert.equal(model.handGeometry(4, 344).cardW, 80); // a 360 px phone
    const eight = model.handGeometry(8, 344);
    assert.equal(eight.cardW, 56);
    assert.ok(eight.cardW + 7 * eight.step <= 344);
    assert.ok(eight.step >= 24, "each card's corner index stays visible");
    assert.equal(model.handGeometry(1, 358).step, 0);
  });
});

describe("colours", () => {
  it("parses Telegram's colours and nothing else", () => {
    assert.deepEqual(model.parseColour("#0f0"), [0, 255, 0]);
    assert.deepEqual(model.parseColour("#101820"), [16, 24, 32]);
    assert.equal(model.parseColour("red"), null);
    assert.equal(model.parseColour("#12345"), null);
    assert.equal(model.parseColour("url(x)"), null);
  });

  it("takes the scheme from the theme's background, not the phone's setting", () => {
    assert.equal(model.palette({ bg_color: "#101820" }, "light").scheme, "dark");
    assert.equal(model.palette({ bg_color: "#ffffff" }, "dark").scheme, "light");
    assert.equal(model.palette(null, "dark").scheme, "dark");
  });

  it("makes a felt and accents for each theme, with white text readable on the felt", () => {
    const dark = model.palette({ bg_color: "#101820", button_color: "#3a7bd5" }, "dark").vars;
    const light = model.palette({ bg_color: "#ffffff", button_color: "#2481cc" }, "light").vars;
    const blue = model.palette({ bg_color: "#ffffff", button_color: "#e53935" }, "light").vars;
    assert.notEqual(dark["--felt"], light["--felt"]);
    assert.notEqual(light["--felt"], blue["--felt"]); // the accent tints the felt
    assert.equal(light["--accent"], "#2481cc");
    for (const vars of [dark, light]) {
      const felt = model.parseColour(vars["--felt"]);
      assert.ok(model.contrast(felt, [255, 255, 255]) >= 4.5, vars["--felt"]);
    }
    assert.equal(dark["--bg"], "#101820");
    assert.equal(model.palette({ bg_color: "javascript:1" }, "light").vars["--bg"], "#ffffff");
  });
});
