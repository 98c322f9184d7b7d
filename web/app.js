// Tavoliere in the browser: the pages, routed on the client.

import { api, ApiError, GameFeed, rules, session } from "/assets/api.js";
import { describeStack, drawBoard, paint } from "/assets/board.js";
import { MovePicker } from "/assets/moves.js";
import { leaderboardPage, profilePage, ratingLabel } from "/assets/ratings.js";
import { conditionalCard } from "/assets/conditional.js";

const main = document.getElementById("main");
let cleanup = () => {};

// ---------------------------------------------------------------- helpers

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function link(href, ...children) {
  return h("a", { href, onclick: (e) => { if (!e.ctrlKey && !e.metaKey) { e.preventDefault(); go(href); } } }, ...children);
}

/** A message line: refusals in red, with the server's reason. */
export function notice(text, kind = "error") {
  return h("p", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

function errorText(e) {
  if (e instanceof ApiError) return e.message || e.code;
  return String(e && e.message ? e.message : e);
}

function flash(container, text, kind = "error") {
  container.replaceChildren(text ? notice(text, kind) : "");
}

export function go(href, replace = false) {
  if (replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  route();
}

window.addEventListener("popstate", route);

function nav() {
  const signedIn = !!session.token;
  const items = [link("/lobby", "Lobby"), link("/rules", "Rules"), link("/ratings", "Ratings")];
  if (signedIn) {
    items.push(link("/my", "My games"), link("/settings", "Settings"));
    items.push(h("span", { class: "me" }, session.name));
    items.push(h("button", { class: "link", id: "signout", onclick: signOut }, "Sign out"));
  } else {
    items.push(link("/signin", "Sign in"), link("/signup", "Sign up"));
  }
  document.getElementById("nav").replaceChildren(...items);
}

async function signOut() {
  // Ends the session on the server too; signed out here whatever it says.
  try { await api("DELETE", "/sessions/current"); } catch { /* already ended, or unreachable */ }
  session.clear();
  go("/lobby");
}

function gameName(catalogue, slug) {
  const game = catalogue.find((g) => g.slug === slug);
  return game ? `${game.english} (${game.italian})` : slug;
}

/** A seated player's name with their rating in the game's variant. */
function playerLabel(seat) {
  return seat.rating !== undefined ? `${seat.player} (${ratingLabel(seat.rating, seat.provisional)})` : seat.player;
}

function seatsText(game) {
  return game.seats.map((s) => `${s.colour}: ${s.player ? playerLabel(s) : (s.invited ? `${s.invited} (invited)` : "open")}`).join(" · ");
}

function gameRow(catalogue, game, extra = []) {
  return h("li", { class: "game-row", "data-game": game.id },
    link(`/game/${game.id}`, `#${game.id} ${gameName(catalogue, game.game)} — ${game.variant}`),
    h("span", { class: "muted" }, ` ${game.status}, move ${game.ply}. ${seatsText(game)}`),
    ...extra);
}

// ---------------------------------------------------------------- router

async function route() {
  cleanup();
  cleanup = () => {};
  nav();
  const path = location.pathname;
  const params = new URLSearchParams(location.search);
  main.replaceChildren(h("p", { class: "muted" }, "Loading…"));
  let match;
  try {
    if (path === "/" || path === "/lobby") await lobbyPage();
    else if (path === "/signin") signPage(false);
    else if (path === "/signup") signPage(true);
    else if (path === "/my") await myGamesPage();
    else if (path === "/settings") await settingsPage();
    else if (path === "/rules") await rulesPage(null);
    else if (path === "/ratings") await leaderboardPage(main, null, null);
    else if ((match = path.match(/^\/ratings\/([a-z0-9-]+)(?:\/([a-z0-9-]+))?$/))) await leaderboardPage(main, match[1], match[2]);
    else if ((match = path.match(/^\/player\/([^/]+)$/))) await profilePage(main, decodeURIComponent(match[1]));
    else if ((match = path.match(/^\/rules\/([a-z0-9-]+)$/))) await rulesPage(match[1]);
    else if ((match = path.match(/^\/game\/(\d+)$/))) await gamePage(Number(match[1]), params.get("ply"));
    else main.replaceChildren(notice("No such page."));
  } catch (e) {
    main.replaceChildren(notice(errorText(e)));
  }
}

// ---------------------------------------------------------------- accounts

function signPage(signUp) {
  const message = h("div");
  const name = h("input", { id: "name", name: "name", autocomplete: "username", required: true, maxlength: 32 });
  const password = h("input", { id: "password", name: "password", type: "password", autocomplete: signUp ? "new-password" : "current-password", required: true, minlength: signUp ? 8 : undefined, maxlength: 128 });
  const email = h("input", { id: "email", name: "email", type: "email", autocomplete: "email" });
  const form = h("form", {
    class: "card narrow",
    onsubmit: async (e) => {
      e.preventDefault();
      try {
        let token;
        if (signUp) {
          const body = { name: name.value.trim(), password: password.value };
          if (email.value.trim()) body.email = email.value.trim();
          token = (await api("POST", "/players", body)).token;
        } else {
          token = (await api("POST", "/sessions", { name: name.value.trim(), password: password.value })).token;
        }
        session.set(name.value.trim(), token);
        go("/lobby");
      } catch (err) {
        flash(message, errorText(err));
      }
    },
  },
  h("h1", {}, signUp ? "Sign up" : "Sign in"),
  h("label", { for: "name" }, "Name"), name,
  h("label", { for: "password" }, "Password"), password,
  signUp ? [h("label", { for: "email" }, "Email (optional, for notifications)"), email] : null,
  h("button", { type: "submit", id: "submit" }, signUp ? "Create account" : "Sign in"),
  message,
  h("p", {}, signUp ? link("/signin", "I have an account") : link("/signup", "Create an account")));
  main.replaceChildren(form);
  name.focus();
}

// ---------------------------------------------------------------- lobby

async function lobbyPage() {
  const catalogue = await rules();
  const me = session.name;
  const [open, live] = await Promise.all([
    api("GET", "/games?status=open&limit=50"),
    api("GET", "/games?status=active&limit=20"),
  ]);
  const message = h("div", { id: "lobby-message" });
  const invitations = open.games.filter((g) => me && g.seats.some((s) => s.invited && s.invited.toLowerCase() === me.toLowerCase()));
  const joinable = open.games.filter((g) => !invitations.includes(g) && g.seats.some((s) => !s.player && !s.invited));
  const join = async (id) => {
    try {
      await api("POST", `/games/${id}/join`);
      go(`/game/${id}`);
    } catch (e) { flash(message, errorText(e)); }
  };
  const decline = async (id) => {
    try {
      await api("POST", `/games/${id}/decline`);
      flash(message, `Invitation to game ${id} declined.`, "ok");
      lobbyPage();
    } catch (e) { flash(message, errorText(e)); }
  };
  const sections = [h("h1", {}, "Lobby"), message];
  if (me) {
    sections.push(h("section", { class: "card", id: "invitations" }, h("h2", {}, "Invitations"),
      invitations.length === 0 ? h("p", { class: "muted" }, "No invitations.") :
        h("ul", {}, invitations.map((g) => gameRow(catalogue, g, [
          h("button", { class: "accept", onclick: () => join(g.id) }, "Accept"),
          h("button", { class: "decline secondary", onclick: () => decline(g.id) }, "Decline"),
        ])))));
  }
  sections.push(h("section", { class: "card", id: "open-games" }, h("h2", {}, "Open games"),
    joinable.length === 0 ? h("p", { class: "muted" }, "No open games.") :
      h("ul", {}, joinable.map((g) => gameRow(catalogue, g, me && !g.seats.some((s) => s.player === me)
        ? [h("button", { class: "join", onclick: () => join(g.id) }, "Join")] : [])))));
  if (me) sections.push(createForm(catalogue, message));
  else sections.push(h("p", {}, link("/signin", "Sign in"), " or ", link("/signup", "sign up"), " to play; anyone can watch."));
  sections.push(h("section", { class: "card", id: "live-games" }, h("h2", {}, "Being played"),
    live.games.length === 0 ? h("p", { class: "muted" }, "No games in progress.") :
      h("ul", {}, live.games.map((g) => gameRow(catalogue, g)))));
  main.replaceChildren(...sections);
}

function createForm(catalogue, message) {
  const game = h("select", { id: "new-game" }, catalogue.map((g) => h("option", { value: g.slug }, `${g.english} (${g.italian})`)));
  const variant = h("select", { id: "new-variant" });
  const seat = h("select", { id: "new-seat" });
  const opponents = h("div", { id: "new-opponents" });
  const tc = h("select", { id: "new-time" },
    h("option", { value: "none" }, "No clock"),
    h("option", { value: "correspondence" }, "Correspondence (days per move)"),
    h("option", { value: "live" }, "Live (minutes + increment)"));
  const days = h("input", { id: "new-days", type: "number", min: 1, max: 30, value: 3 });
  const minutes = h("input", { id: "new-minutes", type: "number", min: 1, max: 600, value: 10 });
  const increment = h("input", { id: "new-increment", type: "number", min: 0, max: 600, value: 5 });
  const tcFields = h("div", { class: "row" });
  const isPublic = h("input", { id: "new-public", type: "checkbox", checked: true });
  const refreshVariant = () => {
    const info = catalogue.find((g) => g.slug === game.value);
    variant.replaceChildren(...info.variants.map((v) => h("option", { value: v.slug }, v.name)));
    refreshSeats();
  };
  const refreshSeats = () => {
    const info = catalogue.find((g) => g.slug === game.value).variants.find((v) => v.slug === variant.value);
    seat.replaceChildren(...info.seats.map((c, i) => h("option", { value: i }, `${c}${i === 0 ? " (moves first)" : ""}`)));
    refreshOpponents();
  };
  const refreshOpponents = () => {
    const info = catalogue.find((g) => g.slug === game.value).variants.find((v) => v.slug === variant.value);
    const mine = Number(seat.value);
    opponents.replaceChildren(...info.seats.flatMap((c, i) => i === mine ? [] :
      [h("label", {}, `${c}: `, h("input", { class: "opponent", "data-seat": i, placeholder: "open to anyone, or a player's name", maxlength: 32 }))]));
  };
  const refreshTc = () => {
    tcFields.replaceChildren(...(tc.value === "correspondence" ? [h("label", {}, "Days per move ", days)]
      : tc.value === "live" ? [h("label", {}, "Minutes ", minutes), h("label", {}, " Increment (s) ", increment)] : []));
  };
  game.addEventListener("change", refreshVariant);
  variant.addEventListener("change", refreshSeats);
  seat.addEventListener("change", refreshOpponents);
  tc.addEventListener("change", refreshTc);
  refreshVariant();
  const form = h("form", {
    class: "card", id: "create",
    onsubmit: async (e) => {
      e.preventDefault();
      // Invitations go to the other seats in seat order; the server takes
      // named players first, so open seats can only follow named ones.
      const names = [...opponents.querySelectorAll(".opponent")].map((i) => i.value.trim());
      const firstOpen = names.indexOf("");
      if (firstOpen >= 0 && names.slice(firstOpen).some((n) => n)) {
        flash(message, "Name the opponents in seat order: leave only the last seats open.");
        return;
      }
      const body = { game: game.value, variant: variant.value, seat: Number(seat.value), opponents: names.filter((n) => n), public: isPublic.checked };
      if (tc.value === "correspondence") body.time_control = { kind: "correspondence", days_per_move: Number(days.value) };
      if (tc.value === "live") body.time_control = { kind: "live", initial_seconds: Number(minutes.value) * 60, increment_seconds: Number(increment.value) };
      try {
        const created = await api("POST", "/games", body);
        go(`/game/${created.id}`);
      } catch (err) {
        flash(message, errorText(err));
        message.scrollIntoView({ block: "nearest" });
      }
    },
  },
  h("h2", {}, "New game"),
  h("label", {}, "Game ", game), h("label", {}, "Variant ", variant), h("label", {}, "My seat ", seat),
  h("fieldset", {}, h("legend", {}, "Opponents"), opponents),
  h("label", {}, "Time control ", tc), tcFields,
  h("label", { class: "inline" }, isPublic, " Public (anyone can find and watch it)"),
  h("button", { type: "submit", id: "create-submit" }, "Create game"));
  return form;
}

// ---------------------------------------------------------------- my games

async function myGamesPage() {
  if (!session.token) { go("/signin", true); return; }
  const catalogue = await rules();
  const me = session.name;
  const [turn, mine] = await Promise.all([
    api("GET", "/games?turn=me&limit=100"),
    api("GET", `/games?player=${encodeURIComponent(me)}&limit=100`),
  ]);
  const waiting = new Set(turn.games.map((g) => g.id));
  const others = mine.games.filter((g) => !waiting.has(g.id));
  main.replaceChildren(h("h1", {}, "My games"),
    h("section", { class: "card", id: "my-turn" }, h("h2", {}, "Waiting for my move"),
      turn.games.length === 0 ? h("p", { class: "muted" }, "Nothing to play.") : h("ul", {}, turn.games.map((g) => gameRow(catalogue, g)))),
    h("section", { class: "card", id: "my-other" }, h("h2", {}, "Other games"),
      others.length === 0 ? h("p", { class: "muted" }, "No other games.") : h("ul", {}, others.map((g) => gameRow(catalogue, g)))));
}

// ---------------------------------------------------------------- rules

async function rulesPage(slug) {
  const catalogue = await rules();
  if (!slug) {
    main.replaceChildren(h("h1", {}, "Rules"), h("ul", { class: "card" }, catalogue.map((g) =>
      h("li", {}, link(`/rules/${g.slug}`, `${g.english} (${g.italian})`), h("span", { class: "muted" }, ` — ${g.variants.length} variant${g.variants.length > 1 ? "s" : ""}`)))));
    return;
  }
  const game = catalogue.find((g) => g.slug === slug);
  if (!game) { main.replaceChildren(notice(`No game called ${slug}.`)); return; }
  main.replaceChildren(h("article", { class: "card rules" },
    h("h1", {}, `${game.english}`, h("span", { class: "muted" }, ` — ${game.italian}`)),
    h("p", {}, game.summary),
    h("h2", {}, "Notation"), h("p", {}, game.notation),
    h("h2", {}, "Variants"),
    h("dl", {}, game.variants.map((v) => [
      h("dt", {}, `${v.name} (${v.slug}) `, link(`/ratings/${game.slug}/${v.slug}`, "leaderboard")),
      h("dd", {}, h("p", {}, v.summary), h("p", { class: "muted" }, `Board: ${v.board}. Seats: `,
        v.seats.map((c) => h("span", { class: "swatch", style: `background:${paint(c)}`, title: c })), ` ${v.seats.join(", ")}.`)),
    ]))));
}

// ---------------------------------------------------------------- settings

const NOTIFY_KINDS = [["your_turn", "My turn"], ["invited", "Invitations"], ["game_over", "Game over"], ["chat", "Chat"], ["reminder", "Reminders"]];

async function settingsPage() {
  if (!session.token) { go("/signin", true); return; }
  const me = await api("GET", "/players/me");
  const message = h("div", { id: "settings-message" });
  const email = h("input", { id: "settings-email", type: "email", value: me.email || "" });
  // A new email needs the current password (a stolen token cannot take
  // the account over).
  const current = h("input", { id: "settings-current-password", type: "password", autocomplete: "current-password", required: true, maxlength: 128 });
  const sections = [h("h1", {}, "Settings"), message,
    h("form", {
      class: "card", id: "account",
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          await api("PATCH", "/players/me", { email: email.value.trim() || null, current_password: current.value });
          current.value = "";
          flash(message, "Email saved.", "ok");
        } catch (err) { flash(message, errorText(err)); }
      },
    }, h("h2", {}, "Account"), h("p", {}, `Signed in as ${me.name}.`), h("label", {}, "Email ", email), h("label", {}, "Current password ", current), h("button", { type: "submit" }, "Save email"))];
  if (me.notify && typeof me.notify === "object") {
    // The server keeps notification preferences: offer them.
    const boxes = [];
    const rows = NOTIFY_KINDS.map(([kind, label]) => h("tr", {}, h("th", { scope: "row" }, label),
      ...["email", "webhook"].map((channel) => {
        const box = h("input", { type: "checkbox", "data-kind": kind, "data-channel": channel, "aria-label": `${label} by ${channel}`, checked: (me.notify[kind] || []).includes(channel) });
        boxes.push(box);
        return h("td", {}, box);
      })));
    const webhook = h("input", { id: "settings-webhook", type: "url", value: me.webhook_url || "", placeholder: "https://…" });
    const digest = h("input", { id: "settings-digest", type: "checkbox", checked: !!me.digest });
    const secret = h("div");
    sections.push(h("form", {
      class: "card", id: "notifications",
      onsubmit: async (e) => {
        e.preventDefault();
        const notify = {};
        for (const [kind] of NOTIFY_KINDS) notify[kind] = boxes.filter((b) => b.dataset.kind === kind && b.checked).map((b) => b.dataset.channel);
        try {
          const answer = await api("PATCH", "/players/me", { notify, webhook_url: webhook.value.trim() || null, digest: digest.checked });
          flash(message, "Notification settings saved.", "ok");
          secret.replaceChildren(answer && answer.webhook_secret ? notice(`Webhook secret (shown once): ${answer.webhook_secret}`, "ok") : "");
        } catch (err) { flash(message, errorText(err)); }
      },
    }, h("h2", {}, "Notifications"),
    h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, "Email"), h("th", {}, "Webhook"))), h("tbody", {}, rows)),
    h("label", {}, "Webhook URL ", webhook), h("label", { class: "inline" }, digest, " One daily digest instead of single emails"),
    h("button", { type: "submit" }, "Save notifications"), secret));
  }
  if ("vacation_days_left" in me) {
    const vdays = h("input", { id: "vacation-days", type: "number", min: 1, value: 7 });
    sections.push(h("form", {
      class: "card", id: "vacation",
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          await api("POST", "/players/me/vacation", { days: Number(vdays.value) });
          flash(message, "Vacation started.", "ok");
        } catch (err) { flash(message, errorText(err)); }
      },
    }, h("h2", {}, "Vacation"),
    h("p", {}, `Days left: ${me.vacation_days_left}.`, me.vacation_until ? ` On vacation until ${new Date(me.vacation_until).toLocaleString()}.` : ""),
    h("label", {}, "Days ", vdays), h("button", { type: "submit" }, "Start vacation")));
  }
  main.replaceChildren(...sections);
}

