// An intersection board (Pente), as on a Go board: grid lines through the
// points, star points, stones on the intersections, coordinates on the
// edges only. Each point is a focusable cell with an invisible square
// around it to click.

import { UNIT, disc, edgeCoordinates, el, targetMark } from "/assets/render/common.js";

export function drawPoints(svg, layout, ctx) {
  const xs = [...new Set(layout.cells.map((c) => c.px))].sort((a, b) => a - b);
  const ys = [...new Set(layout.cells.map((c) => c.py))].sort((a, b) => a - b);
  const [x0, x1, y0, y1] = [xs[0], xs[xs.length - 1], ys[0], ys[ys.length - 1]];
  const grid = el("g", { class: "grid", "aria-hidden": "true" }, svg);
  el("rect", { x: x0 - UNIT / 2, y: y0 - UNIT / 2, width: x1 - x0 + UNIT, height: y1 - y0 + UNIT, rx: 6, class: "wood" }, grid);
  for (const x of xs) el("line", { x1: x, y1: y0, x2: x, y2: y1 }, grid);
  for (const y of ys) el("line", { x1: x0, y1: y, x2: x1, y2: y }, grid);
  const stars = new Set(ctx.drawing.stars || []);
  for (const c of layout.cells) {
    if (stars.has(c.cell.name)) el("circle", { cx: c.px, cy: c.py, r: UNIT * 0.1, class: "star" }, grid);
  }
  for (const c of layout.cells) {
    const group = ctx.group(c);
    const { cell } = c;
    el("rect", { x: c.px - UNIT / 2, y: c.py - UNIT / 2, width: UNIT, height: UNIT, class: `hit${ctx.classes(cell.name)}` }, group);
    if (cell.stack.length) disc(group, c.px, c.py, UNIT * 0.46, ctx.drawing, cell.stack[cell.stack.length - 1], " stone");
    if (ctx.marked.has(cell.name) && cell.stack.length) el("circle", { cx: c.px, cy: c.py, r: UNIT * 0.13, class: "last" }, group);
    if (ctx.targets.has(cell.name)) targetMark(group, c, cell.stack.length > 0, UNIT * 0.44);
  }
  edgeCoordinates(svg, layout);
}
