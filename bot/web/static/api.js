// Talking to the bot's server: the API calls and the live event stream. Every request
// carries Telegram's initData (the server checks it and finds the caller's seat with it).

const HEADER = "X-Telegram-Init-Data";
const SILENT_MS = 12000; // the server writes every 5 s at least (RECHECK in mini_app.py)

/** An error the server answered with (its text is already in the player's language). */
export class ServerError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }

  /** The caller may not look at this table (any more): retrying will not help. */
  get final() {
    return this.status === 401 || this.status === 403;
  }
}

export function connect({ initData, table }) {
  const url = (path, more = "") => `${path}?table=${encodeURIComponent(table)}${more}`;

  async function call(method, path, body, more = "") {
    const headers = { [HEADER]: initData };
    if (body) headers["Content-Type"] = "application/json";
    const response = await fetch(url(path, more), {
      method, headers, body: body ? JSON.stringify(body) : undefined,
    });
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    if (!response.ok) {
      throw new ServerError((data && data.error) || `HTTP ${response.status}`, response.status);
    }
    return data;
  }

  /** Server-Sent Events over fetch (EventSource cannot send the initData header): calls
   * `onState` with each state pushed; resolves when the stream ends (rejects with a
   * ServerError the server refused it with). A stream silent for too long is cut. */
  async function stream(onState, signal) {
    const response = await fetch(url("api/events"), { headers: { [HEADER]: initData }, signal });
    if (!response.ok) throw new ServerError(`HTTP ${response.status}`, response.status);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let heard = performance.now();
    const watchdog = setInterval(() => {
      if (performance.now() - heard > SILENT_MS) reader.cancel("silent");
    }, 1000);
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        heard = performance.now();
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const [kind, data] = buffer.slice(0, cut).split("\n");
          buffer = buffer.slice(cut + 2);
          if (kind === "event: state" && data && data.startsWith("data: ")) {
            onState(JSON.parse(data.slice(6)));
          }
        }
      }
    } finally {
      clearInterval(watchdog);
    }
  }

  return {
    state: () => call("GET", "api/state"),
    tap: (ply, card, chosen) => call("POST", "api/tap", { ply, card, chosen }),
    move: (ply, action) => call("POST", "api/move", { ply, verb: action.verb, cards: action.cards }),
    back: () => call("POST", "api/back"),
    coach: (deal) => call("POST", "api/coach", { deal }),
    alive: () => call("POST", "api/alive"),
    share: () => call("POST", "api/share"),
    replay: (deal) => call("GET", "api/replay", null, `&deal=${encodeURIComponent(deal)}`),
    stream,
  };
}
