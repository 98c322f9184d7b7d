// The "if … then …" editor of the game page: a player waiting for the
// opponent records lines of conditional moves by playing them on an
// analysis board (the server's POST /rules/analyze from the game's moves),
// and saves them with PUT /games/{id}/conditional. The server checks every
// line again; its refusal is shown as it is.

import { api, ApiError } from "/assets/api.js";
import { drawBoard } from "/assets/board.js";
import { MovePicker } from "/assets/moves.js";

/** "if d4 then e5, if c3 then f6". */
export function lineText(line) {
  const pairs = [];
  for (let i = 0; i < line.length; i += 2) pairs.push(`if ${line[i]} then ${line[i + 1] === undefined ? "…" : line[i + 1]}`);
  return pairs.join(", ");
}

/**
 * The editor's card. `h` builds elements; `flash(node, text, kind)` shows a
 * message; `drawing()` says how the game page draws its board now
 * (`{drawing, colours, flipped}`). `update(state, moves)` is called with each new state and the
 * game's moves: the card shows only to a seated player of an active
 * two-player game who is waiting.
 */
export function conditionalCard(id, { h, flash, errorText, drawing }) {
  const card = h("section", { class: "card", id: "conditional", hidden: true });
  const saved = h("ol", { id: "conditional-lines" });
  const message = h("div", { id: "conditional-message" });
  const board = h("div", { id: "analysis-box" });
  const recording = h("p", { id: "conditional-recording", class: "line-text" });
  const controls = h("div", { class: "row" });
  let state = null;
  let moves = [];
  let lines = [];
  let line = null; // the line being recorded, or null
  let analysis = null;
  let picker = null;
  let shownAt = null; // the ply the card was drawn for

  const waiting = () => state && state.status === "active" && state.at_ply === undefined && state.seats.length === 2
    && state.your_seat !== null && state.your_seat !== undefined && state.to_move !== state.your_seat;

  async function load() {
    try {
      lines = (await api("GET", `/games/${id}/conditional`)).lines;
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 404)) flash(message, errorText(e));
      lines = [];
    }
    draw();
  }

  async function analyse() {
    try {
      analysis = await api("POST", "/rules/analyze", { game: state.game, variant: state.variant, moves: moves.concat(line) });
      picker = analysis.status === "active" ? new MovePicker(analysis.legal, new Set(analysis.view.board.cells.map((c) => c.name))) : null;
    } catch (e) {
      flash(message, errorText(e));
      line.pop();
      return analyse();
    }
    draw();
  }

  function play(move) {
    line.push(move);
    analyse();
  }

  const onCell = (cell) => {
    if (!picker) { flash(message, "The game would be over here."); return; }
    const result = picker.click(cell);
    if (result.refused) { flash(message, result.refused); draw(); return; }
    flash(message, "");
    if (result.play) { play(result.play); return; }
    if (result.choose && result.choose.length && !result.more) { play(result.choose[0]); return; }
    draw();
  };

  async function save(next) {
    try {
      if (next.length) lines = (await api("PUT", `/games/${id}/conditional`, { lines: next })).lines;
      else { await api("DELETE", `/games/${id}/conditional`); lines = []; }
      flash(message, next.length ? "Saved: the server will answer for you." : "Cleared.", "ok");
    } catch (e) { flash(message, errorText(e)); }
    draw();
  }

  function draw() {
    card.hidden = !waiting();
    saved.replaceChildren(...lines.map((l, i) => h("li", { class: "line-text" }, lineText(l), " ",
      h("button", { class: "link", "data-remove": i, onclick: () => save(lines.filter((_, j) => j !== i)) }, "remove"))));
    controls.replaceChildren();
    if (line === null) {
      board.replaceChildren();
      recording.textContent = lines.length ? "" : "No conditional moves: the game waits for you after each move.";
      controls.append(h("button", { id: "conditional-record", class: "secondary", onclick: () => { line = []; flash(message, ""); analyse(); } }, "Record a line"));
      if (lines.length) controls.append(h("button", { id: "conditional-clear", class: "secondary", onclick: () => save([]) }, "Clear all"));
      return;
    }
    const theirs = line.length % 2 === 0;
    recording.textContent = line.length ? lineText(line) : "";
    recording.append(h("span", { class: "muted" }, line.length ? " — " : "", theirs ? "play their move on the board" : "now play your reply"));
    if (analysis) {
      const { drawing: pieces, colours, flipped } = drawing();
      board.replaceChildren(drawBoard(analysis.view, {
        drawing: pieces, colours, flipped, targets: picker ? picker.highlights() : new Set(), path: picker ? picker.path : [], onCell,
        title: "analysis board",
      }));
      if (picker) {
        const cellless = picker.cellless().map((m) => h("button", { class: "choice", "data-move": m, onclick: () => play(m) }, m));
        if (cellless.length) controls.append(h("span", {}, "Moves: "), ...cellless);
      }
    }
    const complete = line.length > 0 && line.length % 2 === 0;
    controls.append(
      h("button", { id: "conditional-add", disabled: !complete, onclick: () => { const next = lines.concat([line]); line = null; save(next); } }, "Save line"),
      h("button", { class: "secondary", id: "conditional-undo", disabled: !line.length, onclick: () => { line.pop(); analyse(); } }, "Undo"),
      h("button", { class: "secondary", id: "conditional-cancel", onclick: () => { line = null; draw(); } }, "Cancel"));
  }

  card.append(h("h2", {}, "If … then …"), h("p", { class: "muted" }, "Leave replies to the moves you foresee; they are played the moment your opponent moves."),
    saved, recording, board, controls, message);

  return {
    node: card,
    update(next, history) {
      state = next;
      if (!waiting()) { line = null; shownAt = null; card.hidden = true; return; }
      // The moves must be those of this state before anything is analysed.
      if (history.length !== next.ply) return;
      moves = history.map((m) => m.move);
      // A new position: the saved tree may have moved on, and a line being
      // recorded started from elsewhere.
      if (shownAt !== next.ply) { shownAt = next.ply; line = null; load(); }
    },
  };
}
