//! Forza 4 Centrifuga (Gravity): four in a row on an 8×8 board where every
//! piece slides away from the centre.

use arrayvec::ArrayVec;

use super::board::{Bitboard, Square};
use super::playout::Rng;
use super::{BoardView, EndReason, Outcome, Progress, Rules, Seat, SeatView, View};

/// Seat colours, seat 0 first.
pub const COLOURS: [&str; 2] = ["yellow", "red"];

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// How a piece entered on each square slides, from RULES.md: toward the
/// nearer edge, diagonally toward the nearer corner on a tie. Precomputed so
/// that a landing costs a few bit operations instead of a walk.
#[derive(Clone, Copy)]
struct Slide {
    /// The squares the piece would cross, entry excluded, up to the edge.
    ray: u64,
    /// Index change of one step along the slide (0 on the edge).
    step: i8,
    /// Where it stops on an empty path.
    edge: u8,
}

const SLIDES: [Slide; 64] = {
    let mut table = [Slide {
        ray: 0,
        step: 0,
        edge: 0,
    }; 64];
    let mut index = 0;
    while index < 64 {
        let file = (index % 8) as i8;
        let rank = (index / 8) as i8;
        let dx = if file < 7 - file { file } else { 7 - file };
        let dy = if rank < 7 - rank { rank } else { 7 - rank };
        let toward_file = if file <= 3 { -1 } else { 1 };
        let toward_rank = if rank <= 3 { -1 } else { 1 };
        let (df, dr) = if dx < dy {
            (toward_file, 0)
        } else if dy < dx {
            (0, toward_rank)
        } else {
            (toward_file, toward_rank)
        };
        let (mut f, mut r, mut ray) = (file, rank, 0u64);
        while f + df >= 0 && f + df < 8 && r + dr >= 0 && r + dr < 8 {
            f += df;
            r += dr;
            ray |= 1 << (r * 8 + f);
        }
        let step = if ray == 0 { 0 } else { dr * 8 + df };
        table[index] = Slide {
            ray,
            step,
            edge: (r * 8 + f) as u8,
        };
        index += 1;
    }
    table
};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    #[error("{0} is occupied")]
    Occupied(Square),
}

/// A Gravity position: two bitboards and the move count.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Gravity {
    pieces: [Bitboard; 2],
    progress: Progress,
}

impl Default for Gravity {
    fn default() -> Self {
        Gravity::new()
    }
}

impl Gravity {
    pub fn new() -> Gravity {
        Gravity {
            pieces: [Bitboard::EMPTY; 2],
            progress: Progress::default(),
        }
    }

    fn occupied(&self) -> Bitboard {
        self.pieces[0] | self.pieces[1]
    }

    /// Which seat's piece stands on `square`.
    pub fn piece_at(&self, square: Square) -> Option<Seat> {
        (0..2).find(|&seat| self.pieces[seat as usize].contains(square))
    }

    /// Where a piece entered on the free square `entry` comes to rest.
    pub fn landing(&self, entry: Square) -> Square {
        let slide = SLIDES[entry.index()];
        let blockers = slide.ray & self.occupied().0;
        if blockers == 0 {
            return Square::from_index(slide.edge);
        }
        // The first blocker met is the nearest to the entry: the lowest bit
        // when sliding toward higher indices, the highest otherwise.
        let first = if slide.step > 0 {
            blockers.trailing_zeros()
        } else {
            63 - blockers.leading_zeros()
        };
        Square::from_index((first as i8 - slide.step) as u8)
    }

    fn has_four(pieces: Bitboard) -> bool {
        let b = pieces.0;
        // Each direction as a shift that moves a bit one step along it, masked
        // so no step wraps around the board's edge.
        let steps: [(u32, u64); 4] = [(1, !FILE_A), (8, !0), (9, !FILE_A), (7, !FILE_H)];
        steps.iter().any(|&(shift, keep)| {
            let pairs = b & ((b << shift) & keep);
            let quads = pairs & ((pairs << (2 * shift)) & keep & (keep << shift));
            quads != 0
        })
    }
}

impl Rules for Gravity {
    type Move = Square;
    /// Every free square is an entry square: at most 64.
    type MoveList = ArrayVec<Square, 64>;
    type Illegal = Illegal;

