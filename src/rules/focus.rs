//! Focus (Sid Sackson, 1983) and Lines of Focus (Luca Cerrato, 2003): stacks
//! on a 52-square board that move as many squares as pieces they carry, drops
//! from reserve, and overflow from the bottom. One position type serves both
//! catalogue games; they differ only in the stack limit ([`Limit`]).

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;

use super::board::{reach, Bitboard, NotationError, Square};
use super::playout::Rng;
use super::{BoardView, EndReason, Outcome, Progress, Rules, Seat, SeatView, View, Winners};

/// Seat colours of the two-player variants, seat 0 first.
pub const TWO_COLOURS: &[&str] = &["red", "green"];
/// Seat colours of the four-player variants, seat 0 first.
pub const FOUR_COLOURS: &[&str] = &["red", "blue", "green", "yellow"];

/// Who plays and how the game opens and ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Two players, two opening swaps.
    Standard,
    /// Two players, no swaps.
    NoSwap,
    /// Four players, each for themselves.
    Four,
    /// Four players, seats 0+2 against 1+3.
    FourTeams,
}

impl Variant {
    fn seats(self) -> u8 {
        match self {
            Variant::Standard | Variant::NoSwap => 2,
            Variant::Four | Variant::FourTeams => 4,
        }
    }

    fn colours(self) -> &'static [&'static str] {
        if self.seats() == 2 {
            TWO_COLOURS
        } else {
            FOUR_COLOURS
        }
    }
}

/// How tall a stack may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// Focus: five pieces.
    Five,
    /// Lines of Focus: the larger of the occupied squares on the stack's rank
    /// and on its file, its own included.
    Lines,
}

/// The 52 squares: rank 1 and 8 `c`…`f`, rank 2 and 7 `b`…`g`, ranks 3–6 whole.
pub const BOARD: Bitboard = Bitboard(0x3c7e_ffff_ffff_7e3c);

const FILE_A: u64 = 0x0101_0101_0101_0101;

/// North, east, south, west as `(file, rank)` steps: the order moves are listed in.
const ORTHOGONAL: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

/// How many steps each square can go in each orthogonal direction and stay on
/// the board. Every rank and file of the board is one unbroken run of squares,
/// so a move passing over anything only needs its landing square on the board.
const REACH: [[u8; 4]; 64] = reach(BOARD, ORTHOGONAL);

/// A move as the notation names it. Swaps keep their squares in order of file
/// then rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// `c3-c5`: the top pieces of `from`, as many as the distance, onto `to`.
    Step { from: Square, to: Square },
    /// `+d4`: one piece from the mover's reserve.
    Drop(Square),
    /// `c3<>d4`: an opening swap of a red and a green piece.
    Swap(Square, Square),
}

fn swap_key(square: Square) -> u8 {
    square.file() * 8 + square.rank()
}

impl Move {
    /// A swap with its squares in canonical order.
    pub fn swap(a: Square, b: Square) -> Move {
        if swap_key(a) <= swap_key(b) {
            Move::Swap(a, b)
        } else {
            Move::Swap(b, a)
        }
    }
}

/// Written through its `Display`.
impl super::Notation for Move {}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Step { from, to } => write!(f, "{from}-{to}"),
            Move::Drop(square) => write!(f, "+{square}"),
            Move::Swap(a, b) => write!(f, "{a}<>{b}"),
        }
    }
}

impl FromStr for Move {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Move, NotationError> {
        let error = || NotationError::new(s, "a move such as c3-c5, a drop such as +d4, or a swap such as c3<>d4");
        if let Some(rest) = s.strip_prefix('+') {
            return rest.parse().map(Move::Drop).map_err(|_| error());
        }
        let (first, rest) = Square::parse_prefix(s).ok_or_else(error)?;
        if rest.is_empty() {
            Ok(Move::Drop(first))
        } else if let Some(second) = rest.strip_prefix("<>") {
            let second: Square = second.parse().map_err(|_| error())?;
            Ok(Move::swap(first, second))
        } else if let Some(to) = rest.strip_prefix('-') {
            let to: Square = to.parse().map_err(|_| error())?;
            Ok(Move::Step { from: first, to })
        } else {
            Err(error())
        }
    }
}

