// What a replay shows, read from its DOM in one go; run by Selenium as a function body
// (tests/web/test_browser.py).
const main = document.getElementById('app');
const text = (id) => { const n = document.getElementById(id); return n ? n.textContent : null; };
const button = (id) => { const n = document.getElementById(id); return n ? !n.disabled : null; };
return {
  status: main.dataset.status || null,
  step: main.dataset.step ? Number(main.dataset.step) : null,
  steps: main.dataset.steps ? Number(main.dataset.steps) : null,
  heading: text('replay-heading'),
  plays: document.querySelectorAll('#replay-trick .play .card').length,
  faceDown: document.querySelectorAll('#replay-trick .card.down').length,
  turned: document.querySelectorAll('#replay-trick .card.turned').length,
  taker: text('replay-taker'),
  stock: text('replay-stock'),
  points: text('replay-points'),
  hands: [...document.querySelectorAll('#replay-hands .replay-hand')].map(h => h.querySelectorAll('.card').length),
  marks: [...document.querySelectorAll('#marks .mark')].map(m => m.textContent),
  markedPlays: [...document.querySelectorAll('#replay-trick .play.marked .who')].map(w => w.textContent),
  result: text('replay-result') || '',
  laterDeal: button('later-deal'),
  backEnabled: button('step-back'),
};
