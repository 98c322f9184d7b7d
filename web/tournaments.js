// Tournaments in the browser: the list (join, create) and a tournament's
// page: its standings, the crosstable of a round robin, the rounds of a
// Swiss, the groups of a league.

import { api, ApiError, rules, session } from "/assets/api.js";
import { go, h, link, notice } from "/assets/app.js";

const FORMATS = { round_robin: "Round robin", swiss: "Swiss", league: "League" };

function errorText(e) {
  return e instanceof ApiError ? (e.message || e.code) : String(e && e.message ? e.message : e);
}

function say(box, text, kind = "error") {
  box.replaceChildren(text ? notice(text, kind) : "");
}

/** `/tournaments`: every tournament, newest first; join; create. */
export async function tournamentsPage(main) {
  const [catalogue, list] = await Promise.all([rules(), api("GET", "/tournaments")]);
  const message = h("div", { id: "tournaments-message" });
  const join = async (id) => {
    try {
      await api("POST", `/tournaments/${id}/join`);
      go(`/tournament/${id}`);
    } catch (e) { say(message, errorText(e)); }
  };
  const rows = list.tournaments.map((t) => h("tr", { "data-tournament": t.id },
    h("td", {}, link(`/tournament/${t.id}`, t.name)),
    h("td", {}, FORMATS[t.format] || t.format),
    h("td", {}, `${t.game} · ${t.variant}`),
    h("td", {}, t.status),
    h("td", { class: "num" }, `${t.players}/${t.max_players}`),
    h("td", {}, session.token && (t.status === "open" || (t.status === "active" && t.format === "league"))
      ? h("button", { class: "join", onclick: () => join(t.id) }, "Join") : "")));
  const table = rows.length === 0 ? h("p", { class: "muted" }, "No tournaments yet.") :
    h("table", { id: "tournament-list" },
      h("thead", {}, h("tr", {}, ["Name", "Format", "Game", "Status", "Players", ""].map((c) => h("th", {}, c)))),
      h("tbody", {}, rows));
  const sections = [h("h1", {}, "Tournaments"), message, h("section", { class: "card" }, table)];
  if (session.token) sections.push(createForm(catalogue, message));
  main.replaceChildren(...sections);
}

function createForm(catalogue, message) {
  const twoPlayer = catalogue.map((g) => ({ ...g, variants: g.variants.filter((v) => v.seats.length === 2) }))
    .filter((g) => g.variants.length > 0);
  const name = h("input", { id: "new-tournament-name", required: true, maxlength: 100 });
  const game = h("select", { id: "new-tournament-game" }, twoPlayer.map((g) => h("option", { value: g.slug }, g.english)));
  const variant = h("select", { id: "new-tournament-variant" });
  const fillVariants = () => {
    const g = twoPlayer.find((x) => x.slug === game.value);
    variant.replaceChildren(...(g ? g.variants : []).map((v) => h("option", { value: v.slug }, v.name)));
  };
  game.addEventListener("change", fillVariants);
  fillVariants();
  const format = h("select", { id: "new-tournament-format" },
    Object.entries(FORMATS).map(([value, label]) => h("option", { value }, label)));
  const rounds = h("input", { id: "new-tournament-rounds", type: "number", min: 1, max: 50, placeholder: "auto" });
  const groupSize = h("input", { id: "new-tournament-group-size", type: "number", min: 3, max: 50, placeholder: "10" });
  const double = h("input", { id: "new-tournament-double", type: "checkbox" });
  const rated = h("input", { id: "new-tournament-rated", type: "checkbox", checked: true });
  const submit = async (e) => {
    e.preventDefault();
    const body = { name: name.value, game: game.value, variant: variant.value, format: format.value, rated: rated.checked };
    if (format.value === "swiss" && rounds.value) body.rounds = Number(rounds.value);
    if (format.value === "league" && groupSize.value) body.group_size = Number(groupSize.value);
    if (format.value === "round_robin") body.double = double.checked;
    try {
      const created = await api("POST", "/tournaments", body);
      go(`/tournament/${created.id}`);
    } catch (err) { say(message, errorText(err)); }
  };
  return h("form", { class: "card", id: "create-tournament", onsubmit: submit }, h("h2", {}, "New tournament"),
    h("label", {}, "Name ", name), h("label", {}, "Game ", game), h("label", {}, "Variant ", variant),
    h("label", {}, "Format ", format), h("label", {}, "Swiss rounds ", rounds),
    h("label", {}, "League group size ", groupSize), h("label", {}, double, " both seats (round robin)"),
    h("label", {}, rated, " rated"), h("button", { type: "submit" }, "Create"));
}

/** A game's result as the crosstable shows it, from `player`'s side. */
function scoreFor(pairing, player) {
  if (!pairing.result || pairing.result === "bye") return pairing.game ? "·" : "";
  const [first, second] = pairing.result.split("-");
  const mine = pairing.first === player ? first : second;
  return pairing.forfeit ? `${mine}F` : mine;
}

function gameCell(pairing, player) {
  const text = scoreFor(pairing, player);
  return pairing.game ? link(`/game/${pairing.game}`, text) : text;
}

