//! Cacciatori (Huntsmen) in its seven variants, and Annuvin, the same game by
//! the same author on a board of 37 hexagons: pieces move up to a range that
//! grows with the pieces their owner has lost, and a capture made short of the
//! full range may go on capturing with the credit left.
//!
//! One position type serves both catalogue games; a [`Variant`] names the
//! board (4×4 with king or Manhattan distance, 8×8, hexagons of 19 or 37
//! cells), the number of pieces and whether the board starts empty.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;

use super::board::{Bitboard, NotationError, Square};
use super::playout::Rng;
use super::{BoardShape, BoardView, CellView, EndReason, MoveBuffer, Outcome, Progress, Rules, Seat, SeatView, View};

/// Seat colours, seat 0 first.
pub const COLOURS: [&str; 2] = ["white", "black"];

// ---------------------------------------------------------------------------
// Boards

/// How far apart two cells are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Metric {
    /// King steps (Chebyshev distance).
    King,
    /// Orthogonal steps (Manhattan distance).
    Manhattan,
    /// Hexagon steps on the rhombic grid: neighbours (f±1, r), (f, r±1),
    /// (f+1, r+1), (f−1, r−1).
    Hex,
}

/// The longest range any variant reaches: 1 + 7 pieces lost on the 8×8 board.
const MAX_RANGE: usize = 8;

/// A board's cells and its precomputed distances.
struct Board {
    shape: BoardShape,
    /// The bounding grid, `files × ranks` with `a1` at index 0.
    size: u8,
    cells: Bitboard,
    distance: [[u8; 64]; 64],
    /// `within[s][r]`: the cells at distance 1…`r` from `s`.
    within: [[Bitboard; MAX_RANGE + 1]; 64],
}

const fn max(a: u8, b: u8) -> u8 {
    if a > b {
        a
    } else {
        b
    }
}

/// A `size × size` board; hexagonal boards keep the cells with
/// |file − rank| ≤ `size / 2`.
const fn board(size: u8, metric: Metric) -> Board {
    let mut cells = 0u64;
    let mut index = 0;
    while index < 64 {
        let (file, rank) = ((index % 8) as u8, (index / 8) as u8);
        let on_grid = file < size && rank < size;
        let on_hex = !matches!(metric, Metric::Hex) || file.abs_diff(rank) <= size / 2;
        if on_grid && on_hex {
            cells |= 1 << index;
        }
        index += 1;
    }
    let mut distance = [[0u8; 64]; 64];
    let mut within = [[Bitboard(0); MAX_RANGE + 1]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            if cells & (1 << a) != 0 && cells & (1 << b) != 0 {
                let (fa, ra, fb, rb) = ((a % 8) as u8, (a / 8) as u8, (b % 8) as u8, (b / 8) as u8);
                let (df, dr) = (fa.abs_diff(fb), ra.abs_diff(rb));
                let d = match metric {
                    Metric::King => max(df, dr),
                    Metric::Manhattan => df + dr,
                    // max(|df|, |dr|, |df − dr|): the last term is the sum
                    // when the signs differ.
                    Metric::Hex => {
                        let same_sign = (fa >= fb) == (ra >= rb);
                        if same_sign {
                            max(df, dr)
                        } else {
                            df + dr
                        }
                    }
                };
                distance[a][b] = d;
                let mut r = d as usize;
                while r <= MAX_RANGE {
                    if d > 0 {
                        within[a][r].0 |= 1 << b;
                    }
                    r += 1;
                }
            }
            b += 1;
        }
        a += 1;
    }
    let shape = if matches!(metric, Metric::Hex) {
        BoardShape::Hex
    } else {
        BoardShape::Square
    };
    Board {
        shape,
        size,
        cells: Bitboard(cells),
        distance,
        within,
    }
}

static SQUARE_KING: Board = board(4, Metric::King);
static SQUARE_MANHATTAN: Board = board(4, Metric::Manhattan);
static HEX_19: Board = board(5, Metric::Hex);
static HEX_37: Board = board(7, Metric::Hex);
static EIGHT: Board = board(8, Metric::King);

