// Moves by clicking, for every game alike: each legal move (a string from
// the server's list) is read as the cells it names, in order, plus the other
// characters around them. Clicking cells builds a path; the moves whose
// cells start with the path stay possible. When several possible moves name
// exactly the path (a Focus drop `+c5` and nothing else, Pente± `g12+` and
// `g12-`, a Cacciatori capture that may stop or go on), the player picks one
// from buttons.

/**
 * Splits a move into the cell names it mentions. `cellNames` is a Set of
 * the view's cell names. Scans left to right taking the longest cell name
 * that is not followed by another digit (so `a1` is not read inside `a10`).
 */
export function cellsOf(move, cellNames, longest) {
  const cells = [];
  let i = 0;
  while (i < move.length) {
    let found = null;
    for (let length = Math.min(longest, move.length - i); length >= 2; length--) {
      const candidate = move.substr(i, length);
      if (cellNames.has(candidate) && !/[0-9]/.test(move[i + length] || "")) {
        found = candidate;
        break;
      }
    }
    if (found) {
      cells.push(found);
      i += found.length;
    } else {
      i += 1;
    }
  }
  return cells;
}

/** The legal moves of a state, each with its cells. */
export class MovePicker {
  constructor(legal, cellNames) {
    const longest = Math.max(2, ...[...cellNames].map((n) => n.length));
    this.moves = legal.map((text) => ({ text, cells: cellsOf(text, cellNames, longest) }));
    this.path = [];
  }

  reset() { this.path = []; }

  /** Moves whose cells start with the current path. */
  candidates(path = this.path) {
    return this.moves.filter((m) => path.every((cell, i) => m.cells[i] === cell));
  }

  /** Cells that may come next after the current path. */
  nextCells() {
    const next = new Set();
    for (const m of this.candidates()) {
      if (m.cells.length > this.path.length) next.add(m.cells[this.path.length]);
    }
    return next;
  }

  /**
   * The cells to highlight: the possible next cells once a path is begun;
   * before that, only the cells where moves of several cells start (the
   * pieces that can move) — in a game of placements every empty cell would
   * be lit, which says nothing.
   */
  highlights() {
    if (this.path.length > 0) return this.nextCells();
    return new Set(this.moves.filter((m) => m.cells.length > 1).map((m) => m.cells[0]));
  }

  /** Moves that end at the current path (playable now). */
  complete() {
    if (this.path.length === 0) return [];
    return this.candidates().filter((m) => m.cells.length === this.path.length);
  }

  /**
   * A click on a cell. Returns `{play: move}` when exactly one move is
   * meant, `{choose: [moves]}` when the player must pick, `{continue}` when
   * more cells are needed, or `{refused: reason}`.
   */
  click(cell) {
    if (this.path.length > 0 && this.path[this.path.length - 1] === cell) {
      // Clicking the last cell again takes it back.
      this.path.pop();
      return { continue: true };
    }
    const extended = [...this.path, cell];
    if (this.candidates(extended).length === 0) {
      if (this.path.length > 0 && this.candidates([cell]).length > 0) {
        // Start over from this cell.
        this.path = [cell];
        return this.outcome();
      }
      return { refused: `no legal move ${this.path.length ? "continues with" : "starts at"} ${cell}` };
    }
    this.path = extended;
    return this.outcome();
  }

  outcome() {
    const complete = this.complete();
    const longer = this.candidates().filter((m) => m.cells.length > this.path.length);
    if (complete.length === 1 && longer.length === 0) return { play: complete[0].text };
    if (complete.length > 0) return { choose: complete.map((m) => m.text), more: longer.length > 0 };
    return { continue: true };
  }

  /** Moves that name no cell at all (a pass, a swap of sides): buttons. */
  cellless() {
    return this.moves.filter((m) => m.cells.length === 0).map((m) => m.text);
  }
}
