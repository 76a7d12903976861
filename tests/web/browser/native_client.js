// A native Telegram client, as the page sees it: Telegram's script posts every event through
// window.TelegramWebviewProxy. This one answers the script's requests the way Telegram's apps
// do (theme, viewport, safe areas, full screen) and keeps what it was sent; navigator.vibrate is recorded
// too (the page must never call it). Added to every new document before its own scripts.
(() => {
  const sent = [];
  const vibrations = [];
  const answer = (type, data) => setTimeout(() => window.Telegram.WebView.receiveEvent(type, data));
  window.__telegram = { sent, vibrations, theme: null };
  window.TelegramWebviewProxy = {
    postEvent(type, data) {
      sent.push([type, data ? JSON.parse(data) : null]);
      const client = window.__telegram;
      if (type === 'web_app_request_theme' && client.theme) {
        answer('theme_changed', { theme_params: client.theme });
      } else if (type === 'web_app_request_viewport') {
        answer('viewport_changed', { height: window.innerHeight, is_expanded: true, is_state_stable: true });
      } else if (type === 'web_app_request_safe_area') {
        answer('safe_area_changed', { top: 0, bottom: 0, left: 0, right: 0 });
      } else if (type === 'web_app_request_content_safe_area') {
        answer('content_safe_area_changed', { top: 0, bottom: 0, left: 0, right: 0 });
      } else if (type === 'web_app_request_fullscreen' || type === 'web_app_exit_fullscreen') {
        // A phone's full screen: the status bar and Telegram's own buttons over the top of
        // the page, the home indicator at its bottom (an iPhone's figures).
        const full = type === 'web_app_request_fullscreen';
        answer('fullscreen_changed', { is_fullscreen: full });
        answer('safe_area_changed', { top: full ? 47 : 0, bottom: full ? 34 : 0, left: 0, right: 0 });
        answer('content_safe_area_changed', { top: full ? 46 : 0, bottom: 0, left: 0, right: 0 });
      }
    },
  };
  navigator.vibrate = (pattern) => { vibrations.push(pattern); return true; };
})();
