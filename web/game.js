// The game page: the board drawn for its game (board.js), moves by clicking
// cells with Submit and Cancel before anything is sent, the board turned
// for the second seat, the seats with their pieces in hand and captured,
// offers and their notices, the result of a finished game, the moves in
// numbered rounds, the analysis board, conditional moves and chat, all
// following the game live (api.js's GameFeed).

import { api, GameFeed, rules, session } from "/assets/api.js";
import { botBadge, errorText, flash, go, h, link, notice } from "/assets/app.js";
import { describeStack, drawBoard, drawingFor, pieceIcon } from "/assets/board.js";
import { MovePicker } from "/assets/moves.js";
import { ratingLabel } from "/assets/ratings.js";
import { conditionalCard } from "/assets/conditional.js";
import { analysisCard } from "/assets/analysis.js";
import { refreshCount, setTitle } from "/assets/live.js";

const CONFIRM_LIVE_KEY = "tavoliere.confirm-live";

/** Whether moves in live games wait for Submit (a setting of this browser; on unless turned off). */
export const confirmLive = {
  get on() { return localStorage.getItem(CONFIRM_LIVE_KEY) !== "off"; },
  set on(value) { localStorage.setItem(CONFIRM_LIVE_KEY, value ? "on" : "off"); },
};

function formatClock(ms) {
  if (ms === null || ms === undefined) return "–";
  const total = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(total / 86400), hh = Math.floor((total % 86400) / 3600), mm = Math.floor((total % 3600) / 60), ss = total % 60;
  if (d > 0) return `${d}d ${hh}h`;
  return hh > 0 ? `${hh}:${String(mm).padStart(2, "0")}:${String(ss).padStart(2, "0")}` : `${mm}:${String(ss).padStart(2, "0")}`;
}

/** Pieces off the board drawn as pieces: up to eight, then a count. */
function reserve(label, count, fill) {
  const shown = Math.min(count, 8);
  return h("span", { class: "reserve", "data-reserve": label }, ` · ${label} `,
    Array.from({ length: shown }, () => pieceIcon(fill)), ` ${count}`);
}

/** A seat's line: its piece, player, rating, reserves, clock, turn. */
function seatLine(state, drawing, s, i) {
  const view = state.view.seats[i] || {};
  const own = drawing.pieces[i];
  // Captured pieces are the opponent's colour when there is one opponent.
  const theirs = state.seats.length === 2 ? drawing.pieces[1 - i] : undefined;
  const extras = [];
  if (view.in_hand !== undefined) extras.push(reserve("in hand", view.in_hand, own));
  if (view.captured !== undefined) extras.push(reserve("captured", view.captured, theirs));
  if (view.neutral_stones !== undefined) extras.push(reserve("neutral stones", view.neutral_stones, undefined));
  if (view.score !== undefined) extras.push(` · score ${view.score}`);
  if (view.range !== undefined) extras.push(` · range ${view.range}`);
  if (view.out) extras.push(" · out");
  const toMove = state.to_move === s.seat && state.status === "active";
  const clock = state.clock;
  return h("div", { class: `seat${toMove ? " to-move" : ""}`, "data-seat": s.seat },
    pieceIcon(own, `${s.colour} pieces`),
    h("strong", {}, s.player ? link(`/player/${encodeURIComponent(s.player)}`, s.player) : (s.invited ? `${s.invited} (invited)` : "open seat")),
    botBadge(s.bot),
    s.rating !== undefined ? h("span", { class: "rating", title: s.provisional ? "provisional rating" : "rating" }, ` ${ratingLabel(s.rating, s.provisional)}`) : null,
    h("span", { class: "muted" }, ` ${s.colour}${state.your_seat === s.seat ? " (you)" : ""}`),
    extras,
    clock && Array.isArray(clock.remaining_ms) ? h("span", { class: "clock", "data-seat": s.seat }, formatClock(clock.remaining_ms[i])) : null,
    toMove ? h("span", { class: "turn" }, " ← to move") : null);
}

