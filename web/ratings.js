// Ratings in the browser: a game's leaderboards, a player's profile with
// their ratings, statistics and a rating chart (SVG drawn here).

import { api, rules } from "/assets/api.js";
import { botBadge, h, link, notice } from "/assets/app.js";

const SVG = "http://www.w3.org/2000/svg";

/** A rating as shown: rounded, with `?` while provisional. */
export function ratingLabel(rating, provisional) {
  if (rating === undefined || rating === null) return "";
  return `${Math.round(rating)}${provisional ? "?" : ""}`;
}

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

/** The rating after each game as a line, the first point the rating before the first game. */
export function ratingChart(points) {
  const values = points.length ? [points[0].before, ...points.map((p) => p.after)] : [];
  const width = 640, height = 220, left = 48, right = 12, top = 14, bottom = 28;
  const lo = Math.floor((Math.min(...values) - 10) / 10) * 10;
  const hi = Math.ceil((Math.max(...values) + 10) / 10) * 10;
  const x = (i) => left + (values.length > 1 ? (i * (width - left - right)) / (values.length - 1) : 0);
  const y = (v) => top + ((hi - v) * (height - top - bottom)) / Math.max(hi - lo, 1);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-chart", role: "img",
    "aria-label": `Rating over ${points.length} games, from ${Math.round(values[0])} to ${Math.round(values[values.length - 1])}` });
  for (const v of [lo, (lo + hi) / 2, hi]) {
    chart.append(svg("line", { x1: left, x2: width - right, y1: y(v), y2: y(v), class: "grid" }),
      svg("text", { x: left - 6, y: y(v) + 4, class: "axis", "text-anchor": "end" }, Math.round(v)));
  }
  chart.append(svg("text", { x: width - right, y: height - 8, class: "axis", "text-anchor": "end" }, `${points.length} games`));
  chart.append(svg("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" "), class: "line" }));
  values.forEach((v, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(v), r: 3.5, class: i === 0 ? "dot start" : `dot ${points[i - 1].result}` });
    dot.append(svg("title", {}, i === 0 ? `start: ${Math.round(v)}` : `game #${points[i - 1].game_id} (${points[i - 1].result}): ${Math.round(v)}`));
    chart.append(dot);
  });
  return chart;
}

/** `/ratings`: every game's variants; `/ratings/{game}/{variant}`: its leaderboard. */
export async function leaderboardPage(main, slug, variantSlug) {
  const catalogue = await rules();
  if (!slug) {
    main.replaceChildren(h("h1", {}, "Ratings"), h("ul", { class: "card", id: "leaderboards" }, catalogue.map((g) =>
      h("li", {}, `${g.english} (${g.italian}): `, g.variants.map((v, i) => [i ? " · " : "", link(`/ratings/${g.slug}/${v.slug}`, v.name)])))));
    return;
  }
  const game = catalogue.find((g) => g.slug === slug);
  if (!game) { main.replaceChildren(notice(`No game called ${slug}.`)); return; }
  const variant = game.variants.find((v) => v.slug === variantSlug) || game.variants[0];
  const board = await api("GET", `/ratings/${game.slug}/${variant.slug}?limit=100`);
  const rows = board.entries.map((e) => h("tr", { "data-player": e.player },
    h("td", {}, e.rank), h("td", {}, link(`/player/${encodeURIComponent(e.player)}`, e.player), botBadge(e.bot)),
    h("td", { class: "num" }, ratingLabel(e.rating, e.provisional)), h("td", { class: "num muted" }, `±${Math.round(e.rd)}`),
    h("td", { class: "num" }, e.games), h("td", { class: "num" }, `${e.wins} / ${e.losses} / ${e.draws}`)));
  main.replaceChildren(h("h1", {}, `${game.english} — leaderboard`),
    h("p", { class: "row" }, "Variant: ", game.variants.map((v) => v.slug === variant.slug
      ? h("strong", {}, v.name) : link(`/ratings/${game.slug}/${v.slug}`, v.name))),
    h("div", { class: "card" }, board.entries.length
      ? h("table", { id: "leaderboard" }, h("thead", {}, h("tr", {}, ["#", "Player", "Rating", "RD", "Games", "W / L / D"].map((t) => h("th", {}, t)))), h("tbody", {}, rows))
      : h("p", { class: "muted", id: "leaderboard-empty" }, "Nobody is rated here yet (provisional ratings, RD above 110, are not listed).")));
}

/** `/player/{name}`: ratings, statistics, the opponents met most, a chart per rating. */
export async function profilePage(main, name) {
  const profile = await api("GET", `/players/${encodeURIComponent(name)}`);
  const stats = profile.statistics;
  const charts = h("div", { id: "charts" });
  main.replaceChildren(h("h1", {}, profile.name, botBadge(profile.bot)),
    h("div", { class: "card" }, h("h2", {}, "Ratings"), profile.ratings.length
      ? h("table", { id: "ratings" }, h("thead", {}, h("tr", {}, ["Game", "Rating", "RD", "Games", "W / L / D", ""].map((t) => h("th", {}, t)))),
        h("tbody", {}, profile.ratings.map((r) => h("tr", { "data-game": `${r.game}/${r.variant}` },
          h("td", {}, `${r.game} — ${r.variant}`), h("td", { class: "num" }, ratingLabel(r.rating, r.provisional)),
          h("td", { class: "num muted" }, `±${Math.round(r.rd)}`), h("td", { class: "num" }, r.games),
          h("td", { class: "num" }, `${r.wins} / ${r.losses} / ${r.draws}`), h("td", {}, link(`/ratings/${r.game}/${r.variant}`, "leaderboard"))))))
      : h("p", { class: "muted" }, "No rated games yet.")),
    charts,
    h("div", { class: "card", id: "statistics" }, h("h2", {}, "Statistics"),
      h("p", {}, `${stats.played} games finished: ${stats.won} won, ${stats.lost} lost, ${stats.drawn} drawn; ${stats.in_progress} in progress. Longest winning streak: ${stats.longest_streak}.`),
      Object.keys(stats.by_game).length ? h("ul", {}, Object.entries(stats.by_game).map(([g, t]) => h("li", {}, `${g}: ${t.played} played, ${t.won} won, ${t.lost} lost, ${t.drawn} drawn`))) : null,
      stats.opponents.length ? h("p", {}, "Met most: ", stats.opponents.map((o, i) => [i ? ", " : "", link(`/player/${encodeURIComponent(o.player)}`, o.player), ` (${o.games})`])) : null));
  for (const r of profile.ratings) {
    const history = await api("GET", `/players/${encodeURIComponent(profile.name)}/ratings/${r.game}/${r.variant}`);
    if (history.points.length) charts.append(h("div", { class: "card" }, h("h2", {}, `${r.game} — ${r.variant}`), ratingChart(history.points)));
  }
}
