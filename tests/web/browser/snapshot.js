// What the Mini App shows, read from its DOM in one go (rectangles in CSS px of the page);
// run by Selenium as a function body (tests/web/test_browser.py).
const main = document.getElementById('app');
const text = (n) => n ? n.textContent : null;
const box = (n) => { const r = n.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
const shown = (n) => n.getClientRects().length > 0 && getComputedStyle(n).visibility !== 'hidden';
const overlay = document.getElementById('deal-result');
const hand = document.getElementById('hand');
return {
  status: main.dataset.status || null,
  ply: main.dataset.ply ? Number(main.dataset.ply) : null,
  version: main.dataset.version ? Number(main.dataset.version) : null,
  myTurn: main.dataset.myTurn === 'yes',
  spectator: main.dataset.spectator === 'yes',
  scene: main.dataset.scene || null,
  sweeping: document.querySelectorAll('.sweep .card').length,
  toMove: main.dataset.toMove === undefined || main.dataset.toMove === '' ? null : Number(main.dataset.toMove),
  error: text(document.getElementById('error')),
  handTop: hand ? box(hand).y + window.scrollY : null,
  hand: [...document.querySelectorAll('#hand button.card')].map(b => ({
    card: b.dataset.card, dimmed: b.classList.contains('dimmed'),
    selected: b.classList.contains('selected'), opacity: Number(getComputedStyle(b).opacity),
    top: box(b).y + window.scrollY})),
  trick: [...document.querySelectorAll('#trick .card')].map(c => ({
    card: c.dataset.card || null, seat: Number(c.dataset.seat), top: c.classList.contains('top')})),
  faceUp: [...document.querySelectorAll('#felt .card.up')].filter(c => shown(c) && !c.closest('.sweep'))
    .map(c => ({card: c.dataset.card, w: box(c).w, mini: Boolean(c.closest('.mini-trick'))})),
  ranks: [...document.querySelectorAll('#trick .card.up svg text:first-of-type')].map(t => box(t).h),
  movers: [...document.querySelectorAll('#seats .chip.to-move')].map(c => Number(c.dataset.seat)),
  chips: [...document.querySelectorAll('#seats .chip')].map(c => ({
    seat: Number(c.dataset.seat), title: c.title})),
  timer: text(document.querySelector('#seats .chip.to-move .timer')),
  cue: Boolean(document.querySelector('#strip.cue')),
  strip: text(document.getElementById('strip')),
  score: document.getElementById('score') ? document.getElementById('score').getAttribute('aria-label') : null,
  stock: document.getElementById('stock') ? document.getElementById('stock').getAttribute('aria-label') : null,
  overlay: overlay && shown(overlay) ? {...box(overlay), text: overlay.innerText,
    plays: overlay.querySelectorAll('.mini-trick .play').length,
    winner: overlay.querySelectorAll('.mini-trick .card.top').length,
    next: document.getElementById('next-deal')
      ? {bottom: document.getElementById('next-deal').getBoundingClientRect().bottom} : null} : null,
  confirm: [...document.querySelectorAll('#actions button.confirm')].map(text),
  lastTrick: document.getElementById('last-trick') && shown(document.getElementById('last-trick'))
    ? document.getElementById('last-trick').getAttribute('aria-label') : null,
  scrollWidth: document.documentElement.scrollWidth,
  scrollY: window.scrollY,
  innerWidth: window.innerWidth,
  innerHeight: window.innerHeight,
  background: getComputedStyle(document.body).backgroundColor,
  felt: document.getElementById('felt') ? getComputedStyle(document.documentElement).getPropertyValue('--felt').trim() : null,
};