impl Board {
    #[inline]
    fn distance(&self, a: Square, b: Square) -> u8 {
        self.distance[a.index()][b.index()]
    }

    #[inline]
    fn within(&self, square: Square, range: u8) -> Bitboard {
        self.within[square.index()][(range as usize).min(MAX_RANGE)]
    }

    /// Centre of a cell for drawing, in cell widths from the top left.
    /// Hexagons are pointy-topped, one cell wide: a rank is a row, and
    /// (f, r+1) and (f+1, r+1) sit up-left and up-right of (f, r).
    fn centre(&self, square: Square) -> (f32, f32) {
        let (file, rank) = (square.file() as f32, square.rank() as f32);
        let top = (self.size - 1) as f32;
        match self.shape {
            BoardShape::Square => (file + 0.5, top - rank + 0.5),
            BoardShape::Hex => {
                let row = 3f32.sqrt() / 2.0;
                let shift = (self.size - 1) as f32 / 4.0 + 0.5;
                (file - rank / 2.0 + shift, (top - rank) * row + 1.0 / 3f32.sqrt())
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Variants

/// Every variant of both catalogue games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Standard,
    Orthogonal,
    Empty,
    OrthogonalEmpty,
    Hex,
    HexEmpty,
    Eight,
    Annuvin,
    AnnuvinEmpty,
}

struct Config {
    board: &'static Board,
    /// Pieces per player.
    pieces: u8,
    /// The board starts empty with every piece in hand.
    empty: bool,
    start: [Bitboard; 2],
}

/// The cells named, as a set (names are valid by construction).
const fn cells(names: &[&str]) -> Bitboard {
    let mut bits = 0u64;
    let mut i = 0;
    while i < names.len() {
        let name = names[i].as_bytes();
        bits |= 1 << ((name[1] - b'1') * 8 + (name[0] - b'a'));
        i += 1;
    }
    Bitboard(bits)
}

const SQUARE_START: [Bitboard; 2] = [cells(&["a1", "b1", "c1", "d1"]), cells(&["a4", "b4", "c4", "d4"])];
const NONE: [Bitboard; 2] = [Bitboard::EMPTY; 2];

static CONFIGS: [Config; 9] = [
    Config {
        board: &SQUARE_KING,
        pieces: 4,
        empty: false,
        start: SQUARE_START,
    },
    Config {
        board: &SQUARE_MANHATTAN,
        pieces: 4,
        empty: false,
        start: SQUARE_START,
    },
    Config {
        board: &SQUARE_KING,
        pieces: 4,
        empty: true,
        start: NONE,
    },
    Config {
        board: &SQUARE_MANHATTAN,
        pieces: 4,
        empty: true,
        start: NONE,
    },
    Config {
        board: &HEX_19,
        pieces: 4,
        empty: false,
        start: [cells(&["a1", "b1", "c1", "a2"]), cells(&["c5", "d5", "e5", "e4"])],
    },
    Config {
        board: &HEX_19,
        pieces: 4,
        empty: true,
        start: NONE,
    },
    Config {
        board: &EIGHT,
        pieces: 8,
        empty: false,
        start: [Bitboard(0xff), Bitboard(0xff << 56)],
    },
    Config {
        board: &HEX_37,
        pieces: 6,
        empty: false,
        start: [
            cells(&["b1", "c1", "d1", "d2", "e2", "f3"]),
            cells(&["b5", "c6", "d6", "d7", "e7", "f7"]),
        ],
    },
    Config {
        board: &HEX_37,
        pieces: 6,
        empty: true,
        start: NONE,
    },
];

impl Variant {
    fn config(self) -> &'static Config {
        &CONFIGS[self as usize]
    }
}

// ---------------------------------------------------------------------------
// Moves

/// The most legs a move can have: every leg covers at least 1 of the range,
/// which is at most 8 (the 8×8 board, 7 pieces lost).
pub const MAX_LEGS: usize = MAX_RANGE;

/// A placement (`+b2`) or a move of a piece through one or more legs
/// (`c1-c2`, `c2xc3`, `b3xc3xd2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// A placement's square, or the moving piece's square followed by the
    /// landing square of every leg. Unused entries stay `a1`.
    squares: [Square; MAX_LEGS + 1],
    len: u8,
    /// The first leg captures (every further leg does).
    captures_first: bool,
}

impl Move {
    pub fn placement(square: Square) -> Move {
        let mut squares = [Square::from_index(0); MAX_LEGS + 1];
        squares[0] = square;
        Move {
            squares,
            len: 1,
            captures_first: false,
        }
    }

