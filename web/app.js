// Tavoliere in the browser: the pages, routed on the client.

import { api, ApiError, rules, session } from "/assets/api.js";
import { pieceIcon } from "/assets/board.js";
import { leaderboardPage, profilePage, ratingLabel } from "/assets/ratings.js";
import { confirmLive, gamePage } from "/assets/game.js";
import { follow, onPlayerEvent, setTitle } from "/assets/live.js";
import { tournamentPage, tournamentsPage } from "/assets/tournaments.js";

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

/** The "BOT" badge by a bot account's name (the server's bots, players' programs). */
export function botBadge(isBot) {
  return isBot ? h("span", { class: "bot-badge", title: "bot account" }, "BOT") : null;
}

/** A message line: refusals in red, with the server's reason. */
export function notice(text, kind = "error") {
  return h("p", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

export function errorText(e) {
  if (e instanceof ApiError) return e.message || e.code;
  return String(e && e.message ? e.message : e);
}

export function flash(container, text, kind = "error") {
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
  const items = [link("/lobby", "Lobby"), link("/tournaments", "Tournaments"), link("/rules", "Rules"), link("/ratings", "Ratings")];
  if (signedIn) {
    items.push(link("/my", "My games", h("span", { class: "badge", id: "turn-badge", hidden: true }, "0")), link("/settings", "Settings"));
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
  follow();
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
  return game.seats.map((s, i) => [i ? " · " : "", `${s.colour}: `, s.player ? [playerLabel(s), botBadge(s.bot)]
    : (s.invited ? [s.invited, botBadge(s.bot), " (invited)"] : "open")]);
}

function gameRow(catalogue, game, extra = []) {
  return h("li", { class: "game-row", "data-game": game.id },
    link(`/game/${game.id}`, `#${game.id} ${gameName(catalogue, game.game)} — ${game.variant}`),
    h("span", { class: "muted" }, ` ${game.status}, move ${game.ply}. `, seatsText(game)),
    ...extra);
}

// ---------------------------------------------------------------- router

async function route() {
  cleanup();
  cleanup = () => {};
  nav();
  follow();
  setTitle("Tavoliere");
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
    else if (path === "/tournaments") await tournamentsPage(main);
    else if ((match = path.match(/^\/tournament\/(\d+)$/))) await tournamentPage(main, Number(match[1]));
    else if ((match = path.match(/^\/player\/([^/]+)$/))) await profilePage(main, decodeURIComponent(match[1]));
    else if ((match = path.match(/^\/rules\/([a-z0-9-]+)$/))) await rulesPage(match[1]);
    else if ((match = path.match(/^\/game\/(\d+)$/))) cleanup = await gamePage(main, Number(match[1]), params.get("ply"), params.get("code"));
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
  const message = h("div", { id: "lobby-message" });
  const invitationsBox = h("section", { class: "card", id: "invitations" });
  const openBox = h("section", { class: "card", id: "open-games" });
  const liveBox = h("section", { class: "card", id: "live-games" });
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
      lists();
    } catch (e) { flash(message, errorText(e)); }
  };
  // The lists alone are drawn again when the player's stream says
  // something changed; a game being set up in the form stays as it is.
  async function lists() {
    const [open, live] = await Promise.all([
      api("GET", "/games?status=open&limit=50"),
      api("GET", "/games?status=active&limit=20"),
    ]);
    const invitations = open.games.filter((g) => me && g.seats.some((s) => s.invited && s.invited.toLowerCase() === me.toLowerCase()));
    const joinable = open.games.filter((g) => !invitations.includes(g) && g.seats.some((s) => !s.player && !s.invited));
    invitationsBox.replaceChildren(h("h2", {}, "Invitations"),
      invitations.length === 0 ? h("p", { class: "muted" }, "No invitations.") :
        h("ul", {}, invitations.map((g) => gameRow(catalogue, g, [
          h("button", { class: "accept", onclick: () => join(g.id) }, "Accept"),
          h("button", { class: "decline secondary", onclick: () => decline(g.id) }, "Decline"),
        ]))));
    openBox.replaceChildren(h("h2", {}, "Open games"),
      joinable.length === 0 ? h("p", { class: "muted" }, "No open games.") :
        h("ul", {}, joinable.map((g) => gameRow(catalogue, g, me && !g.seats.some((s) => s.player === me)
          ? [h("button", { class: "join", onclick: () => join(g.id) }, "Join")] : []))));
    liveBox.replaceChildren(h("h2", {}, "Being played"),
      live.games.length === 0 ? h("p", { class: "muted" }, "No games in progress.") :
        h("ul", {}, live.games.map((g) => gameRow(catalogue, g))));
  }
  await lists();
  const sections = [h("h1", {}, "Lobby"), message];
  if (me) sections.push(invitationsBox);
  sections.push(openBox);
  if (me) sections.push(createForm(catalogue, message));
  else sections.push(h("p", {}, link("/signin", "Sign in"), " or ", link("/signup", "sign up"), " to play; anyone can watch."));
  sections.push(liveBox);
  main.replaceChildren(...sections);
  setTitle("Lobby — Tavoliere");
  cleanup = onPlayerEvent(() => { lists().catch(() => {}); });
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
  const turnBox = h("section", { class: "card", id: "my-turn" });
  const otherBox = h("section", { class: "card", id: "my-other" });
  async function lists() {
    const [turn, mine] = await Promise.all([
      api("GET", "/games?turn=me&limit=100"),
      api("GET", `/games?player=${encodeURIComponent(me)}&limit=100`),
    ]);
    const waiting = new Set(turn.games.map((g) => g.id));
    const others = mine.games.filter((g) => !waiting.has(g.id));
    turnBox.replaceChildren(h("h2", {}, "Waiting for my move"),
      turn.games.length === 0 ? h("p", { class: "muted" }, "Nothing to play.") : h("ul", {}, turn.games.map((g) => gameRow(catalogue, g))));
    otherBox.replaceChildren(h("h2", {}, "Other games"),
      others.length === 0 ? h("p", { class: "muted" }, "No other games.") : h("ul", {}, others.map((g) => gameRow(catalogue, g))));
  }
  await lists();
  main.replaceChildren(h("h1", {}, "My games"), turnBox, otherBox);
  setTitle("My games — Tavoliere");
  cleanup = onPlayerEvent(() => { lists().catch(() => {}); });
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
    h("dl", { id: "variants" }, game.variants.flatMap((v) => [
      h("dt", { "data-variant": v.slug }, v.name, h("span", { class: "muted" }, ` (${v.slug}) `), link(`/ratings/${game.slug}/${v.slug}`, "leaderboard")),
      h("dd", {}, h("p", {}, v.summary), h("p", { class: "muted" }, `Board: ${v.board}. Seats: `,
        v.seats.flatMap((c, i) => [pieceIcon(v.drawing ? v.drawing.pieces[i] : undefined, `${c} pieces`), ` ${c}${i + 1 < v.seats.length ? "," : "."} `]))),
    ]))));
  setTitle(`${game.english} rules — Tavoliere`);
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
    // The server keeps notification preferences: offer them. Email only
    // where it can arrive: the server sends mail and there is an address.
    const mailOff = me.email_enabled === false;
    const emailUsable = !mailOff && !!me.email;
    const why = mailOff ? "This server sends no email: notifications by email are off." : "Add an email address above to get notifications by email.";
    const boxes = [];
    const rows = NOTIFY_KINDS.map(([kind, label]) => h("tr", {}, h("th", { scope: "row" }, label),
      ...["email", "webhook"].map((channel) => {
        const usable = channel !== "email" || emailUsable;
        const box = h("input", { type: "checkbox", "data-kind": kind, "data-channel": channel, "aria-label": `${label} by ${channel}`, disabled: !usable, checked: usable && (me.notify[kind] || []).includes(channel) });
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
    emailUsable ? null : h("p", { class: "muted", id: "email-note" }, why),
    h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, "Email"), h("th", {}, "Webhook"))), h("tbody", {}, rows)),
    h("label", {}, "Webhook URL ", webhook), h("label", { class: "inline" }, digest, " One daily digest instead of single emails"),
    h("button", { type: "submit" }, "Save notifications"), secret));
  }
  const confirmBox = h("input", { id: "settings-confirm-live", type: "checkbox", checked: confirmLive.on, onchange: () => { confirmLive.on = confirmBox.checked; flash(message, "Saved in this browser.", "ok"); } });
  sections.push(h("section", { class: "card", id: "moves-settings" }, h("h2", {}, "Moves"),
    h("label", { class: "inline" }, confirmBox, " Ask me to submit each move in live games too"),
    h("p", { class: "muted" }, "In correspondence and untimed games a move always waits for Submit, so a misclick costs nothing.")));
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

route();
