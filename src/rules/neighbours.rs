//! Vicini (Neighbours) and Vicini Amici (Friendly Neighbours): a piece moves
//! exactly as many squares as it has neighbours.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;

use super::board::{Bitboard, NotationError, Square, DIRECTIONS};
use super::{BoardView, EndReason, Outcome, Progress, Rules, Seat, SeatView, View};

/// Seat colours, seat 0 first.
pub const COLOURS: [&str; 2] = ["white", "black"];
const RANK_1: u64 = 0xff;
const RANK_8: u64 = 0xff << 56;

/// The squares around each square.
const AROUND: [u64; 64] = {
    let mut table = [0u64; 64];
    let mut index = 0;
    while index < 64 {
        let (file, rank) = ((index % 8) as i8, (index / 8) as i8);
        let mut d = 0;
        while d < 8 {
            let (f, r) = (file + DIRECTIONS[d].0, rank + DIRECTIONS[d].1);
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                table[index] |= 1 << (r * 8 + f);
            }
            d += 1;
        }
        index += 1;
    }
    table
};

/// A ray: the squares from a square outward in one direction, nearest first.
#[derive(Clone, Copy)]
struct Ray {
    len: u8,
    squares: [u8; 7],
}

const RAYS: [[Ray; 8]; 64] = {
    let mut table = [[Ray {
        len: 0,
        squares: [0; 7],
    }; 8]; 64];
    let mut index = 0;
    while index < 64 {
        let mut d = 0;
        while d < 8 {
            let (mut f, mut r) = ((index % 8) as i8, (index / 8) as i8);
            let mut ray = Ray {
                len: 0,
                squares: [0; 7],
            };
            loop {
                f += DIRECTIONS[d].0;
                r += DIRECTIONS[d].1;
                if f < 0 || f >= 8 || r < 0 || r >= 8 {
                    break;
                }
                ray.squares[ray.len as usize] = (r * 8 + f) as u8;
                ray.len += 1;
            }
            table[index][d] = ray;
            d += 1;
        }
        index += 1;
    }
    table
};

/// A move: a piece's square and its landing square; `capture` is whether
/// the notation (canonically: the move) takes an enemy piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub capture: bool,
}

/// Written through its `Display`.
impl super::Notation for Move {}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.from, if self.capture { 'x' } else { '-' }, self.to)
    }
}

impl FromStr for Move {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Move, NotationError> {
        let error = || NotationError::new(s, "two squares a1…h8 joined by - or x, e.g. e1-e3 or f3xf6");
        let (from, rest) = Square::parse_prefix(s).ok_or_else(error)?;
        let capture = match rest.as_bytes().first() {
            Some(b'-') => false,
            Some(b'x' | b'X') => true,
            _ => return Err(error()),
        };
        let to = rest[1..].parse().map_err(|_| error())?;
        Ok(Move { from, to, capture })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    #[error("{square} holds no {colour} piece")]
    NotYours { square: Square, colour: &'static str },
    #[error("{0} cannot move: it has no neighbours")]
    NoNeighbours(Square),
    #[error("{0} cannot move: it has no neighbours of its own colour")]
    NoFriendlyNeighbours(Square),
    #[error("{0} is not a straight line (orthogonal or diagonal)")]
    NotALine(Move),
    #[error("{from} moves exactly {distance} {}", if *.distance == 1 { "square" } else { "squares" })]
    Distance { from: Square, distance: u32 },
    #[error("{0} is in the way")]
    InTheWay(Square),
    #[error("{0} holds your own piece")]
    OwnPiece(Square),
}

/// A Vicini position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Neighbours {
    friendly: bool,
    pieces: [Bitboard; 2],
    progress: Progress,
}

/// At most 8 pieces, each with at most one landing square per direction.
pub type MoveList = ArrayVec<Move, 64>;

impl Neighbours {
    pub fn new(friendly: bool) -> Neighbours {
        Neighbours {
            friendly,
            pieces: [Bitboard(RANK_1), Bitboard(RANK_8)],
            progress: Progress::default(),
        }
    }

