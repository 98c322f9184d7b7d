//! Pente and its seven variants: stones placed on the 361 points of a 19×19
//! board, five in a row or captured pairs to win.
//!
//! The board is a padded array of bytes, one per point, with a border of
//! off-board cells around it: every walk (a capture, a line) is a few byte
//! reads that stop at the border, so a random ply costs tens of nanoseconds.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;

use super::board::{parse_coordinate, write_coordinate, NotationError};
use super::playout::Rng;
use super::{BoardShape, BoardView, CellView, EndReason, Notation, Outcome, Progress, Rules, Seat, SeatView, View};

/// Seat colours, seat 0 first.
pub const COLOURS: [&str; 2] = ["white", "black"];

/// Points per side.
const SIZE: u8 = 19;
/// Points on the board.
const POINTS: usize = 361;
/// Row length of the padded array: 19 points and one off-board cell, which
/// borders both the last point of a row and the first of the next.
const STRIDE: isize = 20;
/// The padded array: an off-board row below rank 1 and above rank 19, and one
/// more cell so that the diagonal neighbours of every point are in range.
const CELLS: usize = 21 * STRIDE as usize + 1;

/// 64-bit words of a set of cells.
const WORDS: usize = CELLS.div_ceil(64);

/// The eight directions as steps in the padded array.
const DIRECTIONS: [isize; 8] = [1, -1, STRIDE, -STRIDE, STRIDE + 1, -STRIDE - 1, STRIDE - 1, -STRIDE + 1];
/// One step along each of the four lines through a point.
const AXES: [isize; 4] = [1, STRIDE, STRIDE + 1, STRIDE - 1];

const fn cell_of(file: u8, rank: u8) -> usize {
    (rank as usize + 1) * STRIDE as usize + file as usize + 1
}

/// The cell of every point, by point number `rank * 19 + file`.
const POINT_CELLS: [u16; POINTS] = {
    let mut table = [0u16; POINTS];
    let mut i = 0;
    while i < POINTS {
        table[i] = cell_of((i % 19) as u8, (i / 19) as u8) as u16;
        i += 1;
    }
    table
};

/// A set of cells of the padded array. Off-board cells are never members,
/// so a walk that tests membership stops at the border.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Cells([u64; WORDS]);

impl Cells {
    #[inline]
    fn has(&self, cell: usize) -> bool {
        (self.0[cell >> 6] >> (cell & 63)) & 1 != 0
    }

    #[inline]
    fn set(&mut self, cell: usize) {
        self.0[cell >> 6] |= 1 << (cell & 63);
    }

    #[inline]
    fn clear(&mut self, cell: usize) {
        self.0[cell >> 6] &= !(1 << (cell & 63));
    }
}

/// Neutral stones on the board at most: two per seat.
const MAX_NEUTRAL: usize = 4;

/// A point named by a move: any coordinate the notation can write, on the
/// board or not (`legalize` says which are not).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Point {
    file: u8,
    rank: u8,
}

impl Point {
    pub const CENTRE: Point = Point { file: 9, rank: 9 };

    pub fn new(file: u8, rank: u8) -> Point {
        Point { file, rank }
    }

    pub fn file(self) -> u8 {
        self.file
    }

    pub fn rank(self) -> u8 {
        self.rank
    }

    fn on_board(self) -> bool {
        self.file < SIZE && self.rank < SIZE
    }

    fn cell(self) -> usize {
        cell_of(self.file, self.rank)
    }

    fn of_cell(cell: usize) -> Point {
        let stride = STRIDE as usize;
        Point {
            file: (cell % stride - 1) as u8,
            rank: (cell / stride - 1) as u8,
        }
    }

    /// Chebyshev distance from k10.
    fn centre_distance(self) -> u8 {
        self.file.abs_diff(9).max(self.rank.abs_diff(9))
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_coordinate(f, self.file, self.rank, true)
    }
}

impl FromStr for Point {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Point, NotationError> {
        match parse_coordinate(s, true) {
            Some((file, rank, "")) => Ok(Point { file, rank }),
            _ => Err(NotationError::new(s, "a point such as k10")),
        }
    }
}

/// Pente±'s choice for the pairs a move captures: how many add to the
/// mover's score and how many take from the opponent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Signs {
    pub plus: u8,
    pub minus: u8,
}

impl Signs {
    fn total(self) -> u8 {
        self.plus + self.minus
    }
}

/// A move: a stone (the mover's, or a neutral one) on a point, with Pente±'s
/// signs when it captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub point: Point,
    pub neutral: bool,
    /// `None`: no signs written (for a Pente± capture, all `+`).
    pub signs: Option<Signs>,
}

impl Move {
    pub fn stone(point: Point) -> Move {
        Move {
            point,
            neutral: false,
            signs: None,
        }
    }

    pub fn neutral(point: Point) -> Move {
        Move {
            point,
            neutral: true,
            signs: None,
        }
    }

    fn with_signs(point: Point, plus: u8, minus: u8) -> Move {
        Move {
            point,
            neutral: false,
            signs: Some(Signs { plus, minus }),
        }
    }
}