    /// A move of the piece on `from` to `to`, a capture when `captures`.
    pub fn step(from: Square, to: Square, captures: bool) -> Move {
        let mut m = Move::placement(from);
        m.squares[1] = to;
        m.len = 2;
        m.captures_first = captures;
        m
    }

    /// Adds a leg (the caller keeps `legs() < MAX_LEGS`).
    #[inline]
    fn then(mut self, to: Square) -> Move {
        if let Some(slot) = self.squares.get_mut(self.len as usize) {
            *slot = to;
            self.len += 1;
        }
        self
    }

    pub fn is_placement(&self) -> bool {
        self.len == 1
    }

    /// The placed piece's square, or the moving piece's starting square.
    pub fn from(&self) -> Square {
        self.squares[0]
    }

    /// The landing square of every leg (none for a placement).
    pub fn legs(&self) -> &[Square] {
        &self.squares[1..self.len as usize]
    }

    /// Where the piece ends up.
    pub fn to(&self) -> Square {
        self.squares[self.len as usize - 1]
    }

    /// The squares whose pieces this move captures (for a legal move).
    pub fn captures(&self) -> &[Square] {
        let skip = if self.captures_first { 1 } else { 2 };
        self.squares.get(skip..self.len as usize).unwrap_or(&[])
    }
}

/// Written through its `Display`.
impl super::Notation for Move {}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_placement() {
            return write!(f, "+{}", self.from());
        }
        write!(f, "{}", self.from())?;
        for (i, leg) in self.legs().iter().enumerate() {
            let separator = if i == 0 && !self.captures_first { '-' } else { 'x' };
            write!(f, "{separator}{leg}")?;
        }
        Ok(())
    }
}

impl FromStr for Move {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Move, NotationError> {
        const EXPECTED: &str = "a move such as c1-c2, c2xc3, b3xc3xd2 or +b2";
        let error = || NotationError::new(s, EXPECTED);
        let (plus, text) = match s.strip_prefix('+') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        let (first, mut rest) = Square::parse_prefix(text).ok_or_else(error)?;
        let mut m = Move::placement(first);
        if plus && !rest.is_empty() {
            return Err(error());
        }
        while let Some(&separator) = rest.as_bytes().first() {
            if !matches!(separator, b'-' | b'x' | b'X') || m.len as usize > MAX_LEGS {
                return Err(error());
            }
            let (to, after) = Square::parse_prefix(&rest[1..]).ok_or_else(error)?;
            if m.len == 1 {
                m.captures_first = separator != b'-';
            }
            m = m.then(to);
            rest = after;
        }
        Ok(m)
    }
}