    /// The position with `pieces` (white's, then black's) after `ply`
    /// plies (their parity says who moves): for tests and the bots' own
    /// endgames, as a game only ever comes from [`Neighbours::new`] and its
    /// moves. A mover with no move has lost, as after a move.
    pub fn with_pieces(friendly: bool, pieces: [Bitboard; 2], ply: u32) -> Neighbours {
        let mut game = Neighbours {
            friendly,
            pieces,
            progress: Progress {
                ply,
                ..Progress::default()
            },
        };
        let seat = game.seat();
        if !game.has_move(seat) {
            game.progress.outcome = Some(Outcome::win(1 - seat as Seat, EndReason::NoLegalMove));
        }
        game
    }

    /// The squares of `seat`'s pieces.
    pub fn pieces(&self, seat: Seat) -> Bitboard {
        self.pieces[seat as usize & 1]
    }

    /// Whether this is Vicini Amici: only a piece's own colour counts.
    pub fn is_friendly(&self) -> bool {
        self.friendly
    }

    pub fn piece_at(&self, square: Square) -> Option<Seat> {
        (0..2).find(|&seat| self.pieces[seat as usize].contains(square))
    }

    fn seat(&self) -> usize {
        (self.progress.ply % 2) as usize
    }

    /// How far `seat`'s piece on `from` moves.
    #[inline]
    fn distance(&self, seat: usize, from: Square) -> u32 {
        let counted = if self.friendly {
            self.pieces[seat]
        } else {
            self.pieces[0] | self.pieces[1]
        };
        (AROUND[from.index()] & counted.0).count_ones()
    }

    /// Calls `found` with every move of `seat`, in order of square then
    /// direction, until it returns `false`; returns whether it stopped early.
    #[inline]
    fn each_move(&self, seat: usize, mut found: impl FnMut(Move) -> bool) -> bool {
        let own = self.pieces[seat].0;
        let enemy = self.pieces[1 - seat].0;
        let occupied = own | enemy;
        for from in self.pieces[seat] {
            let n = self.distance(seat, from) as usize;
            if n == 0 {
                continue;
            }
            for ray in &RAYS[from.index()] {
                if n > ray.len as usize {
                    continue;
                }
                let blocked = ray.squares[..n - 1].iter().any(|&s| occupied & (1 << s) != 0);
                let to = ray.squares[n - 1];
                if blocked || own & (1 << to) != 0 {
                    continue;
                }
                let m = Move {
                    from,
                    to: Square::from_index(to),
                    capture: enemy & (1 << to) != 0,
                };
                if !found(m) {
                    return true;
                }
            }
        }
        false
    }

    fn has_move(&self, seat: usize) -> bool {
        self.each_move(seat, |_| false)
    }
}

impl Rules for Neighbours {
    type Move = Move;
    type MoveList = MoveList;
    type Illegal = Illegal;

    fn mover(&self) -> Seat {
        self.seat() as Seat
    }

    fn progress(&self) -> &Progress {
        &self.progress
    }

    fn legal_moves_in_play(&self, moves: &mut MoveList) {
        self.each_move(self.seat(), |m| {
            moves.push(m);
            true
        });
    }

    fn legalize(&self, m: Move) -> Result<Move, Illegal> {
        let seat = self.seat();
        let (from, to) = (m.from, m.to);
        if !self.pieces[seat].contains(from) {
            return Err(Illegal::NotYours {
                square: from,
                colour: COLOURS[seat],
            });
        }
        let n = self.distance(seat, from);
        if n == 0 {
            return Err(if self.friendly {
                Illegal::NoFriendlyNeighbours(from)
            } else {
                Illegal::NoNeighbours(from)
            });
        }
        let df = to.file() as i8 - from.file() as i8;
        let dr = to.rank() as i8 - from.rank() as i8;
        if (df == 0 && dr == 0) || (df != 0 && dr != 0 && df.abs() != dr.abs()) {
            return Err(Illegal::NotALine(m));
        }
        let distance = df.unsigned_abs().max(dr.unsigned_abs()) as u32;
        if distance != n {
            return Err(Illegal::Distance { from, distance: n });
        }
        let occupied = self.pieces[0] | self.pieces[1];
        let mut at = from;
        for _ in 1..distance {
            // Every square between `from` and `to` is on the board.
            at = at.offset(df.signum(), dr.signum()).unwrap_or(to);
            if occupied.contains(at) {
                return Err(Illegal::InTheWay(at));
            }
        }
        if self.pieces[seat].contains(to) {
            return Err(Illegal::OwnPiece(to));
        }
        Ok(Move {
            from,
            to,
            capture: self.pieces[1 - seat].contains(to),
        })
    }

