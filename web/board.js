// The board as SVG, drawn from a game state's `view` and the catalogue's
// drawing of its variant (board kind, each seat's fill, star points): one
// renderer per kind in render/, the same description the server's
// board.svg draws. This module lays the cells out (turned for the second
// seat when asked), labels them for screen readers and keyboards, and hands
// clicks on. Nothing here knows a particular game.

import { NEUTRAL, SVG, UNIT, el } from "/assets/render/common.js";
import { drawSquares } from "/assets/render/squares.js";
import { drawPoints } from "/assets/render/points.js";
import { drawHexes } from "/assets/render/hexes.js";

const RENDERERS = { squares: drawSquares, points: drawPoints, hexes: drawHexes };

/**
 * The drawing of a variant from the catalogue; for a variant it does not
 * list, one made from the view (squares or hexes, a grey per seat).
 */
export function drawingFor(catalogue, game, variant, view) {
  const info = catalogue && catalogue.find((g) => g.slug === game);
  const v = info && info.variants.find((x) => x.slug === variant);
  if (v && v.drawing) return v.drawing;
  const seats = view ? view.seats.length : 2;
  return {
    kind: view && view.board.shape === "hex" ? "hexes" : "squares",
    pieces: Array.from({ length: seats }, (_, i) => `hsl(${(i * 360) / seats}, 60%, 50%)`),
    stacks: true,
    stars: [],
  };
}

/** A small piece of a seat's fill, as inline SVG (legends, reserves). */
export function pieceIcon(fill, label = "") {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 20 20");
  svg.setAttribute("class", "piece-icon");
  if (label) { svg.setAttribute("role", "img"); svg.setAttribute("aria-label", label); }
  else svg.setAttribute("aria-hidden", "true");
  el("circle", { cx: 10, cy: 10, r: 8, fill: fill || NEUTRAL, class: "piece" }, svg);
  return svg;
}

/** Describes a stack in words, for screen readers and the text board. */
export function describeStack(stack, colours) {
  if (stack.length === 0) return "empty";
  const names = stack.map((s) => (s === null ? "neutral" : colours[s] || `seat ${s}`));
  if (stack.length === 1) return names[0];
  return `stack of ${stack.length}, bottom to top ${names.join(", ")}`;
}

/** Where each cell shows, in pixels: turned half a circle when `flipped`. */
function layoutOf(board, flipped, hex) {
  const xs = board.cells.map((c) => c.x), ys = board.cells.map((c) => c.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const cells = board.cells.map((cell) => ({
    cell,
    px: (flipped ? minX + maxX - cell.x : cell.x) * UNIT,
    py: (flipped ? minY + maxY - cell.y : cell.y) * UNIT,
  }));
  // Hex cells: the distance between neighbouring centres decides the size.
  let radius = 0.5;
  if (hex && board.cells.length > 1) {
    let nearest = Infinity;
    for (const a of board.cells.slice(0, 40)) {
      for (const b of board.cells) {
        const d = Math.hypot(a.x - b.x, a.y - b.y);
        if (d > 0.01 && d < nearest) nearest = d;
      }
    }
    radius = nearest / Math.sqrt(3);
  }
  // Room for the edge coordinates at the left and below, except on hexes.
  const pad = hex ? { left: 0.6, right: 0.6, top: 0.6, bottom: 0.6 } : { left: 1.05, right: 0.55, top: 0.55, bottom: 1.0 };
  const box = [(minX - pad.left) * UNIT, (minY - pad.top) * UNIT, (maxX - minX + pad.left + pad.right) * UNIT, (maxY - minY + pad.top + pad.bottom) * UNIT];
  return { cells, radius, box };
}

/**
 * Draws `view` into a new <svg>. `drawing` is the catalogue's description;
 * `colours[seat]` names each seat (for labels); `marked` is a Set of cells
 * of the last move; `targets` the cells a click may choose now; `path` the
 * cells chosen so far; `pending` the cells a move awaiting Submit changes.
 * `onCell(name)` is called on a click or on Enter/Space.
 */
export function drawBoard(view, { drawing, colours, marked = new Set(), targets = new Set(), path = [], pending = new Set(), flipped = false, onCell, title }) {
  const board = view.board;
  const kind = RENDERERS[drawing.kind] ? drawing.kind : (board.shape === "hex" ? "hexes" : "squares");
  const layout = layoutOf(board, flipped, kind === "hexes");
  const svg = el("svg", {
    viewBox: layout.box.map((n) => n.toFixed(1)).join(" "),
    class: `board ${kind}${board.shape === "hex" ? " hex" : ""}${flipped ? " flipped" : ""}`,
    role: "group",
    "aria-label": `${title || "board"}${flipped ? ", turned" : ""}`,
  });
  const pathSet = new Set(path);
  let index = 0;
  const ctx = {
    drawing, targets, marked,
    classes: (name) => `${marked.has(name) ? " marked" : ""}${targets.has(name) ? " target" : ""}${pathSet.has(name) ? " chosen" : ""}${pending.has(name) ? " pending" : ""}`,
    group: (c) => el("g", {
      class: "cell",
      "data-cell": c.cell.name,
      "data-x": c.px.toFixed(1),
      "data-y": c.py.toFixed(1),
      tabindex: index++ === 0 ? "0" : "-1",
      role: "button",
      "aria-label": `${c.cell.name}: ${describeStack(c.cell.stack, colours)}${targets.has(c.cell.name) ? ", possible" : ""}${pathSet.has(c.cell.name) ? ", selected" : ""}${pending.has(c.cell.name) ? ", pending move" : ""}${marked.has(c.cell.name) ? ", last move" : ""}`,
    }, svg),
  };
  RENDERERS[kind](svg, layout, ctx);
  svg.addEventListener("click", (event) => {
    const group = event.target.closest("[data-cell]");
    if (group && onCell) onCell(group.dataset.cell);
  });
  svg.addEventListener("keydown", (event) => keyboard(event, onCell));
  return svg;
}

/** Arrow keys move the focus to the nearest cell in that direction, as shown. */
function keyboard(event, onCell) {
  const group = event.target.closest("[data-cell]");
  if (!group) return;
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    if (onCell) onCell(group.dataset.cell);
    return;
  }
  const directions = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  const d = directions[event.key];
  if (!d) return;
  event.preventDefault();
  const svg = group.ownerSVGElement;
  const at = (g) => [Number(g.dataset.x) / UNIT, Number(g.dataset.y) / UNIT];
  const [hx, hy] = at(group);
  let best = null, bestScore = Infinity;
  for (const g of svg.querySelectorAll("[data-cell]")) {
    const [x, y] = at(g);
    const dx = x - hx, dy = y - hy;
    const along = dx * d[0] + dy * d[1];
    if (along <= 0.1) continue;
    const score = along + 2 * Math.abs(dx * d[1] - dy * d[0]);
    if (score < bestScore) { bestScore = score; best = g; }
  }
  if (!best) return;
  group.setAttribute("tabindex", "-1");
  best.setAttribute("tabindex", "0");
  best.focus();
}