/// A move list that lives on the stack up to [`INLINE`] moves and moves to
/// the heap beyond.
///
/// Bounds: a move is a placement (≤ cells, and then the range is 1: no
/// chains), a single leg (≤ cells − 1 per piece) or a chain. A chain captures
/// distinct enemy pieces, at most `range` of them, so a piece with `e`
/// enemies and range `R` starts at most Σ_{k≤min(R,e)} e!/(e−k)! chains. On
/// the 4×4 and 19-cell boards (4 pieces each, ≤ 18 single legs a piece) the
/// worst case is two pieces left (range 3, 4 enemies, chains of 2 or 3
/// captures): 2 × (18 + 4·3 + 4·3·2) = 108 moves; three pieces (range 2)
/// give 3 × (18 + 4·3) = 90; one piece (range 4) faces at most 3 enemies, as
/// an opponent who lost none would already have won: 18 + 6 + 6 + 0 = 30.
/// Every list there fits inline
/// (`test: small_boards_never_spill`). On Annuvin's board and 8×8 the crude
/// bound runs to hundreds of thousands, and a real dense 8×8 position has
/// 8560 moves (`test: dense_big_boards_list_every_chain`): rather than reserve
/// that on every stack frame, such a list spills to the heap. It is never
/// truncated. Random playouts never build the list (`Huntsmen::pick`).
pub const INLINE: usize = 256;

#[derive(Clone, Debug, Default)]
pub struct MoveList {
    inline: ArrayVec<Move, INLINE>,
    spilled: Vec<Move>,
}

impl MoveBuffer<Move> for MoveList {
    #[inline]
    fn push(&mut self, m: Move) {
        if self.spilled.is_empty() {
            match self.inline.try_push(m) {
                Ok(()) => return,
                Err(_) => {
                    self.spilled.reserve(2 * INLINE);
                    self.spilled.extend(self.inline.drain(..));
                }
            }
        }
        self.spilled.push(m);
    }

    #[inline]
    fn as_slice(&self) -> &[Move] {
        if self.spilled.is_empty() {
            &self.inline
        } else {
            &self.spilled
        }
    }

    #[inline]
    fn clear(&mut self) {
        self.inline.clear();
        self.spilled.clear();
    }
}

// ---------------------------------------------------------------------------
// Errors

/// Why a well-formed move is not legal here.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    #[error("{0} is not a square of this board")]
    NotOnBoard(Square),
    #[error("{seat} has no pieces in hand")]
    NoPiecesInHand { seat: &'static str },
    #[error("{0} is occupied")]
    Occupied(Square),
    #[error("there is no piece on {0}")]
    NoPiece(Square),
    #[error("the piece on {square} is {owner}'s, not {seat}'s")]
    NotYours {
        square: Square,
        owner: &'static str,
        seat: &'static str,
    },
    #[error("a move must leave its square: {0} to {0}")]
    Stays(Square),
    #[error("{square} holds one of {seat}'s own pieces")]
    OwnPiece { square: Square, seat: &'static str },
    #[error("{square} is {distance} away, {seat}'s range is {range}{}", holding_note(.holding))]
    OutOfRange {
        square: Square,
        distance: u8,
        seat: &'static str,
        range: u8,
        holding: bool,
    },
    #[error("{to} is empty: a move there is written {from}-{to}, not {from}x{to}")]
    NotACapture { from: Square, to: Square },
    #[error("a chain leg must capture: {square} holds no {enemy} piece")]
    LegMustCapture { square: Square, enemy: &'static str },
    #[error("the chain has {}, {square} is {distance} away", credit_left(.credit))]
    NoCredit { square: Square, distance: u8, credit: u8 },
}

fn holding_note(holding: &bool) -> &'static str {
    if *holding {
        " while holding pieces in hand"
    } else {
        ""
    }
}

fn credit_left(credit: &u8) -> String {
    match *credit {
        0 => "no credit left".to_string(),
        1 => "1 credit left".to_string(),
        n => format!("{n} credits left"),
    }
}

// ---------------------------------------------------------------------------
// Positions

/// A Cacciatori or Annuvin position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Huntsmen {
    variant: Variant,
    pieces: [Bitboard; 2],
    in_hand: [u8; 2],
    progress: Progress,
}

impl Huntsmen {
    pub fn new(variant: Variant) -> Huntsmen {
        let config = variant.config();
        let in_hand = if config.empty { config.pieces } else { 0 };
        Huntsmen {
            variant,
            pieces: config.start,
            in_hand: [in_hand; 2],
            progress: Progress::default(),
        }
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    #[inline]
    fn config(&self) -> &'static Config {
        self.variant.config()
    }