impl Notation for Move {
    fn write_notation(&self, out: &mut impl fmt::Write) -> fmt::Result {
        if self.neutral {
            out.write_char('N')?;
        }
        write_coordinate(out, self.point.file, self.point.rank, true)?;
        if let Some(signs) = self.signs {
            for _ in 0..signs.plus {
                out.write_char('+')?;
            }
            for _ in 0..signs.minus {
                out.write_char('-')?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_notation(f)
    }
}

/// More signs than this cannot be meant: a stone captures at most 8 pairs.
const MAX_SIGNS: usize = 8;

impl FromStr for Move {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Move, NotationError> {
        const EXPECTED: &str = "a point such as k10 (files a to t without i), Nk10 for a neutral stone, \
                                or a Pente± capture such as g12+- (all + before all -)";
        let error = || NotationError::new(s, EXPECTED);
        let bytes = s.as_bytes();
        // `n` is also a file: it is the neutral mark only before a letter.
        let neutral = matches!(bytes, [b'N' | b'n', next, ..] if next.is_ascii_alphabetic());
        let text = if neutral { &s[1..] } else { s };
        let (file, rank, rest) = parse_coordinate(text, true).ok_or_else(error)?;
        let plus = rest.bytes().take_while(|&b| b == b'+').count();
        let minus = rest[plus..].bytes().take_while(|&b| b == b'-').count();
        if plus + minus != rest.len() || rest.len() > MAX_SIGNS {
            return Err(error());
        }
        Ok(Move {
            point: Point { file, rank },
            neutral,
            signs: (!rest.is_empty()).then_some(Signs {
                plus: plus as u8,
                minus: minus as u8,
            }),
        })
    }
}

/// The eight games of the family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Standard,
    Pro,
    Keryo,
    Freestyle,
    Five,
    NoCapture,
    PlusMinus,
    Neutral,
}

impl Variant {
    /// White's first stone must be on k10.
    fn centre_first(self) -> bool {
        matches!(
            self,
            Variant::Standard | Variant::Pro | Variant::Keryo | Variant::PlusMinus | Variant::Neutral
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    #[error("{0} is not a point of this board (files a to t without i, ranks 1 to 19)")]
    OffBoard(Point),
    #[error("{0} is occupied")]
    Occupied(Point),
    #[error("white's first stone must be k10")]
    FirstStone,
    #[error("white's first move must be a white stone on k10, not a neutral stone")]
    FirstStoneNeutral,
    #[error("white's second stone must be at least 3 points from k10")]
    ProDistance,
    #[error("this variant has no neutral stones")]
    NoNeutralStones,
    #[error("{0} has no neutral stones left")]
    NoNeutralLeft(&'static str),
    #[error("+ and - signs are written only in Pente± (plus-minus)")]
    SignsNotInVariant,
    #[error("{0} captures nothing, so it takes no + or - signs")]
    SignsWithoutCapture(Move),
    #[error(
        "{point} captures {pairs} {}, so it takes {pairs} {}, not {signs}",
        plural(*.pairs, "pair", "pairs"),
        plural(*.pairs, "sign", "signs")
    )]
    SignCount { point: Point, pairs: u8, signs: u8 },
    #[error("{colour}'s score is {score}: a capture can take at most {score} from it, not {minus}")]
    NegativeScore { colour: &'static str, score: u8, minus: u8 },
}

fn plural(n: u8, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// What a stone placed on a point would capture: bit `i` of `groups` for
/// each direction `DIRECTIONS[i]` that captures, bit `i` of `triples` when
/// that capture takes three stones (Keryo).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Captures {
    groups: u8,
    triples: u8,
}

impl Captures {
    fn count(self) -> u8 {
        self.groups.count_ones() as u8
    }

    fn stones(self) -> u32 {
        2 * self.groups.count_ones() + self.triples.count_ones()
    }
}

/// A Pente position.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Pente {
    variant: Variant,
    /// Each seat's stones.
    stones: [Cells; 2],
    /// The cells of the neutral stones on the board, the first `neutrals`.
    neutral: [u16; MAX_NEUTRAL],
    neutrals: u8,
    /// Free points.
    empty: u16,
    /// Enemy stones each seat has captured.
    captured: [u32; 2],
    /// Pente± scores.
    score: [u8; 2],
    /// Neutral stones each seat may still place.
    neutral_left: [u8; 2],
    progress: Progress,
}

impl fmt::Debug for Pente {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut board = String::with_capacity(POINTS + SIZE as usize);
        for rank in (0..SIZE).rev() {
            for file in 0..SIZE {
                board.push(match self.stone_at(Point { file, rank }) {
                    Some(Some(0)) => 'W',
                    Some(Some(_)) => 'B',
                    Some(None) => 'N',
                    None => '.',
                });
            }
            board.push('/');
        }
        f.debug_struct("Pente")
            .field("variant", &self.variant)
            .field("board", &board)
            .field("ply", &self.progress.ply)
            .field("captured", &self.captured)
            .field("score", &self.score)
            .field("neutral_left", &self.neutral_left)
            .field("outcome", &self.progress.outcome)
            .finish()
    }
}

impl Pente {
    pub fn new(variant: Variant) -> Pente {
        Pente {
            variant,
            stones: [Cells::default(); 2],
            neutral: [0; MAX_NEUTRAL],
            neutrals: 0,
            empty: POINTS as u16,
            captured: [0; 2],
            score: [0; 2],
            neutral_left: if variant == Variant::Neutral { [2; 2] } else { [0; 2] },
            progress: Progress::default(),
        }
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Enemy stones `seat` has captured.
    pub fn captured(&self, seat: Seat) -> u32 {
        self.captured[seat as usize & 1]
    }

    /// `seat`'s Pente± score.
    pub fn score(&self, seat: Seat) -> u8 {
        self.score[seat as usize & 1]
    }

    /// What stands on a point: a seat's stone, a neutral stone (`Some(None)`),
    /// or nothing.
    pub fn stone_at(&self, point: Point) -> Option<Option<Seat>> {
        if !point.on_board() {
            return None;
        }
        let cell = point.cell();
        if self.stones[0].has(cell) {
            Some(Some(0))
        } else if self.stones[1].has(cell) {
            Some(Some(1))
        } else if self.is_neutral(cell) {
            Some(None)
        } else {
            None
        }
    }

    #[inline]
    fn is_neutral(&self, cell: usize) -> bool {
        self.neutral[..self.neutrals as usize].contains(&(cell as u16))
    }

    /// Whether a point's cell is free.
    #[inline]
    fn is_free(&self, cell: usize) -> bool {
        !self.stones[0].has(cell) && !self.stones[1].has(cell) && !self.is_neutral(cell)
    }

    fn seat(&self) -> usize {
        (self.progress.ply % 2) as usize
    }

    /// The only legal point of this ply's stone, when there is one.
    fn forced_first(&self) -> bool {
        self.progress.ply == 0 && self.variant.centre_first()
    }

    /// Pro-Pente: this ply's stone may not go within 2 points of k10.
    fn pro_restricted(&self) -> bool {
        self.progress.ply == 2 && self.variant == Variant::Pro
    }

    /// What a stone of `seat` placed on the free `cell` captures.
    #[inline]
    fn captures_at(&self, cell: usize, seat: usize) -> Captures {
        let mut captures = Captures::default();
        if self.variant == Variant::NoCapture {
            return captures;
        }
        let keryo = self.variant == Variant::Keryo;
        let (mine, enemy) = (&self.stones[seat & 1], &self.stones[(seat & 1) ^ 1]);
        let p = cell as isize;
        for (i, &d) in DIRECTIONS.iter().enumerate() {
            // Each test is one step past a point already seen on the board,
            // and the border stops every walk: no index leaves the array.
            if !enemy.has((p + d) as usize) || !enemy.has((p + 2 * d) as usize) {
                continue;
            }
            let third = (p + 3 * d) as usize;
            if mine.has(third) {
                captures.groups |= 1 << i;
            } else if keryo && enemy.has(third) && mine.has((p + 4 * d) as usize) {
                captures.groups |= 1 << i;
                captures.triples |= 1 << i;
            }
        }
        captures
    }

    /// Whether `seat`'s stone on `cell` stands in a line of five or more.
    #[inline]
    fn makes_five(&self, cell: usize, seat: usize) -> bool {
        let mine = &self.stones[seat & 1];
        let p = cell as isize;
        AXES.iter().any(|&d| {
            let mut run = 1;
            let mut q = p + d;
            while mine.has(q as usize) {
                run += 1;
                q += d;
            }
            q = p - d;
            while mine.has(q as usize) {
                run += 1;
                q -= d;
            }
            run >= 5
        })
    }

    /// The stones a capture from `cell` removes, in direction order.
    fn captured_cells(&self, cell: usize, captures: Captures) -> ArrayVec<usize, 24> {
        let mut removed = ArrayVec::new();
        for (i, &d) in DIRECTIONS.iter().enumerate() {
            if captures.groups & (1 << i) != 0 {
                let length = if captures.triples & (1 << i) != 0 { 3 } else { 2 };
                for k in 1..=length {
                    removed.push((cell as isize + k * d) as usize);
                }
            }
        }
        removed
    }

    fn wins_by_capture(&self, seat: usize) -> Option<EndReason> {
        match self.variant {
            Variant::Standard | Variant::Pro | Variant::Freestyle | Variant::Neutral => {
                (self.captured[seat] >= 10).then_some(EndReason::CapturedPairs)
            }
            Variant::Keryo => (self.captured[seat] >= 15).then_some(EndReason::CapturedStones),
            Variant::PlusMinus => (self.score[seat] >= 5).then_some(EndReason::Score),
            Variant::Five | Variant::NoCapture => None,
        }
    }

    /// Pushes the moves of a stone of the mover on the free `cell`: one, or
    /// in Pente± one per choice of signs.
    #[inline]
    fn push_stone_moves(&self, cell: usize, moves: &mut MoveList) {
        let point = Point::of_cell(cell);
        if self.variant != Variant::PlusMinus {
            moves.push(Move::stone(point));
            return;
        }
        let seat = self.seat();
        let pairs = self.captures_at(cell, seat).count();
        if pairs == 0 {
            moves.push(Move::stone(point));
            return;
        }
        for minus in 0..=pairs.min(self.score[1 - seat]) {
            moves.push(Move::with_signs(point, pairs - minus, minus));
        }
    }

    fn random_move_slow(&self, rng: &mut Rng) -> Option<Move> {
        let mut moves = MoveList::new();
        self.legal_moves(&mut moves);
        (!moves.is_empty()).then(|| moves[rng.below(moves.len())])
    }
}

/// The largest list: Pente± with the opponent's score at 4 (at 5 the game is
/// over), where a capturing point gives up to 5 sign choices: 5 × 361. The
/// neutral variant gives at most 2 × 361.
pub type MoveList = ArrayVec<Move, { 5 * POINTS }>;

impl Rules for Pente {
    type Move = Move;
    type MoveList = MoveList;
    type Illegal = Illegal;

