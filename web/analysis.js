// The analysis board of the game page: from the position shown (any ply),
// a player or spectator plays moves locally, steps back and resets. Every
// position is the server's answer to POST /rules/analyze (the rules check
// each move), and nothing is stored.

import { api } from "/assets/api.js";
import { drawBoard } from "/assets/board.js";
import { MovePicker } from "/assets/moves.js";

/**
 * The card. `update(state, history, look)` is called with each new state,
 * the game's moves and how the board is drawn now (`{drawing, colours,
 * flipped}`); the analysis then starts again from the position shown.
 */
export function analysisCard({ h, flash, errorText }) {
  const card = h("details", { class: "card", id: "analysis" });
  const board = h("div", { id: "analysis-board" });
  const lineText = h("p", { id: "analysis-line", class: "line-text" });
  const controls = h("div", { class: "row" });
  const message = h("div", { id: "analysis-message" });
  let base = null; // the moves up to the position analysed from
  let line = [];
  let analysis = null;
  let picker = null;
  let look = null;

  async function analyse() {
    try {
      analysis = await api("POST", "/rules/analyze", { game: look.game, variant: look.variant, moves: base.concat(line) });
      picker = analysis.status === "active" ? new MovePicker(analysis.legal, new Set(analysis.view.board.cells.map((c) => c.name))) : null;
      flash(message, "");
    } catch (e) {
      flash(message, errorText(e));
      if (line.length) { line.pop(); return analyse(); }
    }
    draw();
  }

  function play(move) { line.push(move); analyse(); }

  const onCell = (cell) => {
    if (!picker) { flash(message, "The game is over in this position."); return; }
    const result = picker.click(cell);
    if (result.refused) { flash(message, result.refused); draw(); return; }
    if (result.play) { play(result.play); return; }
    draw(result.choose || null);
  };

  function draw(choices = null) {
    controls.replaceChildren();
    if (!analysis || !look) { board.replaceChildren(); return; }
    board.replaceChildren(drawBoard(analysis.view, {
      drawing: look.drawing, colours: look.colours, flipped: look.flipped,
      targets: picker ? picker.highlights() : new Set(), path: picker ? picker.path : [], onCell,
      title: "analysis board",
    }));
    const standing = analysis.status === "active" ? `${look.colours[analysis.to_move] || "?"} to move` : `game over${analysis.winners && analysis.winners.length ? `: ${analysis.winners.map((w) => look.colours[w]).join(" and ")} won` : ""}`;
    lineText.textContent = `From move ${base.length}: ${line.length ? line.join(" ") : "(no moves yet)"} — ${standing}.`;
    const buttons = [];
    for (const m of choices || []) buttons.push(h("button", { class: "choice", "data-move": m, onclick: () => { picker.reset(); play(m); } }, m));
    if (picker) for (const m of picker.cellless()) buttons.push(h("button", { class: "choice", "data-move": m, onclick: () => play(m) }, m));
    controls.append(...buttons,
      h("button", { class: "secondary", id: "analysis-back", disabled: !line.length, onclick: () => { line.pop(); analyse(); } }, "‹ back"),
      h("button", { class: "secondary", id: "analysis-reset", disabled: !line.length, onclick: () => { line = []; analyse(); } }, "Reset"));
  }

  card.append(h("summary", {}, "Analysis board"),
    h("p", { class: "muted" }, "Try moves from the position shown; nothing is stored or sent to your opponent."),
    board, lineText, controls, message);
  card.addEventListener("toggle", () => { if (card.open && base && !analysis) analyse(); });

  return {
    node: card,
    update(state, history, next) {
      const at = state.at_ply !== undefined ? state.at_ply : state.ply;
      if (history.length < at) return;
      const moves = history.slice(0, at).map((m) => m.move);
      const moved = !base || moves.length !== base.length || moves.some((m, i) => m !== base[i]);
      look = { ...next, game: state.game, variant: state.variant };
      if (moved) {
        base = moves;
        line = [];
        analysis = null;
        picker = null;
        if (card.open) analyse();
        else draw();
      } else {
        draw();
      }
    },
  };
}