/** The moves in numbered rounds: a new round when the seats start over. */
function roundsOf(history, seats, current, id) {
  const rows = [];
  let row = null, last = Infinity;
  for (const m of history) {
    if (!row || m.seat <= last) {
      row = h("li", { "data-round": rows.length + 1 }, h("span", { class: "round" }, `${rows.length + 1}.`));
      rows.push(row);
    }
    last = m.seat;
    // A concession (four-player Focus) reads as what it was: "blue resigns".
    const conceded = m.move.startsWith("concede:");
    row.append(h("span", { style: `grid-column:${Number(m.seat) + 2}`, class: conceded ? "conceded" : undefined },
      link(`/game/${id}?ply=${m.ply}`, conceded ? (m.effect || "resigns") : m.move),
      !conceded && m.effect && m.effect !== m.move ? h("span", { class: "muted" }, ` (${m.effect})`) : null,
      m.message ? h("span", { class: "muted", title: m.message }, " 💬") : null));
    const anchor = row.lastChild.firstChild;
    anchor.dataset.ply = m.ply;
    anchor.title = `${m.ply}. ${m.player}: ${m.move}${m.message ? ` “${m.message}”` : ""}`;
    if (current === m.ply) anchor.classList.add("current");
  }
  return rows;
}

/** How a finished game ended, in a sentence. */
function resultText(state) {
  const winners = (state.outcome && state.outcome.winners) || [];
  const names = winners.map((w) => state.seats[w].player || state.seats[w].colour);
  const outcome = state.outcome || {};
  const said = outcome.message || outcome.reason;
  const reason = said ? ` (${String(said).replaceAll("_", " ")})` : "";
  return `${names.length ? `${names.join(" and ")} won` : "a draw"}${reason}`;
}

