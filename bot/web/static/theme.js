// Telegram's theme for the Kozel Mini App: themeParams colours become the page's CSS
// variables (only well-formed colours; anything else keeps the system's light or dark ones).
"use strict";
window.KozelTheme = (() => {
  function applyTheme(params) {
    if (!params) return;
    const names = {
      bg_color: "--bg", text_color: "--text", hint_color: "--hint", link_color: "--link",
      button_color: "--button", button_text_color: "--button-text",
      secondary_bg_color: "--secondary-bg",
    };
    for (const [key, css] of Object.entries(names)) {
      if (typeof params[key] === "string" && /^#[0-9a-fA-F]{3,8}$/.test(params[key])) {
        document.documentElement.style.setProperty(css, params[key]);
      }
    }
  }

  return { apply: applyTheme };
})();
