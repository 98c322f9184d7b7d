// A board of hexagons (Cacciatori hex, Annuvin): each cell's name sits
// inside it, under its piece, so no label crosses a cell edge.

import { UNIT, disc, el, targetMark } from "/assets/render/common.js";

function hexPoints(cx, cy, r) {
  const points = [];
  for (let i = 0; i < 6; i++) {
    const angle = (Math.PI / 180) * (60 * i - 30);
    points.push(`${(cx + r * Math.cos(angle)).toFixed(1)},${(cy + r * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

export function drawHexes(svg, layout, ctx) {
  const r = layout.radius * UNIT;
  for (const c of layout.cells) {
    const group = ctx.group(c);
    const { cell } = c;
    el("polygon", { points: hexPoints(c.px, c.py, r * 0.97), class: `ground${ctx.classes(cell.name)}` }, group);
    if (cell.stack.length) disc(group, c.px, c.py - r * 0.12, r * 0.5, ctx.drawing, cell.stack[cell.stack.length - 1]);
    el("text", { x: c.px, y: c.py + r * 0.68, class: "coord inside" }, group).textContent = cell.name;
    if (ctx.targets.has(cell.name)) targetMark(group, { px: c.px, py: c.py - r * 0.12 }, cell.stack.length > 0, r * 0.6);
  }
}