/** A round robin's crosstable: each player's result against each other. */
function crosstable(view) {
  const pairings = view.rounds_played.flatMap((r) => r.pairings);
  const order = view.groups[0].standings.map((s) => s.player);
  const rows = order.map((player, i) => h("tr", { "data-player": player },
    h("th", {}, `${i + 1}. ${player}`),
    order.map((other) => {
      if (other === player) return h("td", { class: "self" }, "×");
      const games = pairings.filter((p) => (p.first === player && p.second === other) || (p.first === other && p.second === player));
      return h("td", { class: "num", "data-opponent": other }, games.map((p, k) => [k ? " " : "", gameCell(p, player)]));
    }),
    h("td", { class: "num total" }, view.groups[0].standings[i].points)));
  return h("table", { id: "crosstable" },
    h("thead", {}, h("tr", {}, h("th", {}, ""), order.map((_, i) => h("th", { class: "num" }, i + 1)), h("th", {}, "Points"))),
    h("tbody", {}, rows));
}

function standingsTable(group, format) {
  const tiebreaks = format === "swiss" ? [["buchholz", "Buchholz"], ["median_buchholz", "Median"]] : [["sonneborn_berger", "S-B"]];
  return h("table", { class: "standings", "data-group": group.group },
    h("thead", {}, h("tr", {}, ["#", "Player", "Points", "Played", "W", "D", "L", ...tiebreaks.map(([, label]) => label)]
      .map((c) => h("th", {}, c)))),
    h("tbody", {}, group.standings.map((s) => h("tr", { "data-player": s.player },
      h("td", {}, s.rank), h("td", {}, link(`/player/${encodeURIComponent(s.player)}`, s.player)),
      h("td", { class: "num" }, s.points), h("td", { class: "num" }, s.played),
      h("td", { class: "num" }, s.wins), h("td", { class: "num" }, s.draws), h("td", { class: "num" }, s.losses),
      tiebreaks.map(([key]) => h("td", { class: "num" }, s[key]))))));
}

function roundList(rounds, label) {
  return h("div", { class: "rounds" }, rounds.map((r) => h("section", { class: "round", "data-round": r.round, "data-group": r.group },
    h("h3", {}, label(r)),
    h("ul", {}, r.pairings.map((p) => h("li", { class: "pairing" },
      p.second === null ? `${p.first}: bye` : [p.game ? link(`/game/${p.game}`, `${p.first} – ${p.second}`) : `${p.first} – ${p.second}`,
        " ", h("span", { class: "result" }, p.result || "playing"), p.forfeit ? h("span", { class: "muted" }, " (forfeit)") : ""]))))));
}

/** `/tournament/{id}`: settings, actions, and the format's tables. */
export async function tournamentPage(main, id) {
  const view = await api("GET", `/tournaments/${id}`);
  const message = h("div", { id: "tournament-message" });
  const me = session.name;
  const entrant = view.players.find((p) => me && p.player.toLowerCase() === me.toLowerCase());
  const act = (action) => async () => {
    try {
      await api("POST", `/tournaments/${id}/${action}`);
      await tournamentPage(main, id);
    } catch (e) { say(message, errorText(e)); }
  };
  const actions = [];
  const joinable = view.status === "open" || (view.status === "active" && view.format === "league");
  if (me && !entrant && joinable) actions.push(h("button", { id: "tournament-join", onclick: act("join") }, "Join"));
  if (entrant && !entrant.left && (view.status === "open" || view.status === "active")) {
    actions.push(h("button", { id: "tournament-leave", class: "secondary", onclick: act("leave") },
      view.status === "active" ? "Leave (forfeit my games)" : "Leave"));
  }
  if (me && view.organiser.toLowerCase() === me.toLowerCase() && view.status === "open") {
    actions.push(h("button", { id: "tournament-start", onclick: act("start") }, "Start"));
  }
  const facts = [FORMATS[view.format], `${view.game} · ${view.variant}`, view.status, `organised by ${view.organiser}`,
    `${view.players.length} players`];
  if (view.format === "swiss" && view.rounds) facts.push(`round ${view.round} of ${view.rounds}`);
  if (view.format === "league" && view.round) facts.push(`season ${view.round}`);
  const sections = [h("h1", {}, view.name), h("p", { class: "muted", id: "tournament-facts" }, facts.join(" · ")), message,
    actions.length ? h("p", { class: "actions" }, actions) : ""];
  if (view.status === "open") {
    sections.push(h("section", { class: "card", id: "entrants" }, h("h2", {}, "Players"),
      h("ol", {}, view.players.map((p) => h("li", {}, p.player)))));
  } else if (view.format === "round_robin") {
    sections.push(h("section", { class: "card", id: "standings" }, h("h2", {}, "Standings"), standingsTable(view.groups[0], view.format)),
      h("section", { class: "card" }, h("h2", {}, "Crosstable"), crosstable(view)));
  } else if (view.format === "swiss") {
    sections.push(h("section", { class: "card", id: "standings" }, h("h2", {}, "Standings"), standingsTable(view.groups[0], view.format)),
      h("section", { class: "card", id: "rounds" }, h("h2", {}, "Rounds"), roundList(view.rounds_played, (r) => `Round ${r.round}`)));
  } else {
    sections.push(h("section", { class: "card", id: "groups" }, h("h2", {}, `Season ${view.round}`),
      view.groups.map((g) => h("div", { class: "group", "data-group": g.group }, h("h3", {}, `Group ${g.group + 1}`),
        standingsTable(g, view.format),
        roundList(view.rounds_played.filter((r) => r.group === g.group), () => "Games")))));
  }
  main.replaceChildren(...sections);
}
