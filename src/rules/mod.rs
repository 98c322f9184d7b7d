//! The rules of every game Tavoliere serves: pure code, no I/O, no async.
//!
//! The binding reading of the rules is `shared/RULES.md`. Each game family
//! lives in its own module, implements [`Rules`] and depends on nothing above
//! it; the [`catalogue`] names the games and variants and builds their start
//! positions. The server holds an [`AnyGame`], one enum over all of them, and
//! never needs to know which game it is playing.
//!
//! The shape follows shakmaty: a small trait of primitives (`legal_moves`,
//! `legalize`, `play_unchecked`, `to_move`, `outcome`), small `Copy` moves,
//! move lists without heap allocation, notation types that only parse syntax
//! (`FromStr`/`Display`), and a separate, typed step that turns notation into
//! a legal move of a given position.

pub mod analysis;
mod any;
pub mod board;
pub mod catalogue;
pub mod focus;
pub mod gravity;
pub mod huntsmen;
pub mod neighbours;
pub mod pente;
pub mod playout;
#[cfg(test)]
pub(crate) mod testing;
pub mod torri;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

pub use any::{
    AnyGame, ConcedeError, Conceded, Concession, GameId, IllegalMove, LegalMoves, MoveError, Played, Position,
    ReplayError, ReplayOrUnknown, UnknownGame,
};
pub use board::{Bitboard, NotationError, Square};

/// A seat at the table, numbered from 0 in turn order; seat 0 moves first.
pub type Seat = u8;

/// The seats that won a game, as a bit set (bit `s` = seat `s`); empty for a draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Winners(u8);

impl Winners {
    pub const NONE: Winners = Winners(0);

    pub fn seat(seat: Seat) -> Winners {
        Winners(1 << seat)
    }

    pub fn seats(seats: &[Seat]) -> Winners {
        Winners(seats.iter().fold(0, |bits, s| bits | (1 << s)))
    }

    /// Every seat of `seats` but `seat`.
    pub fn all_but(seat: Seat, seats: u8) -> Winners {
        let everyone = ((1u16 << seats) - 1) as u8;
        Winners(everyone & !(1 << seat))
    }

    pub fn contains(self, seat: Seat) -> bool {
        self.0 & (1 << seat) != 0
    }

    pub fn is_draw(self) -> bool {
        self.0 == 0
    }

    pub fn to_vec(self) -> Vec<Seat> {
        (0..8).filter(|&s| self.contains(s)).collect()
    }
}

impl Serialize for Winners {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_vec().serialize(serializer)
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// `n` or more in a row (Gravity four, Pente five).
    Line(u8),
    /// The board filled up with no line.
    BoardFull,
    /// The player to move had no legal move and lost.
    NoLegalMove,
    /// Pente: five captured pairs (or the variant's equivalent score).
    CapturedPairs,
    /// Pente keryo: fifteen captured stones.
    CapturedStones,
    /// Pente±: score of five.
    Score,
    /// Cacciatori / Annuvin: every enemy piece captured.
    AllCaptured,
    /// Cacciatori / Annuvin: having lost none, the opponent is down to one.
    ReducedToOne,
    /// Four-player Focus: every other player is out.
    LastPlayerStanding,
    /// Four-player team Focus: both opponents are out.
    OpponentsOut,
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndReason::Line(n) => write!(f, "{n} in a row"),
            EndReason::BoardFull => f.write_str("the board is full"),
            EndReason::NoLegalMove => f.write_str("the player to move has no legal move"),
            EndReason::CapturedPairs => f.write_str("five pairs captured"),
            EndReason::CapturedStones => f.write_str("fifteen stones captured"),
            EndReason::Score => f.write_str("a score of five"),
            EndReason::AllCaptured => f.write_str("every enemy piece captured"),
            EndReason::ReducedToOne => f.write_str("the opponent is reduced to one piece by a player who lost none"),
            EndReason::LastPlayerStanding => f.write_str("every other player is out"),
            EndReason::OpponentsOut => f.write_str("both opponents are out"),
        }
    }
}

impl EndReason {
    /// Every reason there is, `Line` for the lengths games use: what a
    /// stored reason (its [`Display`](fmt::Display)) is read back from.
    pub const ALL: [EndReason; 14] = [
        EndReason::Line(3),
        EndReason::Line(4),
        EndReason::Line(5),
        EndReason::Line(6),
        EndReason::Line(7),
        EndReason::BoardFull,
        EndReason::NoLegalMove,
        EndReason::CapturedPairs,
        EndReason::CapturedStones,
        EndReason::Score,
        EndReason::AllCaptured,
        EndReason::ReducedToOne,
        EndReason::LastPlayerStanding,
        EndReason::OpponentsOut,
    ];