    #[inline]
    fn board(&self) -> &'static Board {
        self.config().board
    }

    #[inline]
    fn side(&self) -> usize {
        (self.progress.ply % 2) as usize
    }

    /// Which seat's piece stands on `square`.
    pub fn piece_at(&self, square: Square) -> Option<Seat> {
        (0..2).find(|&seat| self.pieces[seat as usize].contains(square))
    }

    /// Pieces a seat still has, on the board and in hand.
    pub fn pieces_left(&self, seat: Seat) -> u8 {
        let seat = seat as usize & 1;
        self.pieces[seat].count() as u8 + self.in_hand[seat]
    }

    pub fn in_hand(&self, seat: Seat) -> u8 {
        self.in_hand[seat as usize & 1]
    }

    /// A seat's range: 1 while it holds pieces in hand, else 1 + pieces lost.
    pub fn range(&self, seat: Seat) -> u8 {
        if self.in_hand(seat) > 0 {
            1
        } else {
            1 + self.config().pieces - self.pieces_left(seat)
        }
    }

    /// Appends every chain that continues `m`, standing on `at` with `credit`
    /// left, capturing among `enemies`: each continuation, then its own.
    fn extend_chains(&self, m: Move, at: Square, credit: u8, enemies: Bitboard, moves: &mut MoveList) {
        let board = self.board();
        for target in board.within(at, credit) & enemies {
            let next = m.then(target);
            moves.push(next);
            let left = credit - board.distance(at, target);
            if left > 0 {
                self.extend_chains(next, target, left, Bitboard(enemies.0 & !target.bit().0), moves);
            }
        }
    }

    fn generate(&self, moves: &mut MoveList) {
        let me = self.side();
        let board = self.board();
        let own = self.pieces[me];
        let enemies = self.pieces[me ^ 1];
        if self.in_hand[me] > 0 {
            for square in board.cells & !(own | enemies) {
                moves.push(Move::placement(square));
            }
        }
        let range = self.range(me as Seat);
        for from in own {
            for to in board.within(from, range) & !own {
                let captures = enemies.contains(to);
                let m = Move::step(from, to, captures);
                moves.push(m);
                let credit = range - board.distance(from, to);
                if captures && credit > 0 {
                    self.extend_chains(m, to, credit, Bitboard(enemies.0 & !to.bit().0), moves);
                }
            }
        }
    }

    /// The number of chains that continue a capture landing on `at` with
    /// `credit` left among `enemies` (the moves `extend_chains` appends).
    fn count_chains(&self, at: Square, credit: u8, enemies: Bitboard) -> u32 {
        let board = self.board();
        let mut count = 0;
        for target in board.within(at, credit) & enemies {
            count += 1;
            let left = credit - board.distance(at, target);
            if left > 0 {
                count += self.count_chains(target, left, Bitboard(enemies.0 & !target.bit().0));
            }
        }
        count
    }

    /// The `k`-th chain continuing `m` (`k < count_chains(…)`), in the
    /// order `extend_chains` lists them.
    fn nth_chain(&self, m: Move, at: Square, credit: u8, enemies: Bitboard, mut k: u32) -> Option<Move> {
        let board = self.board();
        for target in board.within(at, credit) & enemies {
            let next = m.then(target);
            if k == 0 {
                return Some(next);
            }
            k -= 1;
            let left = credit - board.distance(at, target);
            if left > 0 {
                let rest = Bitboard(enemies.0 & !target.bit().0);
                let count = self.count_chains(target, left, rest);
                if k < count {
                    return self.nth_chain(next, target, left, rest, k);
                }
                k -= count;
            }
        }
        None
    }

    /// The single-leg moves of the piece on `from`, and the chains after them.
    fn count_from(&self, from: Square, range: u8, own: Bitboard, enemies: Bitboard) -> (Bitboard, u32) {
        let board = self.board();
        let targets = board.within(from, range) & !own;
        let mut count = targets.count();
        if range > 1 {
            for to in targets & enemies {
                let credit = range - board.distance(from, to);
                if credit > 0 {
                    count += self.count_chains(to, credit, Bitboard(enemies.0 & !to.bit().0));
                }
            }
        }
        (targets, count)
    }

    /// One legal move chosen by `choose` from the number of legal moves
    /// (which it must answer below), without listing them all: the moves are
    /// counted piece by piece and only the chosen piece's are walked. Every
    /// index names a different legal move (`test: picking_by_index_reaches_every_move_once`).
    fn pick(&self, choose: impl FnOnce(u32) -> u32) -> Option<Move> {
        if self.progress.outcome.is_some() {
            return None;
        }
        let me = self.side();
        let board = self.board();
        let own = self.pieces[me];
        let enemies = self.pieces[me ^ 1];
        let range = self.range(me as Seat);
        let empty = if self.in_hand[me] > 0 {
            board.cells & !(own | enemies)
        } else {
            Bitboard::EMPTY
        };
        // At most 8 pieces a side.
        let mut per_piece = [(Square::from_index(0), Bitboard::EMPTY, 0u32); 8];
        let mut total = empty.count();
        for (slot, from) in per_piece.iter_mut().zip(own) {
            let (targets, count) = self.count_from(from, range, own, enemies);
            *slot = (from, targets, count);
            total += count;
        }
        if total == 0 {
            return None;
        }
        let mut k = choose(total);
        if k < empty.count() {
            return empty.nth(k).map(Move::placement);
        }
        k -= empty.count();
        for &(from, targets, count) in &per_piece {
            if k >= count {
                k -= count;
                continue;
            }
            if k < targets.count() {
                let to = targets.nth(k)?;
                return Some(Move::step(from, to, enemies.contains(to)));
            }
            k -= targets.count();
            for to in targets & enemies {
                let credit = range - board.distance(from, to);
                if credit == 0 {
                    continue;
                }
                let rest = Bitboard(enemies.0 & !to.bit().0);
                let chains = self.count_chains(to, credit, rest);
                if k < chains {
                    return self.nth_chain(Move::step(from, to, true), to, credit, rest, k);
                }
                k -= chains;
            }
            return None;
        }
        None
    }

    /// Checks a move leg by leg, returning it in canonical form.
    fn check(&self, m: Move) -> Result<Move, Illegal> {
        let me = self.side();
        let seat = COLOURS[me];
        let enemy = COLOURS[me ^ 1];
        let board = self.board();
        let squares = &m.squares[..m.len as usize];
        if let Some(&off) = squares.iter().find(|&&s| !board.cells.contains(s)) {
            return Err(Illegal::NotOnBoard(off));
        }
        let from = m.from();
        if m.is_placement() {
            if self.in_hand[me] == 0 {
                return Err(Illegal::NoPiecesInHand { seat });
            }
            if self.piece_at(from).is_some() {
                return Err(Illegal::Occupied(from));
            }
            return Ok(m);
        }
        match self.piece_at(from) {
            None => return Err(Illegal::NoPiece(from)),
            Some(owner) if owner as usize != me => {
                return Err(Illegal::NotYours {
                    square: from,
                    owner: enemy,
                    seat,
                })
            }
            Some(_) => {}
        }
        let range = self.range(me as Seat);
        let mut enemies = self.pieces[me ^ 1];
        let mut canonical = Move::placement(from);
        let mut at = from;
        let mut credit = range;
        for (i, &to) in m.legs().iter().enumerate() {
            let distance = board.distance(at, to);
            let captures = enemies.contains(to);
            if i == 0 {
                if distance == 0 {
                    return Err(Illegal::Stays(from));
                }
                if self.pieces[me].contains(to) {
                    return Err(Illegal::OwnPiece { square: to, seat });
                }
                if distance > range {
                    return Err(Illegal::OutOfRange {
                        square: to,
                        distance,
                        seat,
                        range,
                        holding: self.in_hand[me] > 0,
                    });
                }
                // x claims a capture and must make one. A capture written
                // with - is the seed's own spelling (c2-c3, b3-c3-d2), so it
                // is accepted and printed canonically with x.
                if m.captures_first && !captures {
                    return Err(Illegal::NotACapture { from, to });
                }
                canonical = Move::step(from, to, captures);
            } else {
                // The previous leg captured, or this one would have been refused.
                if !captures {
                    return Err(Illegal::LegMustCapture { square: to, enemy });
                }
                if distance > credit {
                    return Err(Illegal::NoCredit {
                        square: to,
                        distance,
                        credit,
                    });
                }
                canonical = canonical.then(to);
            }
            if !captures && m.legs().len() > i + 1 {
                // A plain first leg cannot be continued.
                return Err(Illegal::LegMustCapture { square: to, enemy });
            }
            credit -= distance;
            enemies.clear(to);
            at = to;
        }
        Ok(canonical)
    }
}