// ---------------------------------------------------------------- game page

function formatClock(ms) {
  if (ms === null || ms === undefined) return "–";
  const total = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(total / 86400), hh = Math.floor((total % 86400) / 3600), mm = Math.floor((total % 3600) / 60), ss = total % 60;
  if (d > 0) return `${d}d ${hh}h`;
  return hh > 0 ? `${hh}:${String(mm).padStart(2, "0")}:${String(ss).padStart(2, "0")}` : `${mm}:${String(ss).padStart(2, "0")}`;
}

async function gamePage(id, plyParam) {
  const catalogue = await rules();
  const atPly = plyParam !== null && /^\d+$/.test(plyParam) ? Number(plyParam) : null;
  const status = h("div", { id: "status", "aria-live": "polite" });
  const message = h("div", { id: "game-message" });
  const boardBox = h("div", { id: "board-box" });
  const chooser = h("div", { id: "chooser", "aria-live": "polite" });
  const seatsBox = h("div", { id: "seats" });
  const actions = h("div", { id: "actions" });
  const moveList = h("ol", { id: "moves" });
  const historyNav = h("div", { id: "history-nav" });
  const textBoard = h("pre", { id: "text-board" });
  const chatLog = h("ul", { id: "chat-log" });
  const chatBox = h("section", { class: "card", id: "chat", hidden: true });
  const modeBadge = h("span", { id: "mode", class: "muted" });
  const notation = h("input", { id: "notation", placeholder: "or type a move, e.g. e4", autocomplete: "off", maxlength: 64, "aria-label": "move in notation" });
  let state = null;
  let picker = null;
  let clockTimer = null;
  let history = [];
  const conditional = conditionalCard(id, { h, flash, errorText });

  const play = async (move) => {
    if (!state) return;
    try {
      const answer = await api("POST", `/games/${id}/moves`, { move, ply: state.ply });
      flash(message, "");
      notation.value = "";
      show(answer.game);
      loadHistory();
    } catch (e) {
      flash(message, `${move}: ${errorText(e)}`);
      if (e.body && e.body.game) show(e.body.game);
      else render();
    }
  };

  const onCell = (cell) => {
    if (!picker) {
      let why = "It is not your turn.";
      if (!state || state.status !== "active") why = "The game is not being played.";
      else if (state.at_ply !== undefined) why = "This is a past position: go to the present to move.";
      else if (state.your_seat === null || state.your_seat === undefined) why = "You are watching this game.";
      flash(message, why);
      return;
    }
    const result = picker.click(cell);
    if (result.refused) { flash(message, result.refused); render(); return; }
    flash(message, "");
    if (result.play) { picker.reset(); render(); play(result.play); return; }
    render(result.choose, result.more);
    focusCell(cell);
  };

  const focusCell = (cell) => {
    const node = boardBox.querySelector(`[data-cell="${CSS.escape(cell)}"]`);
    if (node) { node.setAttribute("tabindex", "0"); node.focus(); }
  };

  function render(choices = null, more = false) {
    if (!state) return;
    const colours = state.view.seats.map((s) => s.colour);
    const marked = new Set();
    if (state.last_move) {
      const names = new Set(state.view.board.cells.map((c) => c.name));
      const probe = new MovePicker([state.last_move.move, state.last_move.effect || ""], names);
      for (const m of probe.moves) for (const c of m.cells) marked.add(c);
    }
    const targets = picker ? picker.highlights() : new Set();
    const info = catalogue.find((g) => g.slug === state.game);
    boardBox.replaceChildren(drawBoard(state.view, {
      colours, marked, targets, path: picker ? picker.path : [], onCell,
      title: `${info ? info.english : state.game} board`,
    }));
    chooser.replaceChildren();
    if (picker) {
      const buttons = (choices || []).map((m) => h("button", { class: "choice", "data-move": m, onclick: () => { picker.reset(); play(m); } }, m));
      const cellless = picker.cellless().map((m) => h("button", { class: "choice", "data-move": m, onclick: () => play(m) }, m));
      if (picker.path.length && !buttons.length) chooser.append(h("span", {}, `${picker.path.join(" ")}: choose a highlighted cell. `));
      if (buttons.length) chooser.append(h("span", {}, "Play: "), ...buttons, more ? h("span", {}, " or go on to a highlighted cell. ") : null);
      if (picker.path.length) chooser.append(h("button", { class: "secondary", id: "cancel-move", onclick: () => { picker.reset(); render(); } }, "Cancel"));
      if (cellless.length) chooser.append(h("span", {}, " Moves: "), ...cellless);
    }
    textBoard.textContent = state.view.board.cells.filter((c) => c.stack.length)
      .map((c) => `${c.name}: ${describeStack(c.stack, colours)}`).join("\n") || "The board is empty.";
  }

  function renderSeats() {
    const clock = state.clock;
    seatsBox.replaceChildren(...state.seats.map((s, i) => {
      const view = state.view.seats[i] || {};
      const extras = [];
      if (view.in_hand !== undefined) extras.push(`in hand ${view.in_hand}`);
      if (view.captured !== undefined) extras.push(`captured ${view.captured}`);
      if (view.score !== undefined) extras.push(`score ${view.score}`);
      if (view.range !== undefined) extras.push(`range ${view.range}`);
      if (view.neutral_stones !== undefined) extras.push(`neutral stones ${view.neutral_stones}`);
      if (view.out) extras.push("out");
      const toMove = state.to_move === s.seat && state.status === "active";
      return h("div", { class: `seat${toMove ? " to-move" : ""}`, "data-seat": s.seat },
        h("span", { class: "swatch", style: `background:${paint(s.colour)}` }),
        h("strong", {}, s.player ? link(`/player/${encodeURIComponent(s.player)}`, s.player) : (s.invited ? `${s.invited} (invited)` : "open seat")),
        s.rating !== undefined ? h("span", { class: "rating", title: s.provisional ? "provisional rating" : "rating" }, ` ${ratingLabel(s.rating, s.provisional)}`) : null,
        h("span", { class: "muted" }, ` ${s.colour}${state.your_seat === s.seat ? " (you)" : ""}`),
        extras.length ? h("span", { class: "extras" }, ` · ${extras.join(" · ")}`) : null,
        clock && Array.isArray(clock.remaining_ms) ? h("span", { class: "clock", "data-seat": s.seat }, formatClock(clock.remaining_ms[i])) : null,
        toMove ? h("span", { class: "turn" }, " ← to move") : null);
    }));
    clearInterval(clockTimer);
    if (clock && clock.running && state.to_move !== null && Array.isArray(clock.remaining_ms)) {
      const started = Date.now();
      const base = clock.remaining_ms[state.to_move];
      clockTimer = setInterval(() => {
        const node = seatsBox.querySelector(`.clock[data-seat="${state.to_move}"]`);
        const left = clock.deadline ? clock.deadline - Date.now() : base - (Date.now() - started);
        if (node) node.textContent = formatClock(left);
      }, 500);
    }
  }

  function renderStatus() {
    let text;
    if (state.at_ply !== undefined) text = `The position after move ${state.at_ply}.`;
    else if (state.status === "open") text = "Waiting for players to join.";
    else if (state.status === "aborted") text = "Aborted.";
    else if (state.status === "finished") {
      const winners = (state.outcome && state.outcome.winners) || [];
      const names = winners.map((w) => state.seats[w].player || state.seats[w].colour);
      text = `Finished: ${names.length ? `${names.join(" and ")} won` : "a draw"}${state.outcome && state.outcome.reason ? ` (${state.outcome.reason})` : ""}.`;
    }
    else if (state.your_seat === state.to_move) text = "Your move.";
    else text = `${state.to_move_player || "?"} to move.`;
    const phase = state.view.phase ? ` Phase: ${state.view.phase}.` : "";
    status.replaceChildren(h("strong", {}, text), phase);
  }

  function renderActions() {
    const mine = state.your_seat !== null && state.your_seat !== undefined;
    const buttons = [];
    const act = (label, path, idName, confirmText) => h("button", {
      class: "secondary", id: idName,
      onclick: async () => {
        if (confirmText && !window.confirm(confirmText)) return;
        try {
          const answer = await api("POST", `/games/${id}/${path}`);
          flash(message, "");
          show(answer);
          loadHistory();
        } catch (e) { flash(message, errorText(e)); }
      },
    }, label);
    if (mine && state.status === "active" && state.at_ply === undefined) {
      const drawOffered = state.offers.draw.filter((s) => s !== state.your_seat);
      const takebackOffered = state.offers.takeback.filter((s) => s !== state.your_seat);
      buttons.push(act("Resign", "resign", "resign", "Resign this game?"));
      if (drawOffered.length) buttons.push(act("Accept draw", "draw/yes", "draw-yes"), act("Decline draw", "draw/no", "draw-no"));
      else if (!state.offers.draw.includes(state.your_seat)) buttons.push(act("Offer draw", "draw/yes", "draw-offer"));
      else buttons.push(h("span", { class: "muted" }, "Draw offered. "));
      if (takebackOffered.length) buttons.push(act("Allow takeback", "takeback/yes", "takeback-yes"), act("Refuse takeback", "takeback/no", "takeback-no"));
      else if (state.ply > 0 && !state.offers.takeback.includes(state.your_seat)) buttons.push(act("Ask takeback", "takeback/yes", "takeback-ask"));
      if (state.ply < state.seats.length) buttons.push(act("Abort", "abort", "abort", "Abort this game?"));
    }
    if (state.status === "open" && session.token) {
      const invited = state.seats.find((s) => s.invited && session.name && s.invited.toLowerCase() === session.name.toLowerCase());
      if (invited) {
        buttons.push(act("Accept invitation", "join", "join"), act("Decline invitation", "decline", "decline"));
      } else if (!mine && state.seats.some((s) => !s.player && !s.invited)) {
        buttons.push(act("Join", "join", "join"));
      }
      if (mine) buttons.push(act("Abort", "abort", "abort", "Abort this game?"));
    }
    if (mine && state.status === "finished" && state.at_ply === undefined) {
      buttons.push(h("button", {
        class: "secondary", id: "rematch",
        onclick: async () => {
          try { go(`/game/${(await api("POST", `/games/${id}/rematch`)).id}`); } catch (e) { flash(message, errorText(e)); }
        },
      }, state.rematch ? "Rematch (accept)" : "Rematch"));
    }
    if (state.rematch) buttons.push(link(`/game/${state.rematch}`, `Rematch #${state.rematch} `));
    if (state.rematch_of) buttons.push(link(`/game/${state.rematch_of}`, `Rematch of #${state.rematch_of} `));
    buttons.push(h("a", { href: `/api/v1/games/${id}/record?format=text`, class: "muted", target: "_blank" }, "Record"));
    actions.replaceChildren(...buttons);
  }

  function renderHistory() {
    const current = state.at_ply !== undefined ? state.at_ply : null;
    moveList.replaceChildren(...history.map((m) => h("li", { value: m.ply, class: current === m.ply ? "current" : "" },
      link(`/game/${id}?ply=${m.ply}`, `${m.player}: ${m.move}`),
      m.effect && m.effect !== m.move ? h("span", { class: "muted" }, ` (${m.effect})`) : null,
      m.message ? h("span", { class: "muted" }, ` “${m.message}”`) : null)));
    const total = history.length;
    const here = current === null ? total : current;
    historyNav.replaceChildren(
      h("button", { class: "secondary", id: "ply-first", disabled: here === 0, onclick: () => go(`/game/${id}?ply=0`) }, "« start"),
      h("button", { class: "secondary", id: "ply-back", disabled: here === 0, onclick: () => go(`/game/${id}?ply=${here - 1}`) }, "‹ back"),
      h("button", { class: "secondary", id: "ply-forward", disabled: current === null, onclick: () => go(here + 1 >= total ? `/game/${id}` : `/game/${id}?ply=${here + 1}`) }, "next ›"),
      h("button", { class: "secondary", id: "ply-live", disabled: current === null, onclick: () => go(`/game/${id}`) }, "now »"));
  }

  async function loadHistory() {
    try {
      history = (await api("GET", `/games/${id}/moves`)).moves;
      if (state) { renderHistory(); conditional.update(state, history); }
    } catch { /* shown on the next state */ }
  }

  function show(next) {
    // A poll or fetch answered late must not undo a newer state (the move
    // just made, or one pushed live): the game's event number only grows.
    if (state && next.at_ply === undefined && state.at_ply === undefined && next.seq < state.seq) return;
    // The same state again (a snapshot after the first fetch, the answer to
    // one's own move and then its event): nothing to redraw, and redrawing
    // would move the board under a pointer about to click.
    if (state && next.at_ply === state.at_ply && next.seq === state.seq && next.ply === state.ply) return;
    const previousPly = state ? state.ply : null;
    state = next;
    const mayMove = state.at_ply === undefined && state.status === "active" && state.your_seat !== null && state.your_seat === state.to_move;
    if (!mayMove) picker = null;
    else if (!picker || previousPly !== state.ply) picker = new MovePicker(state.legal, new Set(state.view.board.cells.map((c) => c.name)));
    notation.disabled = !mayMove;
    renderStatus();
    renderSeats();
    renderActions();
    render();
    conditional.update(state, history);
    if (previousPly !== null && previousPly !== state.ply) loadHistory();
    document.title = `#${id} ${state.game} — Tavoliere`;
  }

  const chatInput = h("input", { id: "chat-text", maxlength: 500, placeholder: "Say something", "aria-label": "chat message" });
  const chatForm = h("form", {
    onsubmit: async (e) => {
      e.preventDefault();
      const text = chatInput.value.trim();
      if (!text) return;
      const room = state && state.your_seat !== null && state.your_seat !== undefined ? "players" : "spectators";
      try {
        await feed.request({ type: "chat", game: id, text, room });
        chatInput.value = "";
      } catch (err) { flash(message, errorText(err)); }
    },
  }, chatInput, h("button", { type: "submit" }, "Send"));
  chatBox.append(h("h2", {}, "Chat"), chatLog, session.token ? chatForm : h("p", { class: "muted" }, "Sign in to chat."));

  main.replaceChildren(
    h("div", { class: "game-layout" },
      h("section", { class: "board-column" }, status, message, boardBox, chooser,
        h("form", {
          class: "row", id: "notation-form",
          onsubmit: (e) => { e.preventDefault(); if (notation.value.trim()) play(notation.value.trim()); },
        }, notation, h("button", { type: "submit", id: "notation-play" }, "Play"))),
      h("aside", {},
        h("section", { class: "card" }, h("h2", {}, `Game #${id} `, modeBadge), seatsBox, actions),
        h("section", { class: "card" }, h("h2", {}, "Moves"), historyNav, moveList),
        conditional.node,
        chatBox,
        h("details", { class: "card" }, h("summary", {}, "Board as text"), textBoard))));

  if (atPly !== null) {
    show(await api("GET", `/games/${id}?ply=${atPly}`));
    await loadHistory();
    modeBadge.textContent = "(history)";
    return;
  }
  show(await api("GET", `/games/${id}`));
  await loadHistory();
  const feed = new GameFeed(id, {
    onState: show,
    onEvent: (event) => {
      if (event.kind === "chat") {
        const d = event.data || {};
        chatLog.append(h("li", {}, h("strong", {}, `${d.player || d.from || d.name || "?"}: `), d.text || ""));
      }
    },
    onMode: (mode) => {
      modeBadge.textContent = mode === "live" ? "● live" : "(updating every few seconds)";
      chatBox.hidden = mode !== "live";
    },
  });
  cleanup = () => { feed.close(); clearInterval(clockTimer); };
}

route();