    fn mover(&self) -> Seat {
        (self.progress.ply % 2) as Seat
    }

    fn progress(&self) -> &Progress {
        &self.progress
    }

    /// Points in file order (a1, a2, …, a19, b1, …); in the neutral variant
    /// each point's neutral stone right after its own stone.
    fn legal_moves_in_play(&self, moves: &mut MoveList) {
        if self.forced_first() {
            moves.push(Move::stone(Point::CENTRE));
            return;
        }
        let neutral = self.neutral_left[self.seat()] > 0;
        let pro = self.pro_restricted();
        for file in 0..SIZE {
            for rank in 0..SIZE {
                let point = Point { file, rank };
                let cell = point.cell();
                if !self.is_free(cell) || (pro && point.centre_distance() < 3) {
                    continue;
                }
                self.push_stone_moves(cell, moves);
                if neutral {
                    moves.push(Move::neutral(point));
                }
            }
        }
    }

    fn legalize(&self, m: Move) -> Result<Move, Illegal> {
        let point = m.point;
        if !point.on_board() {
            return Err(Illegal::OffBoard(point));
        }
        let seat = self.seat();
        if m.neutral {
            if self.variant != Variant::Neutral {
                return Err(Illegal::NoNeutralStones);
            }
            if self.forced_first() {
                return Err(Illegal::FirstStoneNeutral);
            }
        } else if self.forced_first() && point != Point::CENTRE {
            return Err(Illegal::FirstStone);
        }
        let cell = point.cell();
        if !self.is_free(cell) {
            return Err(Illegal::Occupied(point));
        }
        if m.neutral {
            if self.neutral_left[seat] == 0 {
                return Err(Illegal::NoNeutralLeft(COLOURS[seat]));
            }
            if m.signs.is_some() {
                return Err(Illegal::SignsWithoutCapture(m));
            }
            return Ok(Move::neutral(point));
        }
        if self.pro_restricted() && point.centre_distance() < 3 {
            return Err(Illegal::ProDistance);
        }
        if self.variant != Variant::PlusMinus {
            return match m.signs {
                Some(_) => Err(Illegal::SignsNotInVariant),
                None => Ok(Move::stone(point)),
            };
        }
        let pairs = self.captures_at(cell, seat).count();
        match m.signs {
            None if pairs == 0 => Ok(Move::stone(point)),
            None => Ok(Move::with_signs(point, pairs, 0)),
            Some(_) if pairs == 0 => Err(Illegal::SignsWithoutCapture(m)),
            Some(signs) if signs.total() != pairs => Err(Illegal::SignCount {
                point,
                pairs,
                signs: signs.total(),
            }),
            Some(signs) if signs.minus > self.score[1 - seat] => Err(Illegal::NegativeScore {
                colour: COLOURS[1 - seat],
                score: self.score[1 - seat],
                minus: signs.minus,
            }),
            Some(signs) => Ok(Move::with_signs(point, signs.plus, signs.minus)),
        }
    }