    fn mover(&self) -> Seat {
        (self.progress.ply % 2) as Seat
    }

    fn progress(&self) -> &Progress {
        &self.progress
    }

    fn legal_moves_in_play(&self, moves: &mut Self::MoveList) {
        moves.extend(!self.occupied());
    }

    fn legalize(&self, entry: Square) -> Result<Square, Illegal> {
        if self.occupied().contains(entry) {
            Err(Illegal::Occupied(entry))
        } else {
            Ok(entry)
        }
    }

    fn play_unchecked(&mut self, entry: Square) {
        let seat = (self.progress.ply % 2) as usize;
        let landing = self.landing(entry);
        self.pieces[seat].set(landing);
        self.progress.ply += 1;
        if Gravity::has_four(self.pieces[seat]) {
            self.progress.outcome = Some(Outcome::win(seat as Seat, EndReason::Line(4)));
        } else if self.progress.ply == 64 {
            self.progress.outcome = Some(Outcome::draw(EndReason::BoardFull));
        }
    }

    fn describe(&self, entry: Square) -> Option<String> {
        Some(format!("lands on {}", self.landing(entry)))
    }

    fn view(&self) -> View {
        View {
            board: BoardView::of_squares(8, 8, Square::all(), |square| {
                self.piece_at(square).map(Some).into_iter().collect()
            }),
            seats: SeatView::colours(&COLOURS),
            phase: None,
        }
    }

