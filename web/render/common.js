// What every board renderer shares: SVG elements, pieces (a disc, or a
// stack seen from the side with one band per piece), coordinates on the
// edges. The kind renderers (squares.js, points.js, hexes.js) draw a board
// from a layout made by board.js: every cell with where it shows (turned
// for the second seat) and the drawing the catalogue gives its variant.

export const SVG = "http://www.w3.org/2000/svg";
export const UNIT = 60; // pixels per cell width
export const NEUTRAL = "#9c9686";

export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

/** The fill of a piece: its seat's, or the neutral one (`null`). */
export function fillOf(drawing, piece) {
  return piece === null || piece === undefined ? NEUTRAL : (drawing.pieces[piece] || NEUTRAL);
}

/** One round piece (a stone, a disc seen from above). */
export function disc(group, cx, cy, r, drawing, piece, extra = "") {
  return el("circle", {
    cx, cy, r,
    class: `piece${piece === null ? " neutral" : ""}${extra}`,
    fill: fillOf(drawing, piece),
    "data-seat": piece === null ? "neutral" : String(piece),
  }, group);
}

const MOST_BANDS = 6;

/**
 * The bands of a side-on stack, bottom to top: one per piece up to six
 * high; taller, one per run of one colour with its count; still more than
 * six runs, the top five and one band counting the pieces below. The same
 * rule as the server's board.svg (`views/board/svg.rs`).
 */
export function bands(stack) {
  if (stack.length <= MOST_BANDS) return stack.map((piece) => ({ piece, count: 1 }));
  const runs = [];
  for (const piece of stack) {
    const last = runs[runs.length - 1];
    if (last && last.piece === piece) last.count += 1;
    else runs.push({ piece, count: 1 });
  }
  if (runs.length <= MOST_BANDS) return runs;
  const keep = runs.slice(runs.length - (MOST_BANDS - 1));
  const hidden = runs.slice(0, runs.length - keep.length).reduce((n, r) => n + r.count, 0);
  return [{ piece: "hidden", count: hidden }, ...keep];
}

/** A stack seen from the side, centred at (cx, cy) in a cell `size` wide. */
export function sideOn(group, stack, cx, cy, size, drawing) {
  const shown = bands(stack);
  if (!shown.length) return;
  const room = size * 0.8;
  const band = Math.min(size * 0.2, room / shown.length);
  const width = size * 0.72;
  let y = cy + room / 2;
  for (const { piece, count } of shown) {
    y -= band;
    const hidden = piece === "hidden";
    el("rect", {
      x: cx - width / 2, y: y + 0.5, width, height: band - 1, rx: 3,
      class: `piece band${piece === null ? " neutral" : ""}`,
      fill: hidden ? "#fff" : fillOf(drawing, piece),
      "data-seat": hidden ? "hidden" : piece === null ? "neutral" : String(piece),
      "data-count": count,
    }, group);
    if (count > 1) {
      const text = el("text", { x: cx, y: y + band * 0.72, class: "count", "font-size": Math.min(13, band * 0.8) }, group);
      text.textContent = `${hidden ? "+" : "×"}${count}`;
    }
  }
}

/** Splits `k10` into ["k", "10"]. */
export function splitName(name) {
  const at = name.search(/[0-9]/);
  return at < 0 ? [name, ""] : [name.slice(0, at), name.slice(at)];
}

/**
 * File letters under the board and rank numbers at its left, one per
 * column and row of shown cells (so a turned board is labelled as turned).
 */
export function edgeCoordinates(svg, layout) {
  const files = new Map(), ranks = new Map();
  let bottom = -Infinity, left = Infinity;
  for (const c of layout.cells) {
    bottom = Math.max(bottom, c.py);
    left = Math.min(left, c.px);
    const [file, rank] = splitName(c.cell.name);
    files.set(Math.round(c.px), file);
    ranks.set(Math.round(c.py), rank);
  }
  // A large board is shown smaller: its coordinates are written larger
  // so they read the same on the screen.
  const size = 14 * Math.max(1, files.size / 11);
  const g = el("g", { class: "coords", "aria-hidden": "true", "font-size": size.toFixed(1) }, svg);
  for (const [x, file] of files) {
    el("text", { x, y: bottom + UNIT * 0.5 + size * 1.2, class: "coord file" }, g).textContent = file;
  }
  for (const [y, rank] of ranks) {
    el("text", { x: left - UNIT * 0.5 - 6, y: y + size * 0.35, class: "coord rank" }, g).textContent = rank;
  }
}

/** The ring or dot that marks a cell a click may choose. */
export function targetMark(group, c, occupied, r) {
  if (occupied) el("circle", { cx: c.px, cy: c.py, r, class: "ring" }, group);
  else el("circle", { cx: c.px, cy: c.py, r: UNIT * 0.12, class: "dot" }, group);
}