export async function gamePage(main, id, plyParam, codeParam) {
  const catalogue = await rules();
  const atPly = plyParam !== null && /^\d+$/.test(plyParam) ? Number(plyParam) : null;
  // A private game's invitation code (its invitation link): shows the game
  // to whoever holds it, and lets them take an open seat.
  const code = codeParam && /^[0-9a-f]{32}$/.test(codeParam) ? codeParam : null;
  const status = h("div", { id: "status", "aria-live": "polite" });
  const message = h("div", { id: "game-message" });
  const result = h("section", { class: "card", id: "result", hidden: true });
  const flip = h("button", { class: "secondary", id: "flip", onclick: () => { turned = !turned; render(); } }, "⟲ Turn board");
  const tools = h("div", { id: "board-tools" }, flip);
  const boardBox = h("div", { id: "board-box" });
  const pendingBox = h("div", { id: "pending", hidden: true, "aria-live": "polite" });
  const chooser = h("div", { id: "chooser", "aria-live": "polite" });
  const seatsBox = h("div", { id: "seats" });
  const offerBox = h("div", { id: "offer-notice" });
  const actions = h("div", { id: "actions" });
  const moveList = h("ol", { id: "moves", class: "rounds" });
  const historyNav = h("div", { id: "history-nav" });
  const textBoard = h("pre", { id: "text-board" });
  const chatLog = h("ul", { id: "chat-log" });
  const chatBox = h("section", { class: "card", id: "chat", hidden: true });
  const modeBadge = h("span", { id: "mode", class: "muted" });
  const notation = h("input", { id: "notation", placeholder: "or type a move, e.g. e4", autocomplete: "off", maxlength: 64, "aria-label": "move in notation" });
  let state = null;
  let picker = null;
  let clockTimer = null;
  let history = [];
  let turned = false; // the flip button's choice, on top of the seat's
  let pending = null; // {move, view?, changed} awaiting Submit
  let feed = null;
  const conditional = conditionalCard(id, { h, flash, errorText, drawing: () => look() });
  const analysis = analysisCard({ h, flash, errorText });

  const look = () => {
    const drawing = drawingFor(catalogue, state.game, state.variant, state.view);
    const colours = state.view.seats.map((s) => s.colour);
    const seatFlip = state.seats.length === 2 && state.your_seat === 1;
    return { drawing, colours, flipped: seatFlip !== turned };
  };

  const play = async (move) => {
    if (!state) return;
    pending = null;
    try {
      const answer = await api("POST", `/games/${id}/moves`, { move, ply: state.ply });
      flash(message, "");
      notation.value = "";
      show(answer.game);
      loadHistory();
    } catch (e) {
      flash(message, `${move}: ${errorText(e)}`);
      if (e.body && e.body.game) show(e.body.game);
      else render();
    }
  };

  /** A move chosen on the board: sent at once, or shown until Submit. */
  const propose = async (move) => {
    const live = state.clock && state.clock.kind === "live";
    if (live && !confirmLive.on) { play(move); return; }
    const path = picker ? [...picker.path] : [];
    pending = { move, changed: new Set(path), view: null };
    render();
    try {
      // The position after the move, as the rules make it (where a Gravity
      // piece lands, what a Focus stack leaves behind).
      const moves = history.map((m) => m.move);
      if (moves.length !== state.ply) return;
      const after = await api("POST", "/rules/analyze", { game: state.game, variant: state.variant, moves: moves.concat([move]) });
      if (!pending || pending.move !== move) return;
      const before = new Map(state.view.board.cells.map((c) => [c.name, JSON.stringify(c.stack)]));
      pending.view = after.view;
      pending.changed = new Set(after.view.board.cells.filter((c) => before.get(c.name) !== JSON.stringify(c.stack)).map((c) => c.name));
      render();
    } catch { /* the path stays shown; Submit still asks the server */ }
  };

  const cancel = () => { pending = null; if (picker) picker.reset(); flash(message, ""); render(); };

  const onCell = (cell) => {
    if (pending) { flash(message, "Submit or cancel the move first."); return; }
    if (!picker) {
      let why = "It is not your turn.";
      if (!state || state.status !== "active") why = "The game is not being played.";
      else if (state.at_ply !== undefined) why = "This is a past position: go to the present to move.";
      else if (state.your_seat === null || state.your_seat === undefined) why = "You are watching this game.";
      flash(message, why);
      return;
    }
    const outcome = picker.click(cell);
    if (outcome.refused) { flash(message, outcome.refused); render(); return; }
    flash(message, "");
    if (outcome.play) { propose(outcome.play); return; }
    render(outcome.choose, outcome.more);
    focusCell(cell);
  };

  const focusCell = (cell) => {
    const node = boardBox.querySelector(`[data-cell="${CSS.escape(cell)}"]`);
    if (node) { node.setAttribute("tabindex", "0"); node.focus(); }
  };

  function render(choices = null, more = false) {
    if (!state) return;
    const { drawing, colours, flipped } = look();
    const marked = new Set();
    if (state.last_move && !pending) {
      const names = new Set(state.view.board.cells.map((c) => c.name));
      const probe = new MovePicker([state.last_move.move, state.last_move.effect || ""], names);
      for (const m of probe.moves) for (const c of m.cells) marked.add(c);
    }
    const targets = picker && !pending ? picker.highlights() : new Set();
    const info = catalogue.find((g) => g.slug === state.game);
    const shown = pending && pending.view ? pending.view : state.view;
    boardBox.replaceChildren(drawBoard(shown, {
      drawing, colours, marked, targets, flipped, onCell,
      path: picker && !pending ? picker.path : [],
      pending: pending ? pending.changed : new Set(),
      title: `${info ? info.english : state.game} board`,
    }));
    flip.setAttribute("aria-pressed", String(flipped));
    // The box is built once per pending move: redrawn under a pointer, its
    // Submit button would miss the click.
    const proposed = pending ? pending.move : null;
    if (pendingBox.dataset.move !== (proposed || "")) {
      pendingBox.dataset.move = proposed || "";
      pendingBox.hidden = !pending;
      pendingBox.replaceChildren(...(pending ? [
        h("button", { id: "submit-move", onclick: () => play(proposed) }, "Submit"),
        h("button", { class: "secondary", id: "cancel-move", onclick: cancel }, "Cancel"),
        h("span", {}, " your move ", h("strong", { class: "line-text" }, proposed), " (shown on the board)."),
      ] : []));
    }
    chooser.replaceChildren();
    if (picker && !pending) {
      const buttons = (choices || []).map((m) => h("button", { class: "choice", "data-move": m, onclick: () => { propose(m); } }, m));
      const cellless = picker.cellless().map((m) => h("button", { class: "choice", "data-move": m, onclick: () => propose(m) }, m));
      if (picker.path.length && !buttons.length) chooser.append(h("span", {}, `${picker.path.join(" ")}: choose a highlighted cell. `));
      if (buttons.length) chooser.append(h("span", {}, "Play: "), ...buttons, more ? h("span", {}, " or go on to a highlighted cell. ") : null);
      if (picker.path.length) chooser.append(h("button", { class: "secondary", id: "cancel-path", onclick: cancel }, "Cancel"));
      if (cellless.length) chooser.append(h("span", {}, " Moves: "), ...cellless);
    }
    textBoard.textContent = state.view.board.cells.filter((c) => c.stack.length)
      .map((c) => `${c.name}: ${describeStack(c.stack, colours)}`).join("\n") || "The board is empty.";
  }

  function renderSeats() {
    const { drawing } = look();
    const clock = state.clock;
    seatsBox.replaceChildren(...state.seats.map((s, i) => seatLine(state, drawing, s, i)));
    clearInterval(clockTimer);
    if (clock && clock.running && state.to_move !== null && Array.isArray(clock.remaining_ms)) {
      const started = Date.now();
      const base = clock.remaining_ms[state.to_move];
      clockTimer = setInterval(() => {
        const node = seatsBox.querySelector(`.clock[data-seat="${state.to_move}"]`);
        const left = clock.deadline ? clock.deadline - Date.now() : base - (Date.now() - started);
        if (node) node.textContent = formatClock(left);
      }, 500);
    }
  }

  function renderStatus() {
    let text;
    if (state.at_ply !== undefined) text = `The position after move ${state.at_ply}.`;
    else if (state.status === "open") text = "Waiting for players to join.";
    else if (state.status === "aborted") text = "Aborted.";
    else if (state.status === "finished") text = `Finished: ${resultText(state)}.`;
    else if (state.your_seat === state.to_move) text = "Your move.";
    else text = `${state.to_move_player || "?"} to move.`;
    const phase = state.view.phase ? ` Phase: ${state.view.phase}.` : "";
    status.replaceChildren(h("strong", {}, text), phase);
  }

  function rematchButton() {
    return h("button", {
      class: "secondary", id: "rematch",
      onclick: async () => {
        try { go(`/game/${(await api("POST", `/games/${id}/rematch`)).id}`); } catch (e) { flash(message, errorText(e)); }
      },
    }, state.rematch ? "Rematch (accept)" : "Rematch");
  }

  /** A finished game: how it ended, the final position, the record, a rematch. */
  function renderResult() {
    const finished = state.status === "finished" && state.at_ply === undefined;
    result.hidden = !finished;
    if (!finished) { result.replaceChildren(); return; }
    const mine = state.your_seat !== null && state.your_seat !== undefined;
    const winners = (state.outcome && state.outcome.winners) || [];
    const headline = mine ? (winners.length === 0 ? "Draw" : winners.includes(state.your_seat) ? "You won" : "You lost") : "Game over";
    result.replaceChildren(h("h2", {}, headline),
      h("p", {}, `${resultText(state)[0].toUpperCase()}${resultText(state).slice(1)}, after ${state.ply} moves. The board shows the final position.`),
      h("p", { class: "row" },
        h("a", { href: `/api/v1/games/${id}/record?format=text`, target: "_blank", id: "result-record" }, "Record"),
        h("a", { href: `/api/v1/games/${id}/board.svg`, target: "_blank" }, "Final position (SVG)"),
        mine ? rematchButton() : null,
        state.rematch ? link(`/game/${state.rematch}`, `Rematch #${state.rematch}`) : null));
  }

  function act(label, path, idName, confirmText, body) {
    return h("button", {
      class: "secondary", id: idName,
      onclick: async () => {
        if (confirmText && !window.confirm(confirmText)) return;
        try {
          const answer = await api("POST", `/games/${id}/${path}`, body);
          // Joined with the code: a participant now, so the page starts over
          // as one (moves, chat and the live feed are theirs from here).
          if (body && body.code) { go(`/game/${id}`); return; }
          flash(message, "");
          show(answer);
          loadHistory();
        } catch (e) { flash(message, errorText(e)); }
      },
    }, label);
  }

  /** Offers to the viewer get a notice of their own, not only buttons. */
  function renderOffers(mine) {
    const by = (seats) => seats.filter((s) => s !== state.your_seat).map((s) => state.seats[s].player || state.seats[s].colour);
    const notes = [];
    if (mine && state.status === "active") {
      const draw = by(state.offers.draw), takeback = by(state.offers.takeback);
      if (draw.length) notes.push(notice(`${draw.join(" and ")} offers a draw.`, "ok"));
      if (takeback.length) notes.push(notice(`${takeback.join(" and ")} asks to take back the last move.`, "ok"));
    }
    offerBox.replaceChildren(...notes);
  }

  function renderActions() {
    const mine = state.your_seat !== null && state.your_seat !== undefined;
    const buttons = [];
    renderOffers(mine);
    // Out of a game that goes on (four-player Focus): nothing left to do.
    const out = mine && state.status === "active" && (state.view.seats[state.your_seat] || {}).out;
    if (out) buttons.push(h("span", { class: "muted", id: "out-of-game" }, "You are out: the game goes on without you."));
    if (mine && !out && state.status === "active" && state.at_ply === undefined) {
      const drawOffered = state.offers.draw.filter((s) => s !== state.your_seat);
      const takebackOffered = state.offers.takeback.filter((s) => s !== state.your_seat);
      buttons.push(act("Resign", "resign", "resign", "Resign this game?"));
      if (drawOffered.length) buttons.push(act("Accept draw", "draw/yes", "draw-yes"), act("Decline draw", "draw/no", "draw-no"));
      else if (!state.offers.draw.includes(state.your_seat)) buttons.push(act("Offer draw", "draw/yes", "draw-offer"));
      else buttons.push(h("span", { class: "muted" }, "Draw offered. "));
      if (takebackOffered.length) buttons.push(act("Allow takeback", "takeback/yes", "takeback-yes"), act("Refuse takeback", "takeback/no", "takeback-no"));
      else if (state.ply > 0 && !state.offers.takeback.includes(state.your_seat)) buttons.push(act("Ask takeback", "takeback/yes", "takeback-ask"));
      if (state.ply < state.seats.length) buttons.push(act("Abort", "abort", "abort", "Abort this game?"));
    }
    if (state.status === "open" && session.token) {
      const invited = state.seats.find((s) => s.invited && session.name && s.invited.toLowerCase() === session.name.toLowerCase());
      if (invited) buttons.push(act("Accept invitation", "join", "join"), act("Decline invitation", "decline", "decline"));
      else if (!mine && state.seats.some((s) => !s.player && !s.invited)) buttons.push(act("Join", "join", "join", undefined, code ? { code } : undefined));
      if (mine) buttons.push(act("Abort", "abort", "abort", "Abort this game?"));
    }
    // Participants of a private game see its invitation link, to hand to
    // whoever should take an open seat.
    if (state.invite_url && state.status === "open") {
      const url = `${location.origin}${state.invite_url}`;
      buttons.push(h("p", { id: "invite-link" }, "Invitation link for the open seats: ", h("a", { href: state.invite_url }, url)));
    }
    if (state.rematch_of) buttons.push(link(`/game/${state.rematch_of}`, `Rematch of #${state.rematch_of} `));
    buttons.push(h("a", { href: `/api/v1/games/${id}/record?format=text`, class: "muted", target: "_blank" }, "Record"));
    actions.replaceChildren(...buttons);
  }

  function renderHistory() {
    const current = state.at_ply !== undefined ? state.at_ply : null;
    moveList.style.setProperty("--seats", String(state.seats.length));
    moveList.replaceChildren(...roundsOf(history, state.seats.length, current, id));
    const total = history.length;
    const here = current === null ? total : current;
    historyNav.replaceChildren(
      h("button", { class: "secondary", id: "ply-first", disabled: here === 0, onclick: () => go(`/game/${id}?ply=0`) }, "« start"),
      h("button", { class: "secondary", id: "ply-back", disabled: here === 0, onclick: () => go(`/game/${id}?ply=${here - 1}`) }, "‹ back"),
      h("button", { class: "secondary", id: "ply-forward", disabled: current === null, onclick: () => go(here + 1 >= total ? `/game/${id}` : `/game/${id}?ply=${here + 1}`) }, "next ›"),
      h("button", { class: "secondary", id: "ply-live", disabled: current === null, onclick: () => go(`/game/${id}`) }, "now »"));
  }

  function updateCards() {
    conditional.update(state, history);
    analysis.update(state, history, look());
  }

  async function loadHistory() {
    try {
      history = (await api("GET", `/games/${id}/moves`)).moves;
      if (state) { renderHistory(); updateCards(); }
    } catch { /* shown on the next state */ }
  }

  function show(next) {
    // A poll or fetch answered late must not undo a newer state (the move
    // just made, or one pushed live): the game's event number only grows.
    if (state && next.at_ply === undefined && state.at_ply === undefined && next.seq < state.seq) return;
    // The same state again (a snapshot after the first fetch, the answer to
    // one's own move and then its event): nothing to redraw, and redrawing
    // would move the board under a pointer about to click.
    if (state && next.at_ply === state.at_ply && next.seq === state.seq && next.ply === state.ply) return;
    const previousPly = state ? state.ply : null;
    state = next;
    const mayMove = state.at_ply === undefined && state.status === "active" && state.your_seat !== null && state.your_seat === state.to_move;
    if (!mayMove) { picker = null; pending = null; }
    else if (!picker || previousPly !== state.ply) { picker = new MovePicker(state.legal, new Set(state.view.board.cells.map((c) => c.name))); pending = null; }
    notation.disabled = !mayMove;
    renderStatus();
    renderSeats();
    renderActions();
    renderResult();
    render();
    updateCards();
    if (previousPly !== null && previousPly !== state.ply) { loadHistory(); refreshCount(); }
    const info = catalogue.find((g) => g.slug === state.game);
    setTitle(`${mayMove ? "Your move — " : ""}#${id} ${info ? info.english : state.game} — Tavoliere`);
  }

  const chatInput = h("input", { id: "chat-text", maxlength: 500, placeholder: "Say something", "aria-label": "chat message" });
  const chatForm = h("form", {
    onsubmit: async (e) => {
      e.preventDefault();
      const text = chatInput.value.trim();
      if (!text || !feed) return;
      const room = state && state.your_seat !== null && state.your_seat !== undefined ? "players" : "spectators";
      try {
        await feed.request({ type: "chat", game_id: id, text, room });
        chatInput.value = "";
      } catch (err) { flash(message, errorText(err)); }
    },
  }, chatInput, h("button", { type: "submit" }, "Send"));
  chatBox.append(h("h2", {}, "Chat"), chatLog, session.token ? chatForm : h("p", { class: "muted" }, "Sign in to chat."));

  main.replaceChildren(
    h("div", { class: "game-layout" },
      h("section", { class: "board-column" }, status, message, result, boardBox, pendingBox, chooser, tools,
        h("form", {
          class: "row", id: "notation-form",
          onsubmit: (e) => { e.preventDefault(); if (notation.value.trim()) play(notation.value.trim()); },
        }, notation, h("button", { type: "submit", id: "notation-play" }, "Play"))),
      h("aside", {},
        h("section", { class: "card" }, h("h2", {}, `Game #${id} `, modeBadge), seatsBox, offerBox, actions),
        h("section", { class: "card" }, h("h2", {}, "Moves"), historyNav, moveList),
        analysis.node,
        conditional.node,
        chatBox,
        h("details", { class: "card" }, h("summary", {}, "Board as text"), textBoard))));

  if (atPly !== null) {
    show(await api("GET", `/games/${id}?ply=${atPly}`));
    await loadHistory();
    modeBadge.textContent = "(history)";
    return () => clearInterval(clockTimer);
  }
  if (code) {
    const shown = await api("GET", `/games/${id}?code=${code}`);
    show(shown);
    // Not a participant yet: nothing to follow live until they join.
    if (!shown.public && !shown.invite_code) return () => clearInterval(clockTimer);
  } else {
    show(await api("GET", `/games/${id}`));
  }
  await loadHistory();
  feed = new GameFeed(id, {
    onState: show,
    onEvent: (event) => {
      if (event.kind === "chat") {
        const d = event.data || {};
        chatLog.append(h("li", {}, h("strong", {}, `${d.player || d.from || d.name || "?"}: `), d.text || ""));
      }
    },
    onMode: (mode) => {
      modeBadge.textContent = mode === "live" ? "● live" : "(updating every few seconds)";
      chatBox.hidden = mode !== "live";
    },
  });
  return () => { feed.close(); clearInterval(clockTimer); };
}