    fn play_unchecked(&mut self, m: Move) {
        let seat = self.seat();
        let cell = m.point.cell();
        self.progress.ply += 1;
        self.empty = self.empty.saturating_sub(1);
        if m.neutral {
            if let Some(slot) = self.neutral.get_mut(self.neutrals as usize) {
                *slot = cell as u16;
                self.neutrals += 1;
                // Sorted, so that equal positions compare and hash equal.
                self.neutral[..self.neutrals as usize].sort_unstable();
            }
            self.neutral_left[seat] = self.neutral_left[seat].saturating_sub(1);
        } else {
            let captures = self.captures_at(cell, seat);
            self.stones[seat].set(cell);
            if captures.groups != 0 {
                let enemy = &mut self.stones[1 - seat];
                for (i, &d) in DIRECTIONS.iter().enumerate() {
                    if captures.groups & (1 << i) != 0 {
                        let p = cell as isize;
                        enemy.clear((p + d) as usize);
                        enemy.clear((p + 2 * d) as usize);
                        if captures.triples & (1 << i) != 0 {
                            enemy.clear((p + 3 * d) as usize);
                        }
                    }
                }
                let stones = captures.stones();
                self.empty += stones as u16;
                self.captured[seat] = self.captured[seat].saturating_add(stones);
                if self.variant == Variant::PlusMinus {
                    let pairs = captures.count();
                    let signs = m.signs.unwrap_or(Signs { plus: pairs, minus: 0 });
                    self.score[seat] = self.score[seat].saturating_add(signs.plus);
                    self.score[1 - seat] = self.score[1 - seat].saturating_sub(signs.minus);
                }
            }
            if self.makes_five(cell, seat) {
                self.progress.outcome = Some(Outcome::win(seat as Seat, EndReason::Line(5)));
                return;
            }
            if let Some(reason) = self.wins_by_capture(seat) {
                self.progress.outcome = Some(Outcome::win(seat as Seat, reason));
                return;
            }
        }
        if self.empty == 0 {
            self.progress.outcome = Some(Outcome::draw(EndReason::BoardFull));
        }
    }

    fn describe(&self, m: Move) -> Option<String> {
        if m.neutral || !m.point.on_board() {
            return None;
        }
        let seat = self.seat();
        let cell = m.point.cell();
        let captures = self.captures_at(cell, seat);
        if captures.groups == 0 {
            return None;
        }
        let removed = self.captured_cells(cell, captures);
        let names: Vec<String> = removed.iter().map(|&c| Point::of_cell(c).to_string()).collect();
        let mut text = format!("captures {}", names.join(" "));
        if self.variant == Variant::PlusMinus {
            let signs = m.signs.unwrap_or(Signs {
                plus: captures.count(),
                minus: 0,
            });
            if signs.plus > 0 {
                text += &format!("; {} scores {}", COLOURS[seat], signs.plus);
            }
            if signs.minus > 0 {
                text += &format!("; {} loses {}", COLOURS[1 - seat], signs.minus);
            }
        }
        Some(text)
    }

