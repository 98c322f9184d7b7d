// Forza 4 Centrifuga (Gravity) as a boardgame.io 0.50 game, with the rules
// of /work/shared/RULES.md and src/rules/gravity.rs: an 8x8 board, a move
// names a free entry square, the piece slides toward the nearer edge
// (diagonally toward the nearer corner on a tie) and stops on the edge or
// before the first occupied square on its path; four in a row wins, a full
// board is a draw. Squares are indexed rank * 8 + file, 0-based ("a1" = 0).
'use strict';
const { INVALID_MOVE } = require('boardgame.io/core');

const SIZE = 8;

// Where a piece entered on the free square `entry` comes to rest.
function landing(cells, entry) {
  const file = entry % SIZE;
  const rank = Math.floor(entry / SIZE);
  const dx = Math.min(file, SIZE - 1 - file);
  const dy = Math.min(rank, SIZE - 1 - rank);
  const towardFile = file <= 3 ? -1 : 1;
  const towardRank = rank <= 3 ? -1 : 1;
  let df = 0;
  let dr = 0;
  if (dx < dy) df = towardFile;
  else if (dy < dx) dr = towardRank;
  else [df, dr] = [towardFile, towardRank];
  let [f, r] = [file, rank];
  while (f + df >= 0 && f + df < SIZE && r + dr >= 0 && r + dr < SIZE) {
    if (cells[(r + dr) * SIZE + f + df] !== null) break;
    f += df;
    r += dr;
  }
  return r * SIZE + f;
}

// Whether the piece on `square` is in a line of four or more of its colour.
function fourThrough(cells, square) {
  const who = cells[square];
  const file = square % SIZE;
  const rank = Math.floor(square / SIZE);
  for (const [df, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
    let run = 1;
    for (const sign of [1, -1]) {
      let [f, r] = [file + sign * df, rank + sign * dr];
      while (f >= 0 && f < SIZE && r >= 0 && r < SIZE && cells[r * SIZE + f] === who) {
        run += 1;
        f += sign * df;
        r += sign * dr;
      }
    }
    if (run >= 4) return true;
  }
  return false;
}

const Gravity = {
  name: 'gravity',
  minPlayers: 2,
  maxPlayers: 2,
  setup: () => ({ cells: Array(SIZE * SIZE).fill(null), last: null }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    // Not run on the client: a move counts once the server has processed it
    // and sent the new state back, as an acknowledged move does here.
    play: {
      client: false,
      move: ({ G, playerID }, entry) => {
        if (!Number.isInteger(entry) || entry < 0 || entry >= SIZE * SIZE) return INVALID_MOVE;
        if (G.cells[entry] !== null) return INVALID_MOVE;
        const at = landing(G.cells, entry);
        G.cells[at] = playerID;
        G.last = at;
      },
    },
  },
  endIf: ({ G, ctx }) => {
    if (G.last === null) return undefined;
    if (fourThrough(G.cells, G.last)) return { winner: G.cells[G.last] };
    if (G.cells.every((c) => c !== null)) return { draw: true };
    return undefined;
  },
};

module.exports = { Gravity, landing, fourThrough };
