// The board as SVG, drawn from a game state's `view` alone: cells with
// their names and centres, square or hexagonal, stacks bottom to top of seat
// numbers (null: a neutral piece). Nothing here knows a particular game.

const SVG = "http://www.w3.org/2000/svg";
const UNIT = 60; // pixels per cell width

/** CSS colour for a catalogue colour name. */
export function paint(colour) {
  const known = {
    yellow: "#f2c12e", red: "#d33c32", white: "#f7f4ea", black: "#262626", green: "#3a9a4a",
    blue: "#3569c9", orange: "#ee8a2a", purple: "#8048b8", brown: "#8a5a32", grey: "#8e8e8e",
    gray: "#8e8e8e",
  };
  return known[colour] || colour || "#999";
}

function contrast(colour) {
  return ["black", "blue", "purple", "red", "green", "brown"].includes(colour) ? "#fff" : "#111";
}

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function hexPoints(cx, cy, r) {
  const points = [];
  for (let i = 0; i < 6; i++) {
    const angle = (Math.PI / 180) * (60 * i - 30);
    points.push(`${(cx + r * Math.cos(angle)).toFixed(1)},${(cy + r * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

/** Describes a stack in words, for screen readers and the text board. */
export function describeStack(stack, colours) {
  if (stack.length === 0) return "empty";
  const names = stack.map((s) => (s === null ? "neutral" : colours[s] || `seat ${s}`));
  if (stack.length === 1) return names[0];
  return `stack of ${stack.length}, bottom to top ${names.join(", ")}`;
}

/**
 * Draws `view` into a new <svg>. `colours[seat]` names each seat's colour;
 * `marked` is a Set of cells of the last move; `targets` the cells that a
 * click may choose now; `path` the cells chosen so far. `onCell(name)` is
 * called on a click or on Enter/Space.
 */
export function drawBoard(view, { colours, marked = new Set(), targets = new Set(), path = [], onCell, title }) {
  const board = view.board;
  const hex = board.shape === "hex";
  const xs = board.cells.map((c) => c.x);
  const ys = board.cells.map((c) => c.y);
  const pad = 0.6;
  const minX = Math.min(...xs) - pad, maxX = Math.max(...xs) + pad;
  const minY = Math.min(...ys) - pad, maxY = Math.max(...ys) + pad;
  const svg = el("svg", {
    viewBox: `${minX * UNIT} ${minY * UNIT} ${(maxX - minX) * UNIT} ${(maxY - minY) * UNIT}`,
    class: `board ${hex ? "hex" : "square"}`,
    role: "group",
    "aria-label": title || "board",
  });
  // Hex cells: the distance between neighbouring centres decides the size.
  let radius = 0.5;
  if (hex && board.cells.length > 1) {
    let nearest = Infinity;
    const first = board.cells.slice(0, 40);
    for (const a of first) {
      for (const b of board.cells) {
        if (a === b) continue;
        const d = Math.hypot(a.x - b.x, a.y - b.y);
        if (d > 0.01 && d < nearest) nearest = d;
      }
    }
    radius = nearest / Math.sqrt(3);
  }
  const pathSet = new Set(path);
  board.cells.forEach((cell, index) => {
    const cx = cell.x * UNIT, cy = cell.y * UNIT;
    const group = el("g", {
      class: "cell",
      "data-cell": cell.name,
      tabindex: index === 0 ? "0" : "-1",
      role: "button",
      "aria-label": `${cell.name}: ${describeStack(cell.stack, colours)}${targets.has(cell.name) ? ", possible" : ""}${pathSet.has(cell.name) ? ", selected" : ""}${marked.has(cell.name) ? ", last move" : ""}`,
    }, svg);
    const dark = !hex && (Math.floor(cell.x) + Math.floor(cell.y)) % 2 === 1;
    const shapeClass = `ground${dark ? " dark" : ""}${marked.has(cell.name) ? " marked" : ""}${targets.has(cell.name) ? " target" : ""}${pathSet.has(cell.name) ? " chosen" : ""}`;
    if (hex) {
      el("polygon", { points: hexPoints(cx, cy, radius * UNIT * 0.97), class: shapeClass }, group);
    } else {
      el("rect", { x: cx - UNIT / 2, y: cy - UNIT / 2, width: UNIT, height: UNIT, class: shapeClass }, group);
    }
    const label = el("text", { x: cx - UNIT * 0.42 * (hex ? radius * 1.6 : 1), y: cy - UNIT * 0.3, class: "coord" }, group);
    label.textContent = cell.name;
    drawStack(group, cell.stack, cx, cy, colours, hex ? radius : 0.5);
    if (targets.has(cell.name)) {
      // An empty target gets a dot; an occupied one a ring around its pieces.
      if (cell.stack.length === 0) el("circle", { cx, cy, r: UNIT * 0.12, class: "dot" }, group);
      else el("circle", { cx, cy, r: UNIT * (hex ? radius : 0.5) * 0.8, class: "ring" }, group);
    }
  });
  svg.addEventListener("click", (event) => {
    const group = event.target.closest("[data-cell]");
    if (group && onCell) onCell(group.dataset.cell);
  });
  svg.addEventListener("keydown", (event) => keyboard(event, board, onCell));
  return svg;
}

function drawStack(group, stack, cx, cy, colours, radius) {
  if (stack.length === 0) return;
  const r = UNIT * radius * 0.62;
  // A stack is drawn as discs offset upward, the top one full; at most six
  // discs are shown, the height is written on the top one.
  const shown = stack.slice(-6);
  const step = Math.min(6, (r * 0.9) / Math.max(1, shown.length - 1));
  const base = cy + (step * (shown.length - 1)) / 2;
  shown.forEach((seat, i) => {
    const colour = seat === null ? "neutral" : colours[seat];
    el("circle", {
      cx, cy: base - i * step, r,
      class: `piece${seat === null ? " neutral" : ""}`,
      fill: seat === null ? "#b9b4a6" : paint(colour),
    }, group);
  });
  const top = stack[stack.length - 1];
  if (stack.length > 1) {
    const text = el("text", {
      x: cx, y: base - (shown.length - 1) * step + r * 0.35, class: "height",
      fill: contrast(top === null ? "neutral" : colours[top]),
    }, group);
    text.textContent = String(stack.length);
  }
}

/** Arrow keys move the focus to the nearest cell in that direction. */
function keyboard(event, board, onCell) {
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
  const here = board.cells.find((c) => c.name === group.dataset.cell);
  let best = null, bestScore = Infinity;
  for (const c of board.cells) {
    const dx = c.x - here.x, dy = c.y - here.y;
    const along = dx * d[0] + dy * d[1];
    if (along <= 0.1) continue;
    const across = Math.abs(dx * d[1] - dy * d[0]);
    const score = along + 2 * across;
    if (score < bestScore) { bestScore = score; best = c; }
  }
  if (!best) return;
  const svg = group.ownerSVGElement;
  const next = svg.querySelector(`[data-cell="${CSS.escape(best.name)}"]`);
  group.setAttribute("tabindex", "-1");
  next.setAttribute("tabindex", "0");
  next.focus();
}