    fn view(&self) -> View {
        let mut cells = Vec::with_capacity(POINTS);
        for rank in 0..SIZE {
            for file in 0..SIZE {
                let point = Point { file, rank };
                cells.push(CellView {
                    name: point.to_string(),
                    x: file as f32 + 0.5,
                    y: (SIZE - 1 - rank) as f32 + 0.5,
                    stack: self.stone_at(point).into_iter().collect(),
                });
            }
        }
        let seats = (0..2)
            .map(|seat| SeatView {
                colour: COLOURS[seat],
                captured: (self.variant != Variant::NoCapture).then_some(self.captured[seat]),
                score: match self.variant {
                    Variant::PlusMinus => Some(self.score[seat] as i32),
                    Variant::Standard | Variant::Pro | Variant::Freestyle | Variant::Neutral => {
                        Some((self.captured[seat] / 2) as i32)
                    }
                    Variant::Keryo | Variant::Five | Variant::NoCapture => None,
                },
                neutral_stones: (self.variant == Variant::Neutral).then_some(self.neutral_left[seat] as u32),
                ..SeatView::default()
            })
            .collect();
        View {
            board: BoardView {
                shape: BoardShape::Square,
                files: SIZE,
                ranks: SIZE,
                cells,
            },
            seats,
            phase: None,
        }
    }