    fn play_unchecked(&mut self, m: Move) {
        let seat = self.seat();
        self.pieces[seat].clear(m.from);
        self.pieces[seat].set(m.to);
        self.pieces[1 - seat].clear(m.to);
        self.progress.ply += 1;
        if !self.has_move(1 - seat) {
            self.progress.outcome = Some(Outcome::win(seat as Seat, EndReason::NoLegalMove));
        }
    }

    fn describe(&self, m: Move) -> Option<String> {
        self.pieces[1 - self.seat()]
            .contains(m.to)
            .then(|| format!("captures {}", m.to))
    }

    fn view(&self) -> View {
        View {
            board: BoardView::of_squares(8, 8, Square::all(), |square| {
                self.piece_at(square).map(Some).into_iter().collect()
            }),
            seats: (0..2)
                .map(|seat| SeatView {
                    colour: COLOURS[seat],
                    captured: Some(8 - self.pieces[1 - seat].count()),
                    ..SeatView::default()
                })
                .collect(),
            phase: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{legal, refusal, sq};
    use crate::rules::Winners;

    fn play(friendly: bool, moves: &str) -> Neighbours {
        let mut game = Neighbours::new(friendly);
        for m in moves.split_whitespace() {
            game.play_str(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        }
        game
    }

    /// A position as it stands, its outcome not looked at (some tests ask
    /// a mover with no move for one).
    fn setup(friendly: bool, white: &str, black: &str, to_move: Seat) -> Neighbours {
        let mut game = Neighbours::new(friendly);
        game.pieces = [Bitboard::EMPTY; 2];
        for (seat, squares) in [white, black].into_iter().enumerate() {
            for s in squares.split_whitespace() {
                game.pieces[seat].set(sq(s));
            }
        }
        game.progress.ply = to_move as u32;
        game
    }

    /// The landing squares of the piece on `from`, sorted.
    fn targets(game: &Neighbours, from: &str) -> Vec<String> {
        let mut found: Vec<String> = legal(game)
            .into_iter()
            .filter(|m| m.starts_with(from))
            .map(|m| m[3..].to_string())
            .collect();
        found.sort();
        found
    }

    #[test]
    fn seed_moves_at_the_start() {
        for friendly in [false, true] {
            let game = Neighbours::new(friendly);
            assert_eq!(targets(&game, "a1"), ["a2", "b2"]);
            assert_eq!(targets(&game, "b1"), ["b3", "d3"]);
            assert_eq!(targets(&game, "c1"), ["a3", "c3", "e3"]);
            assert_eq!(legal(&game).len(), 20);
        }
    }

    #[test]
    fn seed_moves_after_e1_e3_a8_a7() {
        let mut game = play(false, "e1-e3 a8-a7");
        assert_eq!(targets(&game, "e3"), Vec::<String>::new());
        assert_eq!(refusal(&game, "e3-e4"), "e3 cannot move: it has no neighbours");
        assert_eq!(targets(&game, "c1"), ["a3", "c3"]);
        assert_eq!(refusal(&game, "c1-e3"), "e3 holds your own piece");
        game.play_str("c1-c3").unwrap();
    }

    #[test]
    fn captures_and_notation() {
        // White e1 with neighbours d1 and f1 moves 2; black e3 is taken.
        let mut game = setup(false, "d1 e1 f1", "e3 a8", 0);
        assert!(legal(&game).contains(&"e1xe3".to_string()));
        assert_eq!(game.describe(sq_move("e1xe3")), Some("captures e3".to_string()));
        // `-` for a capture is accepted and made canonical.
        let played = game.play_str("E1-E3").unwrap();
        assert_eq!(played.to_string(), "e1xe3");
        assert_eq!(game.piece_at(sq("e3")), Some(0));
        assert_eq!(game.pieces[1].count(), 1);
        assert_eq!(play(false, "").view().seats[0].captured, Some(0));
        // `x` for a plain move too.
        let mut game = Neighbours::new(false);
        assert_eq!(game.play_str("e1xe3").unwrap().to_string(), "e1-e3");
        for bad in ["e1e3", "e1-e9", "e1", "e1--e3", "e1-e3x", "j1-e3", ""] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
    }

    fn sq_move(text: &str) -> Move {
        text.parse().unwrap()
    }

    #[test]
    fn typed_errors() {
        let game = Neighbours::new(false);
        let error = |text: &str| refusal(&game, text);
        assert_eq!(error("e5-e6"), "e5 holds no white piece");
        assert_eq!(error("e8-e6"), "e8 holds no white piece");
        assert_eq!(error("e1-e2"), "e1 moves exactly 2 squares");
        assert_eq!(error("e1-f3"), "e1-f3 is not a straight line (orthogonal or diagonal)");
        assert_eq!(error("b1-d1"), "c1 is in the way");
        assert_eq!(error("a1-b1"), "b1 holds your own piece");
        let game = setup(false, "c1 d1 d2 e1", "a8", 0);
        // d1 has neighbours c1, d2, e1: it moves 3; d1-d4 passes d2.
        assert_eq!(refusal(&game, "d1-d4"), "d2 is in the way");
    }

    #[test]
    fn friendly_neighbours_count_only_their_own_colour() {
        // White d4 with neighbours c4 (white), d5 and e5 (black): 3 in
        // Vicini, 1 in Vicini Amici.
        let white = "c4 d4 a1";
        let black = "d5 e5 h8";
        let standard = setup(false, white, black, 0);
        let friendly = setup(true, white, black, 0);
        assert_eq!(standard.distance(0, sq("d4")), 3);
        assert_eq!(friendly.distance(0, sq("d4")), 1);
        assert_eq!(targets(&friendly, "d4"), ["c3", "c5", "d3", "d5", "e3", "e4", "e5"]);
        assert_eq!(targets(&standard, "d4"), ["a7", "d1", "g1", "g4"]);
        assert!(legal(&friendly).contains(&"d4xe5".to_string()));
        // A piece with only enemy neighbours cannot move in Vicini Amici.
        let game = setup(true, "e4 a1", "e5 h8", 0);
        assert_eq!(
            refusal(&game, "e4-e3"),
            "e4 cannot move: it has no neighbours of its own colour"
        );
    }

    #[test]
    fn a_player_left_without_a_move_loses_at_once() {
        // Black's pieces are isolated: after a white move that lands next to
        // none of them, black has no move and white has won.
        let mut game = setup(false, "a1 b1", "c3 h8", 0);
        let mut next_to_c3 = game.clone();
        next_to_c3.play_str("a1-b2").unwrap();
        assert_eq!(next_to_c3.outcome(), None);
        assert_eq!(
            targets(&next_to_c3, "c3"),
            ["b2", "b3", "b4", "c2", "c4", "d2", "d3", "d4"]
        );
        assert!(legal(&next_to_c3).contains(&"c3xb2".to_string()));
        game.play_str("a1-a2").unwrap();
        assert_eq!(game.outcome(), Some(Outcome::win(0, EndReason::NoLegalMove)));
        assert_eq!(game.to_move(), None);
        assert!(legal(&game).is_empty());
        // Capturing the last enemy piece wins the same way.
        let mut game = setup(false, "a1 b1 d1", "c1", 0);
        game.play_str("d1xc1").unwrap();
        assert_eq!(game.outcome().map(|o| o.winners), Some(Winners::seat(0)));
    }
}
