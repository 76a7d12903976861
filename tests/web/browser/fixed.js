// Every element fixed to the screen that shows now, with its rectangle (a function body).
return [...document.querySelectorAll('body *')].filter(n => {
  const style = getComputedStyle(n);
  return style.position === 'fixed' && style.visibility !== 'hidden' && Number(style.opacity) > 0
    && n.getClientRects().length > 0;
}).map(n => { const r = n.getBoundingClientRect();
  return {id: n.id, top: r.top, bottom: r.bottom, text: n.textContent}; });