    fn random_move(&self, rng: &mut Rng) -> Option<Square> {
        if self.progress.outcome.is_some() {
            return None;
        }
        let free = !self.occupied();
        // Rejection sampling: each 6-bit slice of one random number names a
        // square, uniformly; the first free one is a uniform choice among the
        // free squares. Only a nearly full board needs the slower count.
        let mut bits = rng.next_u64();
        for _ in 0..10 {
            let square = Square::from_index((bits & 63) as u8);
            if free.contains(square) {
                return Some(square);
            }
            bits >>= 6;
        }
        free.nth(rng.below(free.count() as usize) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::sq;

    impl Gravity {
        fn legal_moves_vec(&self) -> Vec<Square> {
            let mut moves = ArrayVec::new();
            self.legal_moves(&mut moves);
            moves.to_vec()
        }
    }

    fn play(moves: &str) -> Gravity {
        let mut game = Gravity::new();
        for m in moves.split_whitespace() {
            game.play_str(m).unwrap();
        }
        game
    }

    #[test]
    fn seed_landings_on_an_empty_board() {
        let empty = Gravity::new();
        for (entry, landing) in [
            ("d3", "d1"),
            ("c7", "c8"),
            ("e5", "h8"),
            ("a5", "a5"),
            ("d4", "a1"),
            ("c4", "a4"),
        ] {
            assert_eq!(empty.landing(sq(entry)), sq(landing), "{entry}");
        }
    }

    #[test]
    fn seed_game_ends_with_red_winning_on_e4() {
        let mut game = play("e2 h4 e2 g4 e3 f4 e4 e4 f2 g1");
        assert_eq!(game.outcome(), None);
        assert_eq!(game.landing(sq("e4")), sq("f3"));
        game.play_str("e4").unwrap();
        assert_eq!(game.piece_at(sq("f3")), Some(0));
        assert_eq!(game.landing(sq("e4")), sq("e4"));
        game.play_str("e4").unwrap();
        for s in ["e4", "f4", "g4", "h4"] {
            assert_eq!(game.piece_at(sq(s)), Some(1), "{s}");
        }
        assert_eq!(game.outcome(), Some(Outcome::win(1, EndReason::Line(4))));
        assert_eq!(game.to_move(), None);
    }

    #[test]
    fn a_slide_stops_before_a_piece_but_not_beside_its_path() {
        // c4 slides west to a4; with a4 taken it stops on b4.
        let game = play("a4");
        assert_eq!(game.landing(sq("c4")), sq("b4"));
        // A piece on a3, beside the path c4-b4-a4, does not stop it.
        let game = play("a3");
        assert_eq!(game.landing(sq("c4")), sq("a4"));
    }

    #[test]
    fn diagonal_slides_and_blocked_diagonals() {
        let empty = Gravity::new();
        assert_eq!(empty.landing(sq("c3")), sq("a1"));
        assert_eq!(empty.landing(sq("f6")), sq("h8"));
        assert_eq!(empty.landing(sq("c6")), sq("a8"));
        // With a1 taken, d4 stops on b2; with b2 taken too, c3 stays on c3.
        let game = play("a1");
        assert_eq!(game.landing(sq("d4")), sq("b2"));
        let game = play("a1 b2");
        assert_eq!(game.piece_at(sq("b2")), Some(1));
        assert_eq!(game.landing(sq("c3")), sq("c3"));
    }

    #[test]
    fn occupied_entry_squares_are_refused_by_name() {
        let mut game = play("a5");
        let before = game.clone();
        let error = game.play_str("A5").unwrap_err();
        assert_eq!(error.to_string(), "a5 is occupied");
        assert_eq!(game, before);
        // e2 is free but slides to e1: entering on e1 afterwards is refused.
        let mut game = play("e2");
        assert!(game.play_str("e1").is_err());
        assert!(game.play_str("e2").is_ok());
    }

    #[test]
    fn lines_in_every_direction_win() {
        // Yellow's diagonal a1 b2 c3 d4 built on the edges and slides.
        for (moves, winner) in [
            ("a1 h8 a2 h7 a3 h6 a4", 0),
            ("a1 h8 b1 h7 c1 h6 d1", 0),
            ("a1 a8 b1 b8 d1 c8 h3 d8", 1),
        ] {
            let game = play(moves);
            assert_eq!(
                game.outcome().map(|o| o.winners),
                Some(super::super::Winners::seat(winner)),
                "{moves}"
            );
        }
        assert!(Gravity::has_four(Bitboard(
            sq("a1").bit().0 | sq("b2").bit().0 | sq("c3").bit().0 | sq("d4").bit().0
        )));
        assert!(Gravity::has_four(Bitboard(
            sq("h1").bit().0 | sq("g2").bit().0 | sq("f3").bit().0 | sq("e4").bit().0
        )));
        // No wrap-around: g1 h1 a2 b2 is not a line.
        assert!(!Gravity::has_four(Bitboard(
            sq("g1").bit().0 | sq("h1").bit().0 | sq("a2").bit().0 | sq("b2").bit().0
        )));
        assert!(!Gravity::has_four(Bitboard(
            sq("h1").bit().0 | sq("a2").bit().0 | sq("b3").bit().0 | sq("c4").bit().0
        )));
    }

    #[test]
    fn random_moves_are_uniform_over_the_free_squares() {
        // A board with few free squares takes the counting fallback often,
        // one with many takes the rejection path: both must be uniform.
        for free_count in [3u32, 12, 60] {
            let mut game = Gravity::new();
            for s in Square::all().skip(free_count as usize) {
                game.pieces[s.index() % 2].set(s);
            }
            let mut rng = Rng::new(u64::from(free_count));
            let mut counts = [0u32; 64];
            let draws = 6000 * free_count;
            for _ in 0..draws {
                let m = game.random_move(&mut rng).unwrap();
                assert!(!game.occupied().contains(m));
                counts[m.index()] += 1;
            }
            let expected = (draws / free_count) as f64;
            for &count in &counts[..free_count as usize] {
                assert!(
                    (count as f64 - expected).abs() < expected * 0.1,
                    "{free_count}: {counts:?}"
                );
            }
        }
    }

    #[test]
    fn a_full_board_without_a_line_is_a_draw() {
        // Colour by (file / 2 + rank) % 2: no line in any direction is longer
        // than two. a8 (red in the pattern, a corner so its piece stays put)
        // is left for red's 64th-ply move.
        let colour = |s: Square| ((s.file() / 2 + s.rank()) % 2) as usize;
        let mut game = Gravity::new();
        for s in Square::all().filter(|&s| s != sq("a8")) {
            game.pieces[colour(s)].set(s);
        }
        game.progress.ply = 63;
        assert_eq!(game.legal_moves_vec(), vec![sq("a8")]);
        game.play_str("a8").unwrap();
        assert_eq!(game.outcome(), Some(Outcome::draw(EndReason::BoardFull)));
    }
}