    /// A random free point by rejection (a random Pente game rarely fills
    /// much of the board), falling back on the full list when the board is
    /// crowded. Every try that is kept is uniform over the legal moves, so
    /// the result is too.
    fn random_move(&self, rng: &mut Rng) -> Option<Move> {
        if self.progress.outcome.is_some() {
            return None;
        }
        if self.forced_first() {
            return Some(Move::stone(Point::CENTRE));
        }
        let seat = self.seat();
        let neutral = self.neutral_left[seat] > 0;
        let pro = self.pro_restricted();
        // Pente±: a point has 1 + min(pairs, opponent's score) moves; keep a
        // point with probability (its moves) / (the most any point has).
        let most = self.score[1 - seat].min(4) + 1;
        for _ in 0..64 {
            let cell = POINT_CELLS[rng.below(POINTS)] as usize;
            if !self.is_free(cell) {
                continue;
            }
            let point = Point::of_cell(cell);
            if pro && point.centre_distance() < 3 {
                continue;
            }
            if neutral && rng.below(2) == 1 {
                return Some(Move::neutral(point));
            }
            if self.variant != Variant::PlusMinus {
                return Some(Move::stone(point));
            }
            let pairs = self.captures_at(cell, seat).count();
            if pairs == 0 {
                if most == 1 || rng.below(most as usize) == 0 {
                    return Some(Move::stone(point));
                }
                continue;
            }
            let choices = pairs.min(self.score[1 - seat]) + 1;
            if most > 1 && rng.below(most as usize) >= choices as usize {
                continue;
            }
            let minus = rng.below(choices as usize) as u8;
            return Some(Move::with_signs(point, pairs - minus, minus));
        }
        self.random_move_slow(rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::legal;
    use crate::rules::Winners;

    fn pt(name: &str) -> Point {
        name.parse().unwrap()
    }

    /// A position of `variant` with the given stones, `to_move` to play.
    fn setup(variant: Variant, white: &str, black: &str, to_move: Seat) -> Pente {
        let mut game = Pente::new(variant);
        for (seat, stones) in [white, black].into_iter().enumerate() {
            for name in stones.split_whitespace() {
                game.stones[seat].set(pt(name).cell());
                game.empty -= 1;
            }
        }
        // Past the opening rules, with the right seat to move.
        game.progress.ply = 10 + to_move as u32;
        game
    }

    fn put_neutral(game: &mut Pente, name: &str) {
        game.neutral[game.neutrals as usize] = pt(name).cell() as u16;
        game.neutrals += 1;
        game.empty -= 1;
    }

    fn play(variant: Variant, moves: &str) -> Result<Pente, String> {
        let mut game = Pente::new(variant);
        for m in moves.split_whitespace() {
            game.play_str(m).map_err(|e| format!("{m}: {e}"))?;
        }
        Ok(game)
    }

    fn stone(game: &Pente, name: &str) -> Option<Option<Seat>> {
        game.stone_at(pt(name))
    }

    #[test]
    fn notation_round_trips_and_accepts_aliases() {
        for text in ["k10", "a1", "t19", "Nk10", "g12+-", "g12++", "g12--", "n5", "Nn5"] {
            assert_eq!(text.parse::<Move>().unwrap().to_string(), text);
        }
        assert_eq!("K10".parse::<Move>().unwrap(), Move::stone(pt("k10")));
        assert_eq!("nk10".parse::<Move>().unwrap(), Move::neutral(pt("k10")));
        assert_eq!("NK10".parse::<Move>().unwrap(), Move::neutral(pt("k10")));
        // `N10` is the point n10, not a neutral stone.
        assert_eq!("N10".parse::<Move>().unwrap(), Move::stone(pt("n10")));
        for bad in [
            "",
            "i5",
            "k0",
            "k",
            "10",
            "g12-+",
            "g12+x",
            "k10 ",
            "Nk",
            "N",
            "g12+++++++++",
            "é4",
        ] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
        // Off-board points parse, and are refused by the position.
        let game = Pente::new(Variant::Freestyle);
        assert_eq!(
            game.clone().play_str("u5").unwrap_err().to_string(),
            "u5 is not a point of this board (files a to t without i, ranks 1 to 19)"
        );
        assert!(game.clone().play_str("a20").is_err());
    }

    #[test]
    fn the_first_stone_goes_on_k10() {
        for variant in [
            Variant::Standard,
            Variant::Pro,
            Variant::Keryo,
            Variant::PlusMinus,
            Variant::Neutral,
        ] {
            let mut game = Pente::new(variant);
            assert_eq!(legal(&game), vec!["k10"]);
            let error = game.play_str("j10").unwrap_err().to_string();
            assert_eq!(error, "white's first stone must be k10");
            game.play_str("K10").unwrap();
            assert_eq!(legal(&game).len(), if variant == Variant::Neutral { 720 } else { 360 });
        }
        for variant in [Variant::Freestyle, Variant::Five, Variant::NoCapture] {
            let game = Pente::new(variant);
            assert_eq!(legal(&game).len(), 361);
            assert!(play(variant, "a1").is_ok());
        }
        // Legal moves come in file order, as the command line shows them.
        let game = play(Variant::Standard, "k10").unwrap();
        assert_eq!(legal(&game)[..3], ["a1", "a2", "a3"]);
    }

    #[test]
    fn pro_keeps_whites_second_stone_away_from_the_centre() {
        let mut game = play(Variant::Pro, "k10 k11").unwrap();
        for near in ["m12", "h8", "k12", "l10"] {
            assert_eq!(
                game.clone().play_str(near).unwrap_err().to_string(),
                "white's second stone must be at least 3 points from k10"
            );
        }
        // 360 free points less the 24 other points of the central 5×5 (k11 taken).
        assert_eq!(legal(&game).len(), 361 - 25);
        game.play_str("n10").unwrap();
        // Black is free again, and so is white later.
        assert!(game.clone().play_str("l11").is_ok());
        game.play_str("a1").unwrap();
        game.play_str("l11").unwrap();
        // Standard has no such rule.
        assert!(play(Variant::Standard, "k10 k11 l11").is_ok());
    }

    #[test]
    fn a_pair_is_captured_and_three_are_not() {
        // Black c16 with white d16 e16: black f16 captures the pair.
        let mut game = setup(Variant::Standard, "d16 e16", "c16", 1);
        assert_eq!(game.describe(Move::stone(pt("f16"))).unwrap(), "captures e16 d16");
        game.play_str("f16").unwrap();
        assert_eq!(stone(&game, "d16"), None);
        assert_eq!(stone(&game, "e16"), None);
        assert_eq!(stone(&game, "f16"), Some(Some(1)));
        assert_eq!(game.captured, [0, 2]);
        assert_eq!(game.view().seats[1].score, Some(1));
        // Three in a line are not captured, nor is a single stone.
        let mut game = setup(Variant::Standard, "d16 e16 f16", "c16", 1);
        game.play_str("g16").unwrap();
        assert_eq!(game.captured, [0, 0]);
        for s in ["d16", "e16", "f16"] {
            assert_eq!(stone(&game, s), Some(Some(0)), "{s}");
        }
        let mut game = setup(Variant::Standard, "d16", "c16", 1);
        game.play_str("e16").unwrap();
        assert_eq!(stone(&game, "d16"), Some(Some(0)));
    }

    #[test]
    fn keryo_captures_two_or_three() {
        let mut game = setup(Variant::Keryo, "d16 e16 f16", "c16", 1);
        assert_eq!(game.describe(Move::stone(pt("g16"))).unwrap(), "captures f16 e16 d16");
        game.play_str("g16").unwrap();
        assert_eq!(game.captured, [0, 3]);
        for s in ["d16", "e16", "f16"] {
            assert_eq!(stone(&game, s), None, "{s}");
        }
        // Pairs too, but never four.
        let mut game = setup(Variant::Keryo, "d16 e16", "c16", 1);
        game.play_str("f16").unwrap();
        assert_eq!(game.captured, [0, 2]);
        let mut game = setup(Variant::Keryo, "d16 e16 f16 g16", "c16", 1);
        game.play_str("h16").unwrap();
        assert_eq!(game.captured, [0, 0]);
    }

    #[test]
    fn captures_in_several_directions_at_once() {
        // The seed's figure 6: black f16 takes d16-e16, f14-f15 and g15-h14.
        let mut game = setup(Variant::Standard, "d16 e16 f15 f14 g15 h14", "c16 f13 j13", 1);
        game.play_str("f16").unwrap();
        for s in ["d16", "e16", "f15", "f14", "g15", "h14"] {
            assert_eq!(stone(&game, s), None, "{s}");
        }
        assert_eq!(game.captured, [0, 6]);
        assert_eq!(game.empty as usize, 361 - 4);
    }

    #[test]
    fn a_stone_between_two_enemies_is_safe() {
        // Seed figure 7: white d16 between black c16 and f16; white e16 is safe.
        let mut game = setup(Variant::Standard, "d16", "c16 f16", 0);
        game.play_str("e16").unwrap();
        assert_eq!(stone(&game, "d16"), Some(Some(0)));
        assert_eq!(stone(&game, "e16"), Some(Some(0)));
        assert_eq!(game.captured, [0, 0]);
        // And black's next stone elsewhere does not capture it either.
        game.play_str("a1").unwrap();
        assert_eq!(stone(&game, "e16"), Some(Some(0)));
    }

    #[test]
    fn five_in_a_row_wins_and_four_does_not() {
        let mut game = setup(Variant::Standard, "c3 d4 e5 f6", "a1 a2 a3", 0);
        let mut gap = game.clone();
        gap.play_str("h8").unwrap();
        assert_eq!(gap.outcome(), None);
        game.play_str("g7").unwrap();
        assert_eq!(game.outcome(), Some(Outcome::win(0, EndReason::Line(5))));
        assert_eq!(legal(&game), Vec::<String>::new());
        // Six in a row (the seed's b16) wins too; the line through the stone.
        let mut game = setup(Variant::Standard, "a1", "c16 d16 e16 f16 g16", 1);
        game.play_str("b16").unwrap();
        assert_eq!(game.outcome().map(|o| o.winners), Some(Winners::seat(1)));
        // Lines stop at the board's edge: s1 t1 and a2 b2 c2 are no line.
        let mut game = setup(Variant::Standard, "s1 t1 b2 c2", "k15", 0);
        game.play_str("a2").unwrap();
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn five_pairs_win_and_fifteen_stones_win_keryo() {
        let mut game = setup(Variant::Standard, "d16 e16", "c16", 1);
        game.captured[1] = 8;
        game.play_str("f16").unwrap();
        assert_eq!(game.outcome(), Some(Outcome::win(1, EndReason::CapturedPairs)));
        let mut game = setup(Variant::Keryo, "d16 e16 f16", "c16", 1);
        game.captured[1] = 11;
        game.play_str("g16").unwrap();
        assert_eq!(game.outcome(), None);
        let mut game = setup(Variant::Keryo, "d16 e16 f16", "c16", 1);
        game.captured[1] = 12;
        game.play_str("g16").unwrap();
        assert_eq!(game.outcome(), Some(Outcome::win(1, EndReason::CapturedStones)));
    }

    #[test]
    fn five_captures_but_never_wins_by_them_and_no_capture_never_captures() {
        let mut game = setup(Variant::Five, "d16 e16", "c16", 1);
        game.captured[1] = 8;
        game.play_str("f16").unwrap();
        assert_eq!(stone(&game, "d16"), None);
        assert_eq!(game.captured[1], 10);
        assert_eq!(game.outcome(), None);
        let mut game = setup(Variant::NoCapture, "d16 e16", "c16", 1);
        assert_eq!(game.describe(Move::stone(pt("f16"))), None);
        game.play_str("f16").unwrap();
        assert_eq!(stone(&game, "d16"), Some(Some(0)));
        assert_eq!(game.view().seats[1].captured, None);
        // Five in a row wins in both.
        for variant in [Variant::Five, Variant::NoCapture] {
            let mut game = setup(variant, "a1 a2 a3 a4", "t1", 0);
            game.play_str("a5").unwrap();
            assert_eq!(game.outcome(), Some(Outcome::win(0, EndReason::Line(5))));
        }
    }

    #[test]
    fn plus_minus_signs() {
        // One pair, opponent at 0: only `+`.
        let game = setup(Variant::PlusMinus, "d16 e16", "c16", 1);
        let moves = legal(&game);
        assert!(moves.contains(&"f16+".to_string()));
        assert!(!moves.iter().any(|m| m == "f16" || m == "f16-"));
        // Without signs is all `+`.
        assert_eq!(game.clone().play_str("f16").unwrap().to_string(), "f16+");
        assert_eq!(
            game.clone().play_str("f16-").unwrap_err().to_string(),
            "white's score is 0: a capture can take at most 0 from it, not 1"
        );
        // Opponent at 1: `+` and `-`.
        let mut game = setup(Variant::PlusMinus, "d16 e16", "c16", 1);
        game.score = [1, 0];
        let moves: Vec<_> = legal(&game).into_iter().filter(|m| m.starts_with("f16")).collect();
        assert_eq!(moves, ["f16+", "f16-"]);
        let mut minus = game.clone();
        minus.play_str("f16-").unwrap();
        assert_eq!(minus.score, [0, 0]);
        assert_eq!(minus.captured, [0, 2]);
        game.play_str("f16+").unwrap();
        assert_eq!(game.score, [1, 1]);
    }

    #[test]
    fn plus_minus_two_pairs_and_typed_errors() {
        // Black f16 takes d16-e16 and f14-f15; white has a score of 1.
        let mut game = setup(Variant::PlusMinus, "d16 e16 f15 f14", "c16 f13", 1);
        game.score = [1, 3];
        let moves: Vec<_> = legal(&game).into_iter().filter(|m| m.starts_with("f16")).collect();
        assert_eq!(moves, ["f16++", "f16+-"]);
        let error = |text: &str| game.clone().play_str(text).unwrap_err().to_string();
        assert_eq!(error("f16+"), "f16 captures 2 pairs, so it takes 2 signs, not 1");
        assert_eq!(error("f16+++"), "f16 captures 2 pairs, so it takes 2 signs, not 3");
        assert_eq!(
            error("f16--"),
            "white's score is 1: a capture can take at most 1 from it, not 2"
        );
        assert_eq!(error("a1+"), "a1+ captures nothing, so it takes no + or - signs");
        assert_eq!(
            game.describe("f16+-".parse().unwrap()).unwrap(),
            "captures e16 d16 f15 f14; black scores 1; white loses 1"
        );
        game.play_str("f16").unwrap();
        assert_eq!(game.score, [1, 5]);
        assert_eq!(game.outcome(), Some(Outcome::win(1, EndReason::Score)));
        // Signs belong to Pente± only.
        let standard = setup(Variant::Standard, "d16 e16", "c16", 1);
        assert_eq!(
            standard.clone().play_str("f16+").unwrap_err().to_string(),
            "+ and - signs are written only in Pente± (plus-minus)"
        );
    }

    #[test]
    fn neutral_stones() {
        let mut game = play(Variant::Neutral, "k10").unwrap();
        assert_eq!(
            Pente::new(Variant::Neutral).play_str("Nk10").unwrap_err().to_string(),
            "white's first move must be a white stone on k10, not a neutral stone"
        );
        assert_eq!(game.view().seats[1].neutral_stones, Some(2));
        game.play_str("nk11").unwrap();
        assert_eq!(stone(&game, "k11"), Some(None));
        assert_eq!(game.view().seats[1].neutral_stones, Some(1));
        let k11 = game.view().board.cells.into_iter().find(|c| c.name == "k11").unwrap();
        assert_eq!(k11.stack, vec![None]);
        game.play_str("a1").unwrap();
        game.play_str("Nk12").unwrap();
        game.play_str("a2").unwrap();
        assert_eq!(
            game.clone().play_str("Nk13").unwrap_err().to_string(),
            "black has no neutral stones left"
        );
        assert!(!legal(&game).iter().any(|m| m.starts_with('N')));
        assert_eq!(
            play(Variant::Standard, "k10")
                .unwrap()
                .play_str("Nk11")
                .unwrap_err()
                .to_string(),
            "this variant has no neutral stones"
        );
    }

    #[test]
    fn neutral_stones_are_never_captured_never_flank_never_line() {
        // Never captured: N d16 e16(white)... a black stone closing a
        // "pair" made of a neutral and a white stone captures nothing.
        let mut game = setup(Variant::Neutral, "e16", "c16", 1);
        put_neutral(&mut game, "d16");
        game.play_str("f16").unwrap();
        assert_eq!(stone(&game, "d16"), Some(None));
        assert_eq!(stone(&game, "e16"), Some(Some(0)));
        // Never a flank: neutral c16, white d16 e16, black f16 captures nothing.
        let mut game = setup(Variant::Neutral, "d16 e16", "", 1);
        put_neutral(&mut game, "c16");
        game.play_str("f16").unwrap();
        assert_eq!(game.captured, [0, 0]);
        // A neutral stone closing a pair captures nothing.
        let mut game = setup(Variant::Neutral, "d16 e16", "c16", 1);
        game.play_str("Nf16").unwrap();
        assert_eq!(stone(&game, "d16"), Some(Some(0)));
        // Never part of a line: white a1 a2 N a3 a4 a5 is no five.
        let mut game = setup(Variant::Neutral, "a1 a2 a4", "t19", 0);
        put_neutral(&mut game, "a3");
        game.play_str("a5").unwrap();
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn a_full_board_without_a_win_is_a_draw() {
        // Colour by (file / 2 + rank) % 2 as in Gravity: no line longer than
        // two, so no five; one point left for white.
        let mut game = Pente::new(Variant::NoCapture);
        for &cell in POINT_CELLS.iter() {
            let cell = cell as usize;
            let point = Point::of_cell(cell);
            if point == pt("t19") {
                continue;
            }
            game.stones[((point.file / 2 + point.rank) % 2) as usize].set(cell);
        }
        game.empty = 1;
        game.progress.ply = 360;
        assert_eq!(legal(&game), vec!["t19"]);
        game.play_str("t19").unwrap();
        assert_eq!(game.outcome(), Some(Outcome::draw(EndReason::BoardFull)));
    }

    #[test]
    fn random_moves_are_legal_and_playouts_end() {
        for variant in [
            Variant::Standard,
            Variant::Pro,
            Variant::Keryo,
            Variant::Freestyle,
            Variant::Five,
            Variant::NoCapture,
            Variant::PlusMinus,
            Variant::Neutral,
        ] {
            let mut rng = Rng::new(3);
            for _ in 0..20 {
                let mut game = Pente::new(variant);
                while let Some(m) = game.random_move(&mut rng) {
                    assert_eq!(game.legalize(m), Ok(m), "{variant:?} {m}");
                    game.play_unchecked(m);
                }
                assert!(game.outcome().is_some());
            }
        }
    }

    #[test]
    fn random_moves_are_uniform_in_plus_minus() {
        // Black to move with white's score at 1: f16+ and f16- are two of the
        // moves, every other free point one; each should come up about as often.
        let mut game = setup(Variant::PlusMinus, "d16 e16", "c16", 1);
        game.score = [1, 0];
        let total = legal(&game).len();
        let mut rng = Rng::new(11);
        let draws = 200 * total;
        let mut counts = std::collections::HashMap::new();
        for _ in 0..draws {
            *counts
                .entry(game.random_move(&mut rng).unwrap().to_string())
                .or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), total);
        for key in ["f16+", "f16-", "a1"] {
            let n = counts[key];
            assert!((120..=280).contains(&n), "{key}: {n}");
        }
    }
}