    /// The machine-readable code clients switch on (the `Display` is for
    /// people).
    pub fn code(self) -> &'static str {
        match self {
            EndReason::Line(_) => "line",
            EndReason::BoardFull => "board_full",
            EndReason::NoLegalMove => "no_legal_move",
            EndReason::CapturedPairs => "captured_pairs",
            EndReason::CapturedStones => "captured_stones",
            EndReason::Score => "score",
            EndReason::AllCaptured => "all_captured",
            EndReason::ReducedToOne => "reduced_to_one",
            EndReason::LastPlayerStanding => "last_player_standing",
            EndReason::OpponentsOut => "opponents_out",
        }
    }
}

impl Serialize for EndReason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// How far a game has come, kept alike by every game so that the trait
/// answers [`Rules::ply`], [`Rules::outcome`] and [`Rules::to_move`] once
/// for all of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Progress {
    /// Moves played from the start.
    pub ply: u32,
    /// How the game ended, once it has.
    pub outcome: Option<Outcome>,
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Outcome {
    pub winners: Winners,
    pub reason: EndReason,
}

impl Outcome {
    pub fn win(seat: Seat, reason: EndReason) -> Outcome {
        Outcome {
            winners: Winners::seat(seat),
            reason,
        }
    }

    pub fn draw(reason: EndReason) -> Outcome {
        Outcome {
            winners: Winners::NONE,
            reason,
        }
    }
}

/// A list moves are generated into. Implemented for fixed-capacity
/// [`arrayvec::ArrayVec`]s (each game sizes its own from a worst case) so the
/// hot path never allocates.
pub trait MoveBuffer<M>: Default {
    fn push(&mut self, m: M);
    fn as_slice(&self) -> &[M];
    fn clear(&mut self);
}

impl<M, const N: usize> MoveBuffer<M> for arrayvec::ArrayVec<M, N> {
    #[inline]
    fn push(&mut self, m: M) {
        arrayvec::ArrayVec::push(self, m)
    }
    #[inline]
    fn as_slice(&self) -> &[M] {
        arrayvec::ArrayVec::as_slice(self)
    }
    #[inline]
    fn clear(&mut self) {
        arrayvec::ArrayVec::clear(self)
    }
}

/// A move's notation, written into any `fmt::Write`; a list of legal moves
/// writes its moves with it, straight into its buffer. A move that spells
/// itself here (a square, Pente's moves: a letter and a number, a character
/// at a time) prints its `Display` through it too, and goes into a `String`
/// without the formatting machinery, which cost more than the square (issue
/// 26); any other move is written through its `Display`.
pub trait Notation: fmt::Display {
    fn write_notation(&self, out: &mut impl fmt::Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

/// The primitives every game implements; everything else (replay, string
/// moves, the catalogue, the server) is built on them.
pub trait Rules: Clone + fmt::Debug + Send + Sync + 'static {
    /// A move as the notation names it. `FromStr` only checks syntax and
    /// accepts every alias; `Display` prints the canonical string.
    type Move: Copy + Eq + fmt::Debug + Notation + FromStr<Err = NotationError> + Send + Sync;
    type MoveList: MoveBuffer<Self::Move>;
    /// Why a well-formed move is not legal here.
    type Illegal: std::error::Error + Clone + PartialEq + Send + Sync + 'static;

    /// The seat whose turn it is while the game goes on (what it says once
    /// the game is over means nothing).
    fn mover(&self) -> Seat;

    /// The moves played and how the game ended.
    fn progress(&self) -> &Progress;

    /// Every legal move of a game that is not over, each exactly once, in a
    /// stable order.
    fn legal_moves_in_play(&self, moves: &mut Self::MoveList);

    /// The seat to move, or `None` once the game is over.
    fn to_move(&self) -> Option<Seat> {
        self.progress().outcome.is_none().then(|| self.mover())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.progress().outcome
    }

    /// Number of moves played from the start.
    fn ply(&self) -> u32 {
        self.progress().ply
    }

    /// Every legal move, each exactly once, in a stable order: none once the
    /// game is over.
    fn legal_moves(&self, moves: &mut Self::MoveList) {
        if self.progress().outcome.is_none() {
            self.legal_moves_in_play(moves);
        }
    }

    /// Turns a parsed move into the legal move it names in this position, in
    /// canonical form, or says why it is not legal. Never called on a
    /// finished game.
    fn legalize(&self, m: Self::Move) -> Result<Self::Move, Self::Illegal>;

    /// Applies a move from `legal_moves` or `legalize`; anything else may
    /// leave the position inconsistent (but never panics on memory safety).
    fn play_unchecked(&mut self, m: Self::Move);

    /// What a legal move does, for histories ("lands on f3", "captures j9
    /// j8"), computed before it is played. `None` when there is nothing to
    /// say beyond the move itself.
    fn describe(&self, m: Self::Move) -> Option<String>;

    /// A serialisable picture of the position a client can draw from.
    fn view(&self) -> View;

    /// Who wins when `seat`, of `seats`, concedes (resigns, or loses on
    /// time): every other seat, unless the game has teams.
    fn winners_if_conceded(&self, seat: Seat, seats: u8) -> Winners {
        Winners::all_but(seat, seats)
    }

    /// Puts `seat` out of a game that goes on without it, after it
    /// resigned or ran out of time: `false`, changing nothing, in a game
    /// that a concession ends instead ([`Rules::winners_if_conceded`] say
    /// who wins), which is the default. The caller checks that the game is
    /// on and `seat` still in it.
    fn play_on_without(&mut self, _seat: Seat) -> bool {
        false
    }

    /// Whether `seat` is out of a game that goes on without it.
    fn is_out(&self, _seat: Seat) -> bool {
        false
    }

    /// One uniformly random legal move, or `None` when there is none. The
    /// default generates the whole list; games where that dominates a random
    /// playout override it.
    fn random_move(&self, rng: &mut playout::Rng) -> Option<Self::Move> {
        let mut moves = Self::MoveList::default();
        self.legal_moves(&mut moves);
        let moves = moves.as_slice();
        if moves.is_empty() {
            None
        } else {
            Some(moves[rng.below(moves.len())])
        }
    }

    /// The number of move sequences of length `depth` from this position
    /// (games that end early count as they end): regression data for move
    /// generation.
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut moves = Self::MoveList::default();
        self.legal_moves(&mut moves);
        if depth == 1 {
            return moves.as_slice().len() as u64;
        }
        moves
            .as_slice()
            .iter()
            .map(|&m| {
                let mut next = self.clone();
                next.play_unchecked(m);
                next.perft(depth - 1)
            })
            .sum()
    }

