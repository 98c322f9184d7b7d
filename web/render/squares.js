// A board of squares (holes left out), chequered, coordinates on the edges;
// a piece as a disc, or, where pieces pile up (Focus, Torri), the stack seen
// from the side so every piece's colour shows in order.

import { UNIT, disc, edgeCoordinates, el, sideOn, targetMark } from "/assets/render/common.js";

export function drawSquares(svg, layout, ctx) {
  for (const c of layout.cells) {
    const group = ctx.group(c);
    const { cell } = c;
    const dark = (Math.floor(cell.x) + Math.floor(cell.y)) % 2 === 1;
    el("rect", { x: c.px - UNIT / 2, y: c.py - UNIT / 2, width: UNIT, height: UNIT, class: `ground${dark ? " dark" : ""}${ctx.classes(cell.name)}` }, group);
    if (ctx.drawing.stacks) sideOn(group, cell.stack, c.px, c.py, UNIT, ctx.drawing);
    else if (cell.stack.length) disc(group, c.px, c.py, UNIT * 0.37, ctx.drawing, cell.stack[cell.stack.length - 1]);
    if (ctx.targets.has(cell.name)) targetMark(group, c, cell.stack.length > 0, UNIT * 0.44);
  }
  edgeCoordinates(svg, layout);
}