impl Rules for Huntsmen {
    type Move = Move;
    type MoveList = MoveList;
    type Illegal = Illegal;

    fn mover(&self) -> Seat {
        self.side() as Seat
    }

    fn progress(&self) -> &Progress {
        &self.progress
    }

    fn legal_moves_in_play(&self, moves: &mut MoveList) {
        self.generate(moves);
    }

    fn legalize(&self, m: Move) -> Result<Move, Illegal> {
        self.check(m)
    }

    fn play_unchecked(&mut self, m: Move) {
        let me = self.side();
        if m.is_placement() {
            self.in_hand[me] = self.in_hand[me].saturating_sub(1);
        } else {
            self.pieces[me].clear(m.from());
            for &captured in m.captures() {
                self.pieces[me ^ 1].clear(captured);
            }
        }
        self.pieces[me].set(m.to());
        self.progress.ply += 1;
        // No "no legal move" ending is needed: a player with a piece on the
        // board can always step to a neighbouring cell (the board is
        // connected and never full of their own pieces, since the opponent
        // has a piece or the board has more cells than pieces), and a player
        // with none on the board has pieces in hand and empty cells to fill.
        let (mine, theirs) = (self.pieces_left(me as Seat), self.pieces_left((me ^ 1) as Seat));
        if theirs == 0 {
            self.progress.outcome = Some(Outcome::win(me as Seat, EndReason::AllCaptured));
        } else if theirs == 1 && mine == self.config().pieces {
            self.progress.outcome = Some(Outcome::win(me as Seat, EndReason::ReducedToOne));
        }
    }

