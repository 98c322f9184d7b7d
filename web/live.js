// The signed-in player's own event stream (the WebSocket's
// `subscribe_player`): it keeps the count of games waiting for the player
// in the navigation badge and the tab title, shows a notice (a toast) for
// invitations, offers, rematches and finished games, and tells the open
// page (the lobby, "my games") to draw itself again. Without a socket the
// count is fetched every half minute.

import { api, session } from "/assets/api.js";

const listeners = new Set();
let socket = null;
let retry = null;
let poll = null;
let waiting = 0;
let baseTitle = "Tavoliere";
let failures = 0;

/** The tab title: the page's, after the count of games waiting. */
export function setTitle(title) {
  baseTitle = title;
  document.title = waiting > 0 ? `(${waiting}) ${baseTitle}` : baseTitle;
}

function showCount() {
  const badge = document.getElementById("turn-badge");
  if (badge) {
    badge.textContent = String(waiting);
    badge.hidden = waiting === 0;
    badge.setAttribute("aria-label", `${waiting} game${waiting === 1 ? "" : "s"} waiting for your move`);
  }
  setTitle(baseTitle);
}

/** Asks the server how many games wait for the player's move. */
export async function refreshCount() {
  if (!session.token) { waiting = 0; showCount(); return; }
  try {
    waiting = (await api("GET", "/games?turn=me&limit=100")).games.length;
  } catch { /* the next event or poll tries again */ }
  showCount();
}

/**
 * `listener(event)` hears every player event until the returned function is
 * called, and `listener(null)` once the stream is followed: whatever came
 * before is in what the page fetches then.
 */
export function onPlayerEvent(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function toast(text, href) {
  let box = document.getElementById("toasts");
  if (!box) {
    box = document.createElement("div");
    box.id = "toasts";
    box.className = "toasts";
    box.setAttribute("role", "status");
    box.setAttribute("aria-live", "polite");
    document.body.append(box);
  }
  const item = document.createElement("div");
  item.className = "toast";
  const link = document.createElement("a");
  link.href = href;
  link.textContent = text;
  item.append(link);
  box.append(item);
  setTimeout(() => item.remove(), 12000);
}

/** What a player event says, in a sentence; `null` for none worth a notice. */
function sentence(kind, data) {
  const game = `game #${data.game}`;
  switch (kind) {
    case "invited": return `${data.by || "Someone"} invites you to ${game}.`;
    case "draw_offered": return `A draw is offered in ${game}.`;
    case "takeback_offered": return `A takeback is asked in ${game}.`;
    case "game_over": return `${game[0].toUpperCase()}${game.slice(1)} is over.`;
    case "rematch": return `${data.by || "Your opponent"} asks for a rematch: ${game}.`;
    case "declined": return `An invitation to ${game} was declined.`;
    default: return null;
  }
}

function receive(frame) {
  if (frame.type === "ack" && frame.id === "player") {
    // Followed from now on: an event committed between the page's own
    // fetch and this moment came before the stream, so the page draws
    // itself again. `data-player-stream` tells tests (and styles) so.
    document.body.dataset.playerStream = "live";
    refreshCount();
    for (const listener of listeners) listener(null);
    return;
  }
  if (frame.type !== "player_event") return;
  const data = frame.data || {};
  const text = sentence(frame.kind, data);
  // The game page the player is looking at shows its own news.
  const here = location.pathname === `/game/${data.game}`;
  if (text && !(here && frame.kind !== "rematch")) toast(text, `/game/${data.game}`);
  refreshCount();
  for (const listener of listeners) listener(frame);
}

function connect() {
  if (!session.token || socket) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let ws;
  try { ws = new WebSocket(`${scheme}://${location.host}/api/v1/ws`); } catch { return; }
  socket = ws;
  ws.onopen = () => {
    failures = 0;
    ws.send(JSON.stringify({ type: "auth", token: session.token }));
    ws.send(JSON.stringify({ type: "subscribe_player", id: "player" }));
    refreshCount();
  };
  ws.onmessage = (message) => {
    let frame;
    try { frame = JSON.parse(message.data); } catch { return; }
    receive(frame);
  };
  ws.onclose = () => {
    socket = null;
    delete document.body.dataset.playerStream;
    if (!session.token) return;
    failures += 1;
    retry = setTimeout(connect, Math.min(30000, 1000 * failures));
  };
}

/** Follows the signed-in player (again after signing in); stops when signed out. */
export function follow() {
  if (!session.token) {
    clearTimeout(retry);
    clearInterval(poll);
    poll = null;
    if (socket) { const s = socket; socket = null; s.onclose = null; s.close(); }
    waiting = 0;
    showCount();
    return;
  }
  connect();
  if (!poll) poll = setInterval(() => { if (!socket) refreshCount(); }, 30000);
  refreshCount();
}
