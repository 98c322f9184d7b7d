// The server's REST API and the live WebSocket, for the pages of app.js.

const TOKEN_KEY = "tavoliere.token";
const NAME_KEY = "tavoliere.name";

export const session = {
  get token() { return localStorage.getItem(TOKEN_KEY); },
  get name() { return localStorage.getItem(NAME_KEY); },
  set(name, token) { localStorage.setItem(TOKEN_KEY, token); localStorage.setItem(NAME_KEY, name); },
  clear() { localStorage.removeItem(TOKEN_KEY); localStorage.removeItem(NAME_KEY); },
};

/** A refusal from the server, carrying its code and message. */
export class ApiError extends Error {
  constructor(status, code, message, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

/** Calls `/api/v1{path}`; resolves to the JSON body, rejects with ApiError. */
export async function api(method, path, body) {
  const headers = {};
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, "network", `cannot reach the server (${e.message})`);
  }
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!response.ok) {
    const error = json && json.error ? json.error : { code: "http_" + response.status, message: text || response.statusText };
    if (response.status === 401 && session.token && path !== "/sessions") {
      // A token the server no longer knows: forget it.
      session.clear();
    }
    throw new ApiError(response.status, error.code, error.message, json);
  }
  return json;
}

let catalogue = null;
/** The catalogue (`GET /rules`), fetched once. */
export async function rules() {
  if (!catalogue) catalogue = (await api("GET", "/rules")).games;
  return catalogue;
}

/**
 * Follows one game live. Uses the WebSocket of the shared protocol when the
 * server offers it (resuming from the last `seq` after a reconnect); when it
 * cannot connect, polls `GET /games/{id}` every `pollMs`. `onState` receives
 * every new full state; `onEvent` every event (chat, offers, …);
 * `onPresence` the online seats.
 */
export class GameFeed {
  constructor(id, { onState, onEvent, onPresence, onMode, pollMs = 2000 }) {
    this.id = id;
    this.onState = onState;
    this.onEvent = onEvent || (() => {});
    this.onPresence = onPresence || (() => {});
    this.onMode = onMode || (() => {});
    this.pollMs = pollMs;
    this.seq = -1;
    this.closed = false;
    this.socket = null;
    this.pending = new Map();
    this.nextId = 1;
    this.failures = 0;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    let opened = false;
    let socket;
    try {
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      socket = new WebSocket(`${scheme}://${location.host}/api/v1/ws`);
    } catch {
      this.startPolling();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      opened = true;
      this.failures = 0;
      this.stopPolling();
      this.onMode("live");
      if (session.token) socket.send(JSON.stringify({ type: "auth", token: session.token }));
      const subscribe = { type: "subscribe", game_id: this.id };
      if (this.seq >= 0) subscribe.since = this.seq;
      socket.send(JSON.stringify(subscribe));
    };
    socket.onmessage = (message) => {
      let frame;
      try { frame = JSON.parse(message.data); } catch { return; }
      this.receive(frame);
    };
    socket.onclose = () => {
      this.socket = null;
      for (const [, reject] of this.pending.values()) reject(new ApiError(0, "disconnected", "the connection closed"));
      this.pending.clear();
      if (this.closed) return;
      this.failures += 1;
      // Poll meanwhile, so nothing is missed, and try the socket again later.
      this.startPolling();
      const delay = opened ? 1000 : Math.min(30000, 2000 * this.failures);
      this.retry = setTimeout(() => this.connect(), delay);
    };
  }

  receive(frame) {
    if (frame.game_id !== undefined && frame.game_id !== this.id) return;
    switch (frame.type) {
      case "snapshot":
        this.seq = frame.seq;
        this.onState(frame.state);
        break;
      case "event":
        if (frame.seq <= this.seq) return;
        this.seq = frame.seq;
        this.onEvent(frame);
        // The event changed the game: fetch the whole state (legal moves, view).
        if (frame.kind !== "chat") this.refresh(true);
        break;
      case "presence":
        this.onPresence(frame.online || []);
        break;
      case "ack":
      case "error": {
        const waiting = this.pending.get(frame.id);
        if (waiting) {
          this.pending.delete(frame.id);
          if (frame.type === "ack") waiting[0](frame.result);
          else waiting[1](new ApiError(0, frame.code, frame.message, frame));
        }
        break;
      }
      default:
        break;
    }
  }

  /** Sends a request over the socket; resolves with its ack. */
  request(body) {
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(new ApiError(0, "disconnected", "not connected"));
        return;
      }
      const id = `c${this.nextId++}`;
      this.pending.set(id, [resolve, reject]);
      this.socket.send(JSON.stringify({ ...body, id }));
    });
  }

  get live() { return !!this.socket && this.socket.readyState === WebSocket.OPEN; }

  /** Fetches the state; hands it on when it is newer (or `force`d). */
  async refresh(force = false) {
    try {
      const state = await api("GET", `/games/${this.id}`);
      if (state.seq > this.seq || (force && state.seq >= this.seq)) {
        this.seq = state.seq;
        this.onState(state);
      }
    } catch {
      // The next poll or event tries again.
    }
  }

  startPolling() {
    if (this.timer || this.closed) return;
    this.onMode("polling");
    this.refresh();
    this.timer = setInterval(() => this.refresh(), this.pollMs);
  }

  stopPolling() {
    clearInterval(this.timer);
    this.timer = null;
  }

  close() {
    this.closed = true;
    this.stopPolling();
    clearTimeout(this.retry);
    if (this.socket) this.socket.close();
  }
}
