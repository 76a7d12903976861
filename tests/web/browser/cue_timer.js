// Times the turn's cue in the page itself: from the tap (a click, caught before the page's
// own handlers) to the moment the strip stops cueing. Read back as window.__cue.
const strip = document.getElementById("strip");
const cue = { tapped: null, gone: null };
window.__cue = cue;
document.addEventListener("click", () => {
  if (cue.tapped === null) cue.tapped = performance.now();
}, { capture: true, once: true });
new MutationObserver((_, observer) => {
  if (cue.tapped !== null && !strip.classList.contains("cue")) {
    cue.gone = performance.now();
    observer.disconnect();
  }
}).observe(strip, { attributes: true, attributeFilter: ["class"] });