    fn describe(&self, m: Move) -> Option<String> {
        let names: Vec<String> = m.captures().iter().map(Square::to_string).collect();
        match names.as_slice() {
            [] => None,
            [one] => Some(format!("captures {one}")),
            [init @ .., last] => Some(format!("captures {} and {last}", init.join(", "))),
        }
    }

    fn view(&self) -> View {
        let board = self.board();
        let cells = board
            .cells
            .map(|square| {
                let (x, y) = board.centre(square);
                CellView {
                    name: square.to_string(),
                    x,
                    y,
                    stack: self.piece_at(square).map(Some).into_iter().collect(),
                }
            })
            .collect();
        let config = self.config();
        let seats = (0..2u8)
            .map(|seat| SeatView {
                colour: COLOURS[seat as usize],
                in_hand: config.empty.then(|| self.in_hand(seat) as u32),
                captured: Some((config.pieces - self.pieces_left(seat ^ 1)) as u32),
                range: Some(self.range(seat) as u32),
                ..SeatView::default()
            })
            .collect();
        View {
            board: BoardView {
                shape: board.shape,
                files: board.size,
                ranks: board.size,
                cells,
            },
            seats,
            phase: None,
        }
    }

    fn random_move(&self, rng: &mut Rng) -> Option<Move> {
        self.pick(|count| rng.below(count as usize) as u32)
    }
}

#[cfg(test)]
mod tests;