    /// Parses, checks and plays a move given as a string. On error the
    /// position is unchanged.
    fn play_str(&mut self, notation: &str) -> Result<Self::Move, PlayError<Self::Illegal>> {
        if self.outcome().is_some() {
            return Err(PlayError::GameOver);
        }
        let parsed: Self::Move = notation.parse().map_err(PlayError::Notation)?;
        let legal = self.legalize(parsed).map_err(PlayError::Illegal)?;
        self.play_unchecked(legal);
        Ok(legal)
    }
}

/// Why a move string could not be played, generic over a game's illegal-move
/// reasons.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlayError<I: std::error::Error> {
    #[error("the game is over")]
    GameOver,
    #[error(transparent)]
    Notation(NotationError),
    #[error(transparent)]
    Illegal(I),
}

/// The position as a client draws it: every cell with its stack, and per
/// seat what is not on the board.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct View {
    pub board: BoardView,
    pub seats: Vec<SeatView>,
    /// A phase other than normal play, e.g. Focus's opening swaps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<&'static str>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BoardShape {
    Square,
    Hex,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardView {
    pub shape: BoardShape,
    /// Bounding grid: files `a`… and ranks `1`….
    pub files: u8,
    pub ranks: u8,
    /// Every cell of the board (holes left out), in a stable order.
    pub cells: Vec<CellView>,
}

impl BoardView {
    /// A board of squares on a `files`×`ranks` grid, rank 1 at the bottom;
    /// `squares` leaves out the holes, `stack` gives each square's pieces.
    pub fn of_squares(
        files: u8,
        ranks: u8,
        squares: impl Iterator<Item = Square>,
        mut stack: impl FnMut(Square) -> Vec<Option<Seat>>,
    ) -> BoardView {
        let cells = squares
            .map(|square| CellView {
                name: square.to_string(),
                x: square.file() as f32 + 0.5,
                y: (ranks - 1 - square.rank()) as f32 + 0.5,
                stack: stack(square),
            })
            .collect();
        BoardView {
            shape: BoardShape::Square,
            files,
            ranks,
            cells,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellView {
    /// The cell's name in the game's notation, e.g. `e4` or `k10`.
    pub name: String,
    /// Centre of the cell for drawing, in cell widths, x to the right and y
    /// downward from the top-left of the board (rank 1 at the bottom).
    pub x: f32,
    pub y: f32,
    /// Pieces on the cell, bottom to top: a seat number, or `null` for a
    /// piece of nobody's (Pente's neutral stones).
    pub stack: Vec<Option<Seat>>,
}

/// What a seat has off the board; the fields a game does not use stay empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SeatView {
    pub colour: &'static str,
    /// Pieces still to place (Cacciatori empty variants) or in reserve (Focus).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_hand: Option<u32>,
    /// Enemy pieces this seat captured or put out of the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captured: Option<u32>,
    /// A score where the game keeps one (Pente pairs, Pente± score).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<i32>,
    /// Cacciatori's current range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<u32>,
    /// Neutral stones left (Pente neutral).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub neutral_stones: Option<u32>,
    /// Four-player Focus: this seat has no move and is skipped.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub out: bool,
}

impl SeatView {
    /// Seats with nothing off the board: their colours only.
    pub fn colours(colours: &[&'static str]) -> Vec<SeatView> {
        colours
            .iter()
            .map(|&colour| SeatView {
                colour,
                ..SeatView::default()
            })
            .collect()
    }
}