/// Why a well-formed move is not legal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    #[error("{0} is not a square of this board")]
    OffBoard(Square),
    #[error("the game opens with swaps: exchange one red and one green piece, e.g. c3<>d4")]
    SwapFirst,
    #[error("swaps are played only before the first move of the standard game")]
    NoSwapNow,
    #[error("a swap needs two different squares")]
    SwapSameSquare,
    #[error("{0} is empty")]
    Empty(Square),
    #[error("a swap exchanges a red and a green piece, but {0} and {1} are both {2}")]
    SwapSameColour(Square, Square, &'static str),
    #[error("the swap leaves the board symmetric")]
    Symmetric,
    #[error("{square} holds {owner}'s stack")]
    NotYours { square: Square, owner: &'static str },
    #[error("{from}-{to} does not move")]
    NoDistance { from: Square, to: Square },
    #[error("{from}-{to} does not go along a rank or a file")]
    NotStraight { from: Square, to: Square },
    #[error("a stack of {height} cannot move {distance} pieces")]
    TooFar { height: u8, distance: u8 },
    #[error("{0} has no pieces in reserve")]
    NoReserve(&'static str),
}

/// A Focus or Lines of Focus position.
///
/// Each square's stack is `heights[sq]` pieces whose seats are packed two bits
/// each in `pieces[sq]`, bottom piece in the lowest bits. Stored stacks are at
/// most 8 tall (Lines of Focus limits never exceed 8), so a move of up to 8
/// pieces onto one makes at most 16 pieces: 32 bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Focus {
    variant: Variant,
    limit: Limit,
    pieces: [u32; 64],
    heights: [u8; 64],
    occupied: Bitboard,
    /// The stacks each seat commands (its piece on top).
    commands: [Bitboard; 4],
    reserve: [u8; 4],
    /// Pieces of other seats each seat put out of the game.
    captured: [u8; 4],
    /// Bit `s`: seat `s` is out (four-player variants).
    out: u8,
    /// Whose turn it is in the seat order...
    turn: Seat,
    /// ...and who makes it: the same seat, or its partner when it is out
    /// (`four-teams`).
    mover: Seat,
    progress: Progress,
}

impl Focus {
    /// The start position of a variant, with the given stack limit.
    pub fn new(variant: Variant, limit: Limit) -> Focus {
        let layout: [&str; 8] = match variant {
            Variant::Standard | Variant::NoSwap => [
                "........", ".rrvvrr.", ".vvrrvv.", ".rrvvrr.", ".vvrrvv.", ".rrvvrr.", ".vvrrvv.", "........",
            ],
            Variant::Four | Variant::FourTeams => [
                "..bbrg..", ".gggrgr.", "bbbbrgrg", "ggggrgrg", "vbvbvvvv", "vbvbrrrr", ".bvbvvv.", "..vbrr..",
            ],
        };
        let mut position = Focus::empty(variant, limit);
        for (row, text) in layout.iter().enumerate() {
            let rank = 7 - row as u8;
            for (file, letter) in text.bytes().take(8).enumerate() {
                let seat = match (variant.seats(), letter) {
                    (_, b'r') => 0,
                    (2, b'v') | (4, b'b') => 1,
                    (4, b'v') => 2,
                    (4, b'g') => 3,
                    _ => continue,
                };
                position.put(Square::new(file as u8, rank), seat);
            }
        }
        position
    }

    /// An empty board with nobody out, seat 0 to move.
    fn empty(variant: Variant, limit: Limit) -> Focus {
        Focus {
            variant,
            limit,
            pieces: [0; 64],
            heights: [0; 64],
            occupied: Bitboard::EMPTY,
            commands: [Bitboard::EMPTY; 4],
            reserve: [0; 4],
            captured: [0; 4],
            out: 0,
            turn: 0,
            mover: 0,
            progress: Progress::default(),
        }
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The stack on `square`, bottom to top.
    pub fn stack(&self, square: Square) -> ArrayVec<Seat, 16> {
        let bits = self.pieces[square.index()];
        (0..self.heights[square.index()].min(16))
            .map(|i| (bits.wrapping_shr(2 * i as u32) & 3) as Seat)
            .collect()
    }

    /// The stacks `seat` commands (its piece on top).
    pub fn commanded(&self, seat: Seat) -> Bitboard {
        self.commands[seat as usize & 3]
    }

    pub fn reserve(&self, seat: Seat) -> u8 {
        self.reserve[seat as usize & 3]
    }

    pub fn captured(&self, seat: Seat) -> u8 {
        self.captured[seat as usize & 3]
    }

    pub fn is_out(&self, seat: Seat) -> bool {
        self.out & (1 << (seat & 3)) != 0
    }

    fn colour(&self, seat: Seat) -> &'static str {
        self.variant.colours().get(seat as usize).copied().unwrap_or("?")
    }

    fn in_swap_phase(&self) -> bool {
        self.variant == Variant::Standard && self.progress.ply < 2 && self.progress.outcome.is_none()
    }

    fn top(&self, square: Square) -> Option<Seat> {
        let height = self.heights[square.index()];
        (height > 0).then(|| (self.pieces[square.index()].wrapping_shr(2 * (height as u32 - 1)) & 3) as Seat)
    }

    /// Puts one piece of `seat` on top of `square`.
    fn put(&mut self, square: Square, seat: Seat) {
        let i = square.index();
        let height = self.heights[i];
        self.pieces[i] |= (seat as u32 & 3).wrapping_shl(2 * height as u32);
        self.heights[i] = height + 1;
        self.occupied.set(square);
        self.set_commander(square, Some(seat));
    }

    fn set_commander(&mut self, square: Square, seat: Option<Seat>) {
        for commands in &mut self.commands {
            commands.clear(square);
        }
        if let Some(seat) = seat {
            self.commands[seat as usize & 3].set(square);
        }
    }

    fn has_move(&self, seat: Seat) -> bool {
        !self.commands[seat as usize].is_empty() || self.reserve[seat as usize] > 0
    }

    /// The limit of a stack on `square` with the board as it is.
    fn limit_at(&self, square: Square) -> u8 {
        match self.limit {
            Limit::Five => 5,
            Limit::Lines => {
                let rank = (self.occupied.0 >> (8 * square.rank()) & 0xff).count_ones();
                let file = (self.occupied.0 & (FILE_A << square.file())).count_ones();
                rank.max(file) as u8
            }
        }
    }

    /// Cuts the stack on `square` down to `limit` from the bottom: the
    /// commander's own pieces to its reserve, the others out of the game
    /// (counted as put out by the commander). Reports `(square, commander,
    /// to reserve, out)` when anything was removed.
    fn reduce(&mut self, square: Square, limit: u8, report: &mut impl FnMut(Square, Seat, u8, u8)) {
        let i = square.index();
        let height = self.heights[i];
        if height <= limit {
            return;
        }
        let Some(commander) = self.top(square) else {
            return;
        };
        let excess = height - limit;
        let bits = self.pieces[i];
        let mut own = 0;
        for k in 0..excess {
            if (bits.wrapping_shr(2 * k as u32) & 3) as Seat == commander {
                own += 1;
            }
        }
        let others = excess - own;
        self.pieces[i] = bits.checked_shr(2 * excess as u32).unwrap_or(0);
        self.heights[i] = limit;
        self.reserve[commander as usize] = self.reserve[commander as usize].saturating_add(own);
        self.captured[commander as usize] = self.captured[commander as usize].saturating_add(others);
        report(square, commander, own, others);
    }

    /// Plays a legal move, reporting every stack cut down.
    fn apply(&mut self, m: Move, report: &mut impl FnMut(Square, Seat, u8, u8)) {
        let mover = self.mover;
        match m {
            Move::Swap(a, b) => {
                let (ia, ib) = (a.index(), b.index());
                self.pieces.swap(ia, ib);
                self.heights.swap(ia, ib);
                let (ta, tb) = (self.top(a), self.top(b));
                self.set_commander(a, ta);
                self.set_commander(b, tb);
            }
            Move::Drop(square) => {
                self.reserve[mover as usize] = self.reserve[mover as usize].saturating_sub(1);
                self.put(square, mover);
                let limit = self.limit_at(square);
                self.reduce(square, limit, report);
            }
            Move::Step { from, to } => {
                let distance = from.file().abs_diff(to.file()) + from.rank().abs_diff(to.rank());
                let (f, t) = (from.index(), to.index());
                let height = self.heights[f];
                let kept = height.saturating_sub(distance);
                let moving = self.pieces[f].checked_shr(2 * kept as u32).unwrap_or(0);
                self.pieces[f] &= 1u32.checked_shl(2 * kept as u32).unwrap_or(0).wrapping_sub(1);
                self.heights[f] = kept;
                self.pieces[t] |= moving.checked_shl(2 * self.heights[t] as u32).unwrap_or(0);
                self.heights[t] += distance;
                self.occupied.set(to);
                self.set_commander(to, Some(mover));
                let emptied = kept == 0;
                if emptied {
                    self.occupied.clear(from);
                    self.set_commander(from, None);
                } else {
                    let top = self.top(from);
                    self.set_commander(from, top);
                }
                match self.limit {
                    Limit::Five => self.reduce(to, 5, report),
                    Limit::Lines => {
                        // Limits only fall where a square emptied: on the
                        // rank and file of `from`, which hold `to` too.
                        let check = if emptied {
                            Bitboard(self.occupied.0 & ((0xff << (8 * from.rank())) | (FILE_A << from.file())))
                        } else {
                            to.bit()
                        };
                        for square in check {
                            let limit = self.limit_at(square);
                            self.reduce(square, limit, report);
                        }
                    }
                }
            }
        }
        self.progress.ply += 1;
        self.advance();
    }

    /// Passes the turn on: skips players who are out, puts out those who
    /// cannot move, and ends the game when the variant says so.
    fn advance(&mut self) {
        let seats = self.variant.seats();
        let mut slot = self.turn;
        for _ in 0..seats {
            slot = (slot + 1) % seats;
            match self.variant {
                Variant::Standard | Variant::NoSwap => {
                    if self.has_move(slot) {
                        self.turn = slot;
                        self.mover = slot;
                    } else {
                        self.progress.outcome = Some(Outcome::win(1 - slot, EndReason::NoLegalMove));
                    }
                    return;
                }
                Variant::Four => {
                    if self.is_out(slot) {
                        continue;
                    }
                    if self.has_move(slot) {
                        self.turn = slot;
                        self.mover = slot;
                        return;
                    }
                    self.out |= 1 << slot;
                    let left = !self.out & 0b1111;
                    if left.count_ones() == 1 {
                        let winner = left.trailing_zeros() as Seat;
                        self.progress.outcome = Some(Outcome::win(winner, EndReason::LastPlayerStanding));
                        return;
                    }
                }
                Variant::FourTeams => {
                    for seat in [slot, slot ^ 2] {
                        if self.is_out(seat) {
                            continue;
                        }
                        if self.has_move(seat) {
                            self.turn = slot;
                            self.mover = seat;
                            return;
                        }
                        self.out |= 1 << seat;
                    }
                    self.progress.outcome = Some(Outcome {
                        winners: Winners::seats(&[slot ^ 1, slot ^ 3]),
                        reason: EndReason::OpponentsOut,
                    });
                    return;
                }
            }
        }
    }

    /// The red and green pieces as two sets (the swap phase has only single
    /// pieces).
    fn two_colour_layout(&self) -> (u64, u64) {
        (self.commands[0].0, self.commands[1].0)
    }

    /// Whether the layout after swapping `a` and `b` (a red and a green
    /// single piece) is symmetric.
    fn swap_is_symmetric(&self, a: Square, b: Square) -> bool {
        let (red, green) = self.two_colour_layout();
        let both = a.bit().0 | b.bit().0;
        is_symmetric(red ^ both, green ^ both)
    }

    fn legal_swap(&self, a: Square, b: Square) -> Result<Move, Illegal> {
        for square in [a, b] {
            if !BOARD.contains(square) {
                return Err(Illegal::OffBoard(square));
            }
        }
        if a == b {
            return Err(Illegal::SwapSameSquare);
        }
        let (ta, tb) = (self.top(a), self.top(b));
        match (ta, tb) {
            (None, _) => Err(Illegal::Empty(a)),
            (_, None) => Err(Illegal::Empty(b)),
            (Some(x), Some(y)) if x == y => Err(Illegal::SwapSameColour(a, b, self.colour(x))),
            _ if self.swap_is_symmetric(a, b) => Err(Illegal::Symmetric),
            _ => Ok(Move::swap(a, b)),
        }
    }

    fn legal_swaps(&self, moves: &mut MoveList) {
        for a in self.occupied {
            for b in self.occupied {
                if swap_key(a) < swap_key(b) && self.legal_swap(a, b).is_ok() {
                    moves.push(Move::Swap(a, b));
                }
            }
        }
    }

    /// The number of steps the mover has (drops aside).
    fn step_count(&self) -> usize {
        self.commands[self.mover as usize]
            .map(|from| {
                let height = self.heights[from.index()];
                REACH[from.index()]
                    .iter()
                    .map(|&r| r.min(height) as usize)
                    .sum::<usize>()
            })
            .sum()
    }
}

/// Is a two-colour layout unchanged by one of the 7 non-trivial symmetries of
/// the board, with or without exchanging the colours?
fn is_symmetric(red: u64, green: u64) -> bool {
    (1..8).any(|symmetry| {
        let (r, g) = (transform(red, symmetry), transform(green, symmetry));
        (r == red && g == green) || (r == green && g == red)
    })
}

/// One of the 8 symmetries of the square board: bit 0 transposes (a1-h8
/// diagonal), bit 1 flips the ranks, bit 2 flips the files, applied files
/// first. The 52-square board is unchanged by all of them.
fn transform(mut bits: u64, symmetry: u8) -> u64 {
    if symmetry & 4 != 0 {
        bits = bits.reverse_bits().swap_bytes();
    }
    if symmetry & 2 != 0 {
        bits = bits.swap_bytes();
    }
    if symmetry & 1 != 0 {
        bits = transpose(bits);
    }
    bits
}

/// Mirrors a set of squares in the a1-h8 diagonal (file and rank exchanged).
fn transpose(mut x: u64) -> u64 {
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0f0f_0f0f_0000_0000;
    let mut t = K4 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    t = K2 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    t = K1 & (x ^ (x << 7));
    x ^= t ^ (t >> 7);
    x
}

/// Worst case: the swap phase offers at most 18 × 18 = 324 red-green pairs.
/// In play, a stack of height h has at most min(4h, 14) steps (a rank or file
/// holds at most 8 squares), so all 52 pieces give at most 208 steps, plus 52
/// drops: 260.
pub type MoveList = ArrayVec<Move, 324>;

impl Rules for Focus {
    type Move = Move;
    type MoveList = MoveList;
    type Illegal = Illegal;

    /// In the team game the conceding seat's partner loses with it; in the
    /// free-for-all those already out win nothing.
    fn winners_if_conceded(&self, seat: Seat, seats: u8) -> Winners {
        match self.variant {
            Variant::FourTeams => Winners::seats(&[(seat + 1) % 4, (seat + 3) % 4]),
            Variant::Four => {
                let left: ArrayVec<Seat, 4> = (0..4).filter(|&s| s != seat && !self.is_out(s)).collect();
                Winners::seats(&left)
            }
            _ => Winners::all_but(seat, seats),
        }
    }

    /// Four players each for themselves: the seat is out, skipped like a
    /// blocked one, and the last one left wins. The turn passes on only if
    /// it was the conceding seat's.
    fn play_on_without(&mut self, seat: Seat) -> bool {
        if self.variant != Variant::Four || seat >= 4 {
            return false;
        }
        self.out |= 1 << seat;
        self.progress.ply += 1;
        let left = !self.out & 0b1111;
        if left.count_ones() == 1 {
            let winner = left.trailing_zeros() as Seat;
            self.progress.outcome = Some(Outcome::win(winner, EndReason::LastPlayerStanding));
        } else if self.turn == seat {
            self.advance();
        }
        true
    }

    fn is_out(&self, seat: Seat) -> bool {
        Focus::is_out(self, seat)
    }

    fn mover(&self) -> Seat {
        self.mover
    }

    fn progress(&self) -> &Progress {
        &self.progress
    }

    fn legal_moves_in_play(&self, moves: &mut MoveList) {
        if self.in_swap_phase() {
            self.legal_swaps(moves);
            return;
        }
        let mover = self.mover as usize;
        for from in self.commands[mover] {
            let height = self.heights[from.index()];
            for (dir, &(df, dr)) in ORTHOGONAL.iter().enumerate() {
                for distance in 1..=REACH[from.index()][dir].min(height) as i8 {
                    if let Some(to) = from.offset(df * distance, dr * distance) {
                        moves.push(Move::Step { from, to });
                    }
                }
            }
        }
        if self.reserve[mover] > 0 {
            moves.extend(BOARD.map(Move::Drop));
        }
    }

    fn legalize(&self, m: Move) -> Result<Move, Illegal> {
        let swapping = self.in_swap_phase();
        match m {
            Move::Swap(a, b) if swapping => self.legal_swap(a, b),
            Move::Swap(..) => Err(Illegal::NoSwapNow),
            _ if swapping => Err(Illegal::SwapFirst),
            Move::Drop(square) => {
                if !BOARD.contains(square) {
                    Err(Illegal::OffBoard(square))
                } else if self.reserve[self.mover as usize] == 0 {
                    Err(Illegal::NoReserve(self.colour(self.mover)))
                } else {
                    Ok(m)
                }
            }
            Move::Step { from, to } => {
                for square in [from, to] {
                    if !BOARD.contains(square) {
                        return Err(Illegal::OffBoard(square));
                    }
                }
                let Some(owner) = self.top(from) else {
                    return Err(Illegal::Empty(from));
                };
                if owner != self.mover {
                    return Err(Illegal::NotYours {
                        square: from,
                        owner: self.colour(owner),
                    });
                }
                if from == to {
                    return Err(Illegal::NoDistance { from, to });
                }
                if from.file() != to.file() && from.rank() != to.rank() {
                    return Err(Illegal::NotStraight { from, to });
                }
                let distance = from.file().abs_diff(to.file()) + from.rank().abs_diff(to.rank());
                let height = self.heights[from.index()];
                if distance > height {
                    return Err(Illegal::TooFar { height, distance });
                }
                Ok(m)
            }
        }
    }

    fn play_unchecked(&mut self, m: Move) {
        self.apply(m, &mut |_, _, _, _| {});
    }

    fn describe(&self, m: Move) -> Option<String> {
        let mut after = self.clone();
        let mut parts = Vec::new();
        after.apply(m, &mut |square, commander, own, others| {
            let mut removed = Vec::new();
            if own > 0 {
                removed.push(format!("{own} to {}'s reserve", self.colour(commander)));
            }
            if others > 0 {
                removed.push(format!("{others} out of the game"));
            }
            parts.push(format!("{square} overflows: {}", removed.join(", ")));
        });
        for seat in 0..self.variant.seats() {
            if after.is_out(seat) && !self.is_out(seat) {
                parts.push(format!("{} is out", self.colour(seat)));
            }
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    fn view(&self) -> View {
        let four = self.variant.seats() == 4;
        View {
            board: BoardView::of_squares(8, 8, BOARD, |square| self.stack(square).into_iter().map(Some).collect()),
            seats: (0..self.variant.seats())
                .map(|seat| SeatView {
                    colour: self.colour(seat),
                    in_hand: Some(self.reserve(seat) as u32),
                    captured: Some(self.captured(seat) as u32),
                    out: four && self.is_out(seat),
                    ..SeatView::default()
                })
                .collect(),
            phase: self.in_swap_phase().then_some("swap"),
        }
    }

    fn random_move(&self, rng: &mut Rng) -> Option<Move> {
        if self.progress.outcome.is_some() {
            return None;
        }
        if self.in_swap_phase() {
            // Pick a red and a green piece until the swap is not symmetric:
            // uniform over the legal swaps. Few swaps are symmetric; after a
            // run of bad luck fall back to the full list.
            let (red, green) = self.two_colour_layout();
            let (red, green) = (Bitboard(red), Bitboard(green));
            for _ in 0..32 {
                let a = red.nth(rng.below(red.count() as usize) as u32)?;
                let b = green.nth(rng.below(green.count() as usize) as u32)?;
                if !self.swap_is_symmetric(a, b) {
                    return Some(Move::swap(a, b));
                }
            }
            let mut moves = MoveList::new();
            self.legal_swaps(&mut moves);
            return (!moves.is_empty()).then(|| moves[rng.below(moves.len())]);
        }
        let steps = self.step_count();
        let drops = if self.reserve[self.mover as usize] > 0 {
            BOARD.count() as usize
        } else {
            0
        };
        if steps + drops == 0 {
            return None;
        }
        let mut pick = rng.below(steps + drops);
        if pick >= steps {
            return BOARD.nth((pick - steps) as u32).map(Move::Drop);
        }
        for from in self.commands[self.mover as usize] {
            let height = self.heights[from.index()];
            for (dir, &(df, dr)) in ORTHOGONAL.iter().enumerate() {
                let count = REACH[from.index()][dir].min(height) as usize;
                if pick < count {
                    let distance = pick as i8 + 1;
                    return from
                        .offset(df * distance, dr * distance)
                        .map(|to| Move::Step { from, to });
                }
                pick -= count;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{assert_notation, legal, put_stacks, sq};

    /// A position built square by square: `stacks` lists `square:seats`
    /// bottom to top, e.g. `c3:010`.
    fn setup(variant: Variant, limit: Limit, stacks: &str) -> Focus {
        let mut game = Focus::empty(variant, limit);
        if variant == Variant::Standard {
            game.progress.ply = 2;
        }
        put_stacks(stacks, |square, seat| game.put(square, seat));
        game
    }

    fn stack_of(game: &Focus, square: &str) -> Vec<Seat> {
        game.stack(sq(square)).to_vec()
    }

    /// Checks that each move is refused, in player terms, with its message.
    fn assert_refused(game: &mut Focus, refusals: &[(&str, &dyn std::fmt::Display)]) {
        for (notation, message) in refusals {
            let refusal = game.play_str(notation).unwrap_err();
            assert_eq!(refusal.to_string(), message.to_string(), "{notation}");
        }
    }

    /// Checks every square of the board against a layout drawn rank 8 first.
    fn assert_layout(game: &Focus, rows: [&str; 8], letters: &str) {
        for (row, text) in rows.iter().enumerate() {
            let cells: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(cells.len(), 8, "{text}");
            for (file, cell) in cells.iter().enumerate() {
                let square = Square::new(file as u8, 7 - row as u8);
                let expected: Vec<Seat> = match *cell {
                    "." | " " | "_" => vec![],
                    letter => vec![letters.find(letter).unwrap() as Seat],
                };
                if *cell == "_" {
                    assert!(!BOARD.contains(square), "{square} should be a hole");
                } else {
                    assert!(BOARD.contains(square), "{square} should be on the board");
                }
                assert_eq!(game.stack(square).to_vec(), expected, "{square}");
            }
        }
    }

    #[test]
    fn board_has_52_squares_and_corners_cut() {
        assert_eq!(BOARD.count(), 52);
        for hole in ["a1", "b1", "a2", "g1", "h1", "h2", "a7", "a8", "b8", "g8", "h8", "h7"] {
            assert!(!BOARD.contains(sq(hole)), "{hole}");
        }
        for square in ["c1", "f1", "b2", "g2", "a3", "h6", "b7", "c8", "f8"] {
            assert!(BOARD.contains(sq(square)), "{square}");
        }
    }

    #[test]
    fn two_player_start_layout_square_by_square() {
        for variant in [Variant::Standard, Variant::NoSwap] {
            for limit in [Limit::Five, Limit::Lines] {
                let game = Focus::new(variant, limit);
                assert_layout(
                    &game,
                    [
                        "_ _ . . . . _ _",
                        "_ r r v v r r _",
                        ". v v r r v v .",
                        ". r r v v r r .",
                        ". v v r r v v .",
                        ". r r v v r r .",
                        "_ v v r r v v _",
                        "_ _ . . . . _ _",
                    ],
                    "rv",
                );
                assert_eq!(game.commands[0].count(), 18);
                assert_eq!(game.commands[1].count(), 18);
                assert_eq!(game.to_move(), Some(0));
            }
        }
    }

    #[test]
    fn four_player_start_layout_square_by_square() {
        for variant in [Variant::Four, Variant::FourTeams] {
            let game = Focus::new(variant, Limit::Five);
            assert_layout(
                &game,
                [
                    "_ _ b b r g _ _",
                    "_ g g g r g r _",
                    "b b b b r g r g",
                    "g g g g r g r g",
                    "v b v b v v v v",
                    "v b v b r r r r",
                    "_ b v b v v v _",
                    "_ _ v b r r _ _",
                ],
                "rbvg",
            );
            assert_eq!(game.occupied, BOARD);
            for seat in 0..4 {
                assert_eq!(game.commands[seat].count(), 13);
            }
        }
    }

    #[test]
    fn notation_parses_every_alias_and_prints_canonically() {
        assert_notation::<Move>(&[
            ("c3-c5", "c3-c5"),
            ("C3-C5", "c3-c5"),
            ("+d4", "+d4"),
            ("d4", "+d4"),
            ("+D4", "+d4"),
            ("c3<>d4", "c3<>d4"),
            ("d4<>c3", "c3<>d4"),
            ("b7<>g2", "b7<>g2"),
            ("G2<>B7", "b7<>g2"),
            ("c5<>c3", "c3<>c5"),
        ]);
        for bad in [
            "",
            "+",
            "c3-",
            "c3<>",
            "c3<d4",
            "c3x",
            "c3--c5",
            "++d4",
            "i3",
            "c9-c5",
            "c3-c5 ",
            "c3<>d4<>e5",
        ] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
    }

    #[test]
    fn start_of_the_standard_game_is_the_swap_phase() {
        let mut game = Focus::new(Variant::Standard, Limit::Five);
        assert_eq!(game.view().phase, Some("swap"));
        assert_refused(
            &mut game,
            &[
                ("c3-c4", &Illegal::SwapFirst),
                ("+c3", &Illegal::SwapFirst),
                // The swap that keeps 180° symmetry with colours exchanged.
                ("b7<>g2", &"the swap leaves the board symmetric"),
                ("g2<>b7", &"the swap leaves the board symmetric"),
                // b7 with b2 is the mirror in the ranks, colours exchanged: also refused.
                ("b2<>b7", &"the swap leaves the board symmetric"),
                (
                    "b7<>c7",
                    &"a swap exchanges a red and a green piece, but b7 and c7 are both red",
                ),
                ("c1<>c3", &"c1 is empty"),
                ("a1<>c3", &"a1 is not a square of this board"),
                ("c3<>c3", &"a swap needs two different squares"),
            ],
        );
        // 18 × 18 pairs, less the 18 mirror pairs in the ranks and the 18
        // pairs 180° apart: the start is mirror-symmetric in the files, so no
        // swap keeps that symmetry.
        assert_eq!(legal(&game).len(), 324 - 36);
        assert_eq!(game.play_str("D3<>d2").unwrap().to_string(), "d2<>d3");
        assert_eq!(stack_of(&game, "d2"), vec![1]);
        assert_eq!(stack_of(&game, "d3"), vec![0]);
        assert_eq!(game.to_move(), Some(1));
        assert_eq!(game.view().phase, Some("swap"));
        // Green swapping back would restore the symmetric start.
        assert_eq!(
            game.play_str("d3<>d2").unwrap_err(),
            crate::rules::PlayError::Illegal(Illegal::Symmetric)
        );
        game.play_str("f7<>e7").unwrap();
        assert_eq!(stack_of(&game, "e7"), vec![0]);
        assert_eq!(game.view().phase, None);
        assert_eq!(game.to_move(), Some(0));
        assert_eq!(
            game.play_str("c3<>d4").unwrap_err().to_string(),
            Illegal::NoSwapNow.to_string()
        );
        assert!(game.play_str("d3-d4").is_ok());
        assert_eq!(game.to_move(), Some(1));
    }

    #[test]
    fn symmetries_are_the_eight_of_the_square() {
        let naive = |bits: u64, f: fn(u8, u8) -> (u8, u8)| {
            Square::all()
                .filter(|s| bits & s.bit().0 != 0)
                .map(|s| {
                    let (file, rank) = f(s.file(), s.rank());
                    Square::new(file, rank).bit().0
                })
                .fold(0, |a, b| a | b)
        };
        let bits = 0x0123_4567_89ab_cdefu64;
        assert_eq!(transform(bits, 1), naive(bits, |f, r| (r, f)));
        assert_eq!(transform(bits, 2), naive(bits, |f, r| (f, 7 - r)));
        assert_eq!(transform(bits, 4), naive(bits, |f, r| (7 - f, r)));
        let images: std::collections::HashSet<u64> = (0..8).map(|s| transform(bits, s)).collect();
        assert_eq!(images.len(), 8);
        for s in 0..8 {
            assert_eq!(transform(BOARD.0, s), BOARD.0);
        }
    }

    #[test]
    fn partial_stack_moves_pass_over_anything() {
        // Red commands a stack of 3 on c3 (green, green, red... red on top).
        let game = setup(Variant::NoSwap, Limit::Five, "c3:110 c4:1 c5:01 d3:1 f3:1");
        let moves = legal(&game);
        // One, two or three pieces, as far as pieces carried, over c4 and c5.
        for m in [
            "c3-c4", "c3-c5", "c3-c6", "c3-d3", "c3-e3", "c3-f3", "c3-b3", "c3-a3", "c3-c2", "c3-c1",
        ] {
            assert!(moves.contains(&m.to_string()), "{m} missing from {moves:?}");
        }
        // b3-a3 is 2 west; 3 west is off the board; c0 does not exist.
        assert_eq!(moves.len(), 10);
        let mut after = game.clone();
        after.play_str("c3-c5").unwrap();
        assert_eq!(stack_of(&after, "c3"), vec![1]);
        assert_eq!(stack_of(&after, "c5"), vec![0, 1, 1, 0]);
        assert!(after.commands[1].contains(sq("c3")));
        assert!(after.commands[0].contains(sq("c5")));
        let mut after = game.clone();
        after.play_str("c3-f3").unwrap();
        assert_eq!(stack_of(&after, "f3"), vec![1, 1, 1, 0]);
        assert!(after.stack(sq("c3")).is_empty());
        assert!(!after.occupied.contains(sq("c3")));
        // Errors in player terms.
        let mut game = game;
        assert_refused(
            &mut game,
            &[
                ("c3-c7", &"a stack of 3 cannot move 4 pieces"),
                ("c4-c5", &"c4 holds green's stack"),
                ("e4-e5", &"e4 is empty"),
                ("c3-d4", &"c3-d4 does not go along a rank or a file"),
                ("c3-c3", &"c3-c3 does not move"),
                ("c3-a1", &"a1 is not a square of this board"),
                ("+d4", &"red has no pieces in reserve"),
                ("c3<>d3", &Illegal::NoSwapNow),
            ],
        );
    }

    #[test]
    fn overflow_sends_own_pieces_to_reserve_and_others_out() {
        // Red moves 2 from c3 onto a stack of 4 on e3: 6 pieces, 1 too many,
        // and the bottom one is red's.
        let mut game = setup(Variant::NoSwap, Limit::Five, "c3:00 e3:0110 g6:1");
        assert_eq!(
            game.describe("c3-e3".parse().unwrap()),
            Some("e3 overflows: 1 to red's reserve".into())
        );
        game.play_str("c3-e3").unwrap();
        assert_eq!(stack_of(&game, "e3"), vec![1, 1, 0, 0, 0]);
        assert_eq!(game.reserve(0), 1);
        assert_eq!(game.captured(0), 0);
        game.play_str("g6-g5").unwrap();
        // Red drops on e3: the bottom piece, green's, leaves the game.
        assert_eq!(
            game.describe("+e3".parse().unwrap()),
            Some("e3 overflows: 1 out of the game".into())
        );
        game.play_str("e3").unwrap();
        assert_eq!(stack_of(&game, "e3"), vec![1, 0, 0, 0, 0]);
        assert_eq!(game.reserve(0), 0);
        assert_eq!(game.captured(0), 1);
        let view = game.view();
        assert_eq!(view.seats[0].captured, Some(1));
        assert_eq!(view.seats[0].in_hand, Some(0));
        // A stack of 5 moving 5 onto a stack of 5: five leave from the bottom,
        // red's to red's reserve and green's out.
        let mut game = setup(Variant::NoSwap, Limit::Five, "c3:10101 c8:01010 g5:1");
        assert_eq!(
            game.describe("c8-c3".parse().unwrap()),
            Some("c3 overflows: 2 to red's reserve, 3 out of the game".into())
        );
        game.play_str("c8-c3").unwrap();
        assert_eq!(stack_of(&game, "c3"), vec![0, 1, 0, 1, 0]);
        assert_eq!((game.reserve(0), game.captured(0)), (2, 3));
        // Four teams: a partner's pieces leave the game too.
        let mut game = setup(Variant::FourTeams, Limit::Five, "d4:22220 d5:0 f6:1 f3:3");
        game.play_str("d5-d4").unwrap();
        assert_eq!(stack_of(&game, "d4"), vec![2, 2, 2, 0, 0]);
        assert_eq!((game.reserve(0), game.captured(0), game.reserve(2)), (0, 1, 0));
    }

    #[test]
    fn drops_go_on_any_square_empty_or_not() {
        let mut game = setup(Variant::NoSwap, Limit::Five, "c3:1 f6:0");
        game.reserve[0] = 2;
        let moves = legal(&game);
        assert_eq!(moves.iter().filter(|m| m.starts_with('+')).count(), 52);
        game.play_str("+c3").unwrap();
        assert_eq!(stack_of(&game, "c3"), vec![1, 0]);
        assert_eq!(game.reserve(0), 1);
        // Green commands nothing and has no reserve: red wins.
        assert_eq!(game.outcome(), Some(Outcome::win(0, EndReason::NoLegalMove)));
        assert!(legal(&game).is_empty());
        assert_eq!(game.to_move(), None);
    }

    #[test]
    fn a_player_with_only_a_reserve_can_still_drop() {
        let mut game = setup(Variant::NoSwap, Limit::Five, "c3:1 c4:0 f6:0");
        game.reserve[1] = 1;
        game.play_str("c4-c3").unwrap();
        assert_eq!(game.outcome(), None);
        assert_eq!(game.to_move(), Some(1));
        assert_eq!(legal(&game).len(), 52);
        game.play_str("+c3").unwrap();
        assert_eq!(stack_of(&game, "c3"), vec![1, 0, 1]);
        assert_eq!(game.to_move(), Some(0));
    }

    #[test]
    fn lines_of_focus_limits_follow_ranks_and_files() {
        // The seed's example, placed on d3-f6: x (red) on d4; its file holds
        // 3 occupied squares, its rank 2: the limit is 3.
        let game = setup(Variant::NoSwap, Limit::Lines, "d6:1 f6:1 d4:0 f4:1 d3:1");
        assert_eq!(game.limit_at(sq("d4")), 3);
        assert_eq!(game.limit_at(sq("f6")), 2);
        // A stack of 2 that moves to an empty rank and file is cut to 1.
        let mut game = setup(Variant::NoSwap, Limit::Lines, "d4:10 d5:1 h5:1");
        assert_eq!(
            game.describe("d4-b4".parse().unwrap()),
            Some("b4 overflows: 1 out of the game".into())
        );
        game.play_str("d4-b4").unwrap();
        assert_eq!(stack_of(&game, "b4"), vec![0]);
        assert_eq!(game.captured(0), 1);
        // The same move in Focus keeps both pieces.
        let mut game = setup(Variant::NoSwap, Limit::Five, "d4:10 d5:1 h5:1");
        game.play_str("d4-b4").unwrap();
        assert_eq!(stack_of(&game, "b4"), vec![1, 0]);
    }

    #[test]
    fn lines_of_focus_reduces_stacks_that_did_not_move() {
        // Green's stack of 3 on d5 is allowed 3 by its file (d3 d5 d6). When
        // red's d3 leaves the file, the file holds 2 and d5's rank 1: d5 is
        // cut to 2, and the red piece at its bottom leaves the game.
        let mut game = setup(Variant::NoSwap, Limit::Lines, "d5:011 d3:0 d6:1 g4:1");
        assert_eq!(game.limit_at(sq("d5")), 3);
        assert_eq!(
            game.describe("d3-e3".parse().unwrap()),
            Some("d5 overflows: 1 out of the game".into())
        );
        game.play_str("d3-e3").unwrap();
        assert_eq!(stack_of(&game, "d5"), vec![1, 1]);
        assert_eq!(game.captured(1), 1, "the piece out counts for d5's commander");
        assert_eq!(game.captured(0), 0);
        // Own pieces of the reduced stack's commander go to its reserve.
        let mut game = setup(Variant::NoSwap, Limit::Lines, "d5:101 d3:0 d6:1 g4:1");
        game.play_str("d3-e3").unwrap();
        assert_eq!(stack_of(&game, "d5"), vec![0, 1]);
        assert_eq!(game.reserve(1), 1);
        // A drop only raises limits: nothing else is cut.
        let mut game = setup(Variant::NoSwap, Limit::Lines, "d5:01 d6:1 g4:1");
        game.reserve[0] = 1;
        game.play_str("+d4").unwrap();
        assert_eq!(stack_of(&game, "d5"), vec![0, 1]);
        assert_eq!(game.limit_at(sq("d5")), 3);
    }

    #[test]
    fn lines_of_focus_limits_hold_after_every_move_of_random_games() {
        for variant in [Variant::NoSwap, Variant::Four, Variant::FourTeams, Variant::Standard] {
            let mut rng = Rng::new(11);
            for _ in 0..20 {
                let mut game = Focus::new(variant, Limit::Lines);
                while let Some(m) = game.random_move(&mut rng) {
                    game.play_unchecked(m);
                    for square in game.occupied {
                        let height = game.heights[square.index()];
                        assert!(height >= 1 && height <= game.limit_at(square), "{square} after {m}");
                    }
                    if game.progress.ply > 300 {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn focus_stacks_never_exceed_five_and_pieces_are_conserved() {
        for variant in [Variant::Standard, Variant::NoSwap, Variant::Four, Variant::FourTeams] {
            let mut rng = Rng::new(5);
            for _ in 0..20 {
                let mut game = Focus::new(variant, Limit::Five);
                let total = if variant.seats() == 2 { 36 } else { 52 };
                while let Some(m) = game.random_move(&mut rng) {
                    game.play_unchecked(m);
                    let on_board: u32 = game.occupied.map(|s| game.heights[s.index()] as u32).sum();
                    let off: u32 = (0..4).map(|s| game.reserve[s] as u32 + game.captured[s] as u32).sum();
                    assert_eq!(on_board + off, total);
                    assert!({ game.occupied }.all(|s| game.heights[s.index()] <= 5));
                    if game.progress.ply > 300 {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn random_moves_are_legal_moves() {
        for (variant, limit) in [(Variant::Standard, Limit::Five), (Variant::Four, Limit::Lines)] {
            let mut rng = Rng::new(3);
            let mut game = Focus::new(variant, limit);
            while let Some(m) = game.random_move(&mut rng) {
                let moves = legal(&game);
                assert!(moves.contains(&m.to_string()));
                assert_eq!(game.legalize(m), Ok(m));
                game.play_unchecked(m);
                if game.progress.ply > 200 {
                    break;
                }
            }
        }
    }

    #[test]
    fn four_players_take_turns_in_seat_order() {
        let mut game = Focus::new(Variant::Four, Limit::Five);
        for (seat, m) in [(0, "e8-e7"), (1, "c8-c7"), (2, "c1-c2"), (3, "f8-f7"), (0, "e6-e5")] {
            assert_eq!(game.to_move(), Some(seat));
            game.play_str(m).unwrap();
        }
        assert_eq!(
            game.play_str("c3-c4").unwrap_err().to_string(),
            "c3 holds green's stack"
        );
    }

    #[test]
    fn four_players_eliminated_players_are_skipped_for_good() {
        // Red covers blue's only piece: blue is out at once, green moves next.
        let mut game = setup(Variant::Four, Limit::Five, "c3:0 c4:1 e5:2 g5:3");
        assert_eq!(game.describe("c3-c4".parse().unwrap()), Some("blue is out".into()));
        game.play_str("c3-c4").unwrap();
        assert!(game.is_out(1));
        assert!(game.view().seats[1].out);
        assert_eq!(game.to_move(), Some(2));
        game.play_str("e5-e4").unwrap();
        assert_eq!(game.to_move(), Some(3));
        game.play_str("g5-g4").unwrap();
        assert_eq!(game.to_move(), Some(0));
        // Red leaves c4: blue's piece is on top again, but blue stays out.
        game.play_str("c4-c5").unwrap();
        assert!(game.commands[1].contains(sq("c4")));
        assert_eq!(game.to_move(), Some(2));
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn four_players_a_scripted_game_until_three_are_out() {
        // Red (c3), blue (c5), green (f3), yellow (f6), one piece each.
        let mut game = setup(Variant::Four, Limit::Five, "c3:0 c5:1 f3:2 f6:3");
        game.play_str("c3-c4").unwrap(); // red
        game.play_str("c5-c4").unwrap(); // blue covers red's only piece
        assert_eq!(game.to_move(), Some(2));
        assert!(!game.is_out(0), "red is out only when its turn comes");
        game.play_str("f3-f4").unwrap(); // green
        game.play_str("f6-f5").unwrap(); // yellow; red's turn: red is out
        assert!(game.is_out(0));
        assert_eq!(game.to_move(), Some(1));
        game.play_str("c4-e4").unwrap(); // blue moves its stack of 2 two squares
        game.play_str("f4-e4").unwrap(); // green covers it
        assert_eq!(game.to_move(), Some(3));
        game.play_str("f5-f4").unwrap(); // yellow; blue's turn: blue is out
        assert!(game.is_out(1));
        assert_eq!(game.to_move(), Some(2));
        assert_eq!(game.outcome(), None);
        game.play_str("e4-e1").unwrap(); // green moves all 3 pieces 3 squares
        assert_eq!(
            game.play_str("f4-f1").unwrap_err().to_string(),
            "a stack of 1 cannot move 3 pieces"
        );
        game.play_str("f4-f3").unwrap(); // yellow
        game.play_str("e1-e2").unwrap(); // green takes its top piece off
        assert_eq!(game.to_move(), Some(3), "blue's e1 is on top, blue is skipped");
        game.play_str("f3-e3").unwrap(); // yellow
        game.play_str("e2-e3").unwrap(); // green covers yellow's only piece
        assert!(game.is_out(3));
        assert_eq!(game.outcome(), Some(Outcome::win(2, EndReason::LastPlayerStanding)));
        assert_eq!(game.to_move(), None);
        assert!(legal(&game).is_empty());
    }

    #[test]
    fn four_players_random_games_end_with_the_last_player_standing() {
        let mut rng = Rng::new(2024);
        let mut finished = 0;
        for _ in 0..10 {
            let mut game = Focus::new(Variant::Four, Limit::Five);
            let mut out_order = Vec::new();
            while let Some(m) = game.random_move(&mut rng) {
                let seat = game.to_move().unwrap();
                assert!(!game.is_out(seat), "an out seat never moves");
                game.play_unchecked(m);
                for s in 0..4 {
                    if game.is_out(s) && !out_order.contains(&s) {
                        out_order.push(s);
                    }
                }
                if game.progress.ply > 20_000 {
                    break;
                }
            }
            if let Some(outcome) = game.outcome() {
                finished += 1;
                assert_eq!(out_order.len(), 3);
                let winner = (0..4).find(|s| !out_order.contains(s)).unwrap();
                assert_eq!(outcome, Outcome::win(winner, EndReason::LastPlayerStanding));
                assert!(legal(&game).is_empty());
            }
        }
        assert!(finished > 0);
    }

    #[test]
    fn team_partner_moves_in_the_turn_of_the_player_who_is_out() {
        // Teams: red (0) and green (2) against blue (1) and yellow (3).
        let mut game = setup(Variant::FourTeams, Limit::Five, "c3:0 c4:2 c5:1 g6:3 g3:3");
        game.play_str("c3-d3").unwrap(); // red
        assert_eq!(game.to_move(), Some(1));
        assert_eq!(game.describe("c5-c4".parse().unwrap()), Some("green is out".into()));
        game.play_str("c5-c4").unwrap(); // blue covers green's only piece
        assert!(game.is_out(2));
        assert_eq!(game.to_move(), Some(0), "red moves in green's turn");
        assert_eq!(game.turn, 2);
        game.play_str("d3-e3").unwrap();
        assert_eq!(game.to_move(), Some(3));
        game.play_str("g6-g5").unwrap();
        assert_eq!(game.to_move(), Some(0), "red's own turn");
        game.play_str("e3-e4").unwrap();
        assert_eq!(game.to_move(), Some(1));
        game.play_str("c4-c5").unwrap(); // green's piece is on top again on c4
        assert!(game.commands[2].contains(sq("c4")));
        assert_eq!(game.to_move(), Some(0), "green stays out: red moves in its turn again");
        game.play_str("e4-d4").unwrap();
        game.play_str("g5-f5").unwrap(); // yellow
        game.play_str("d4-d5").unwrap(); // red, its own turn
        assert_eq!(game.outcome(), None);
        game.play_str("c5-d5").unwrap(); // blue covers red's only piece
        assert_eq!(
            game.outcome(),
            Some(Outcome {
                winners: Winners::seats(&[1, 3]),
                reason: EndReason::OpponentsOut
            })
        );
        assert!(game.is_out(0) && game.is_out(2));
        assert!(legal(&game).is_empty());
        assert_eq!(game.to_move(), None);
    }

    #[test]
    fn team_random_games_end_with_a_team_winning() {
        let mut rng = Rng::new(77);
        let mut finished = 0;
        for _ in 0..10 {
            let mut game = Focus::new(Variant::FourTeams, Limit::Lines);
            while let Some(m) = game.random_move(&mut rng) {
                let seat = game.to_move().unwrap();
                assert!(!game.is_out(seat));
                assert!(seat == game.turn || (game.is_out(game.turn) && seat == game.turn ^ 2));
                game.play_unchecked(m);
                if game.progress.ply > 20_000 {
                    break;
                }
            }
            if let Some(outcome) = game.outcome() {
                finished += 1;
                let losers = [0, 1]
                    .into_iter()
                    .find(|&s| game.is_out(s) && game.is_out(s ^ 2))
                    .unwrap();
                assert_eq!(outcome.winners, Winners::seats(&[losers ^ 1, losers ^ 3]));
            }
        }
        assert!(finished > 0);
    }

    #[test]
    fn view_lists_the_52_cells_and_the_seats() {
        let game = Focus::new(Variant::Four, Limit::Five);
        let view = game.view();
        assert_eq!(view.board.cells.len(), 52);
        let c1 = view.board.cells.iter().find(|c| c.name == "c1").unwrap();
        assert_eq!((c1.x, c1.y), (2.5, 7.5));
        assert_eq!(c1.stack, vec![Some(2)]);
        assert_eq!(view.seats.len(), 4);
        assert_eq!(view.seats[3].colour, "yellow");
        assert_eq!(view.phase, None);
    }

    #[test]
    fn a_conceding_seat_takes_its_partner_down_only_in_the_team_game() {
        let teams = Focus::new(Variant::FourTeams, Limit::Five);
        assert_eq!(teams.winners_if_conceded(0, 4), Winners::seats(&[1, 3]));
        assert_eq!(teams.winners_if_conceded(3, 4), Winners::seats(&[0, 2]));
        let free_for_all = Focus::new(Variant::Four, Limit::Five);
        assert_eq!(free_for_all.winners_if_conceded(1, 4), Winners::seats(&[0, 2, 3]));
        let two = Focus::new(Variant::NoSwap, Limit::Lines);
        assert_eq!(two.winners_if_conceded(1, 2), Winners::seat(0));
    }

    #[test]
    fn four_players_a_conceding_seat_is_out_and_skipped_like_a_blocked_one() {
        let mut game = Focus::new(Variant::Four, Limit::Five);
        game.play_str("e8-e7").unwrap(); // red; blue to move
                                         // Green concedes out of turn: blue still moves, then yellow.
        assert!(game.play_on_without(2));
        assert!(game.is_out(2) && game.view().seats[2].out);
        assert_eq!(game.ply(), 2, "a concession counts as a ply of the history");
        assert_eq!(game.to_move(), Some(1));
        game.play_str("c8-c7").unwrap();
        assert_eq!(game.to_move(), Some(3), "green is skipped");
        // Yellow concedes in its turn: the turn passes to red.
        assert!(game.play_on_without(3));
        assert_eq!(game.to_move(), Some(0));
        assert_eq!(game.outcome(), None);
        game.play_str("e6-e5").unwrap();
        assert_eq!(game.to_move(), Some(1));
        // Red concedes out of turn: blue is the last one left and wins.
        assert!(game.play_on_without(0));
        assert_eq!(game.outcome(), Some(Outcome::win(1, EndReason::LastPlayerStanding)));
        assert_eq!(game.to_move(), None);
        assert!(legal(&game).is_empty());
    }

    #[test]
    fn four_players_a_concession_in_turn_passes_over_the_blocked() {
        // Blue has no piece and no reserve: when red concedes, blue is put
        // out as its turn comes, and green moves.
        let mut game = setup(Variant::Four, Limit::Five, "c3:0 e5:2 g5:3");
        assert_eq!(game.to_move(), Some(0));
        assert!(game.play_on_without(0));
        assert!(game.is_out(0) && game.is_out(1));
        assert_eq!(game.to_move(), Some(2));
    }

    #[test]
    fn only_the_free_for_all_plays_on_without_a_conceding_seat() {
        for variant in [Variant::Standard, Variant::NoSwap, Variant::FourTeams] {
            let mut game = Focus::new(variant, Limit::Five);
            let before = game.clone();
            assert!(!game.play_on_without(1), "{variant:?}");
            assert_eq!(game, before, "{variant:?}: nothing changes");
        }
    }
}
