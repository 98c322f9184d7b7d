//! Torri: towers on an 8×8 board that collapse along a line, one piece per
//! square from the bottom, the rest landing as a block on the edge.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;

use super::board::{reach, NotationError, Square, DIRECTIONS};
use super::playout::Rng;
use super::{Bitboard, BoardView, EndReason, Outcome, Progress, Rules, Seat, SeatView, View};

/// Seat colours, seat 0 first.
pub const COLOURS: &[&str] = &["x", "o"];

/// The two start layouts of the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    Standard,
    Alt,
}

/// Heights per square, rank 8 first; positive for x, negative for o.
const STANDARD: [[i8; 8]; 8] = [
    [0, 0, -1, -2, -3, -4, -3, -2],
    [0, 0, 0, -1, -2, -3, -2, -1],
    [0, 0, 0, 0, -1, -2, -1, 0],
    [0, 0, 0, 0, 0, -1, 0, 0],
    [0, 0, 1, 0, 0, 0, 0, 0],
    [0, 1, 2, 1, 0, 0, 0, 0],
    [1, 2, 3, 2, 1, 0, 0, 0],
    [2, 3, 4, 3, 2, 1, 0, 0],
];

const ALT: [[i8; 8]; 8] = [
    [-4, -3, -2, -2, -1, 0, 0, 0],
    [-3, -2, -2, -1, 0, 0, 0, 0],
    [-2, -2, -1, 0, 0, 0, 0, 0],
    [-2, -1, 0, 0, 0, 0, 0, 1],
    [-1, 0, 0, 0, 0, 0, 1, 2],
    [0, 0, 0, 0, 0, 1, 2, 2],
    [0, 0, 0, 0, 1, 2, 2, 3],
    [0, 0, 0, 1, 2, 2, 3, 4],
];

/// The number of squares of the board from each square in each of the 8
/// directions of [`DIRECTIONS`], the square itself not counted.
const REACH: [[u8; 8]; 64] = reach(Bitboard::FULL, DIRECTIONS);

/// How many directions lead somewhere from each square: 3, 5 or 8.
const EXITS: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut index = 0;
    while index < 64 {
        let mut dir = 0;
        while dir < 8 {
            if REACH[index][dir] > 0 {
                table[index] += 1;
            }
            dir += 1;
        }
        index += 1;
    }
    table
};

/// An empty square's stack: the marker alone.
const EMPTY: u64 = 1;

/// The height of a stack: the index of its marker bit.
fn height(stack: u64) -> u32 {
    63u32.saturating_sub(stack.leading_zeros())
}

/// `stack` with the lowest `count` pieces of `pieces` put on top, bottom
/// first.
fn stack_on(stack: u64, pieces: u64, count: u32) -> u64 {
    let h = height(stack);
    let block = pieces & 1u64.checked_shl(count).unwrap_or(0).wrapping_sub(1);
    let marker = 1u64.checked_shl(h + count).unwrap_or(0);
    (stack & !(1u64 << h)) | block.checked_shl(h).unwrap_or(0) | marker
}

/// A move: the stack's square and the neighbouring square giving the
/// direction of the collapse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Square,
    pub toward: Square,
}

/// Written through its `Display`.
impl super::Notation for Move {}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from, self.toward)
    }
}

impl FromStr for Move {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Move, NotationError> {
        let parsed = Square::parse_prefix(s).and_then(|(from, rest)| {
            let toward = rest.strip_prefix('-')?.parse().ok()?;
            Some(Move { from, toward })
        });
        parsed.ok_or_else(|| NotationError::new(s, "a stack's square and a neighbouring square, such as c3-d4"))
    }
}

/// Why a well-formed move is not legal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    #[error("{0} is empty")]
    Empty(Square),
    #[error("{square} holds {owner}'s stack")]
    NotYours { square: Square, owner: &'static str },
    #[error("{from}-{toward} gives no direction: name a square next to {from}")]
    NoDirection { from: Square, toward: Square },
    #[error("{toward} is not next to {from}")]
    NotAdjacent { from: Square, toward: Square },
}

/// A Torri position. Each square's stack, of any height up to all 58
/// pieces, is one `u64`: bit `i` is set when the `i`-th piece from the bottom
/// is o's, and a marker bit sits just above the top piece (an empty square
/// is `1`), so the height is the marker's index.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Torri {
    stacks: [u64; 64],
    occupied: Bitboard,
    /// The stacks o commands; x commands the other occupied squares.
    o_top: Bitboard,
    progress: Progress,
}

impl Torri {
    pub fn new(layout: Layout) -> Torri {
        let heights = match layout {
            Layout::Standard => &STANDARD,
            Layout::Alt => &ALT,
        };
        let mut position = Torri {
            stacks: [EMPTY; 64],
            occupied: Bitboard::EMPTY,
            o_top: Bitboard::EMPTY,
            progress: Progress::default(),
        };
        for (row, line) in heights.iter().enumerate() {
            for (file, &height) in line.iter().enumerate() {
                let square = Square::new(file as u8, 7 - row as u8);
                for _ in 0..height.unsigned_abs() {
                    position.put(square, (height < 0) as Seat);
                }
            }
        }
        position
    }

    /// The stack on `square`, bottom to top (0 = x, 1 = o).
    pub fn stack(&self, square: Square) -> Vec<Seat> {
        let bits = self.stacks[square.index()];
        (0..height(bits)).map(|i| (bits.wrapping_shr(i) & 1) as Seat).collect()
    }

    pub fn height(&self, square: Square) -> u32 {
        height(self.stacks[square.index()])
    }

    /// The stacks `seat` commands (its piece on top).
    pub fn commanded(&self, seat: Seat) -> Bitboard {
        self.commands(seat)
    }

    fn put(&mut self, square: Square, seat: Seat) {
        self.stacks[square.index()] = stack_on(self.stacks[square.index()], seat as u64 & 1, 1);
        self.occupied.set(square);
        self.set_top(square);
    }

    fn set_top(&mut self, square: Square) {
        let bits = self.stacks[square.index()];
        match height(bits).checked_sub(1) {
            Some(top) if bits.wrapping_shr(top) & 1 != 0 => self.o_top.set(square),
            _ => self.o_top.clear(square),
        }
    }

    fn top(&self, square: Square) -> Option<Seat> {
        self.occupied
            .contains(square)
            .then(|| self.o_top.contains(square) as Seat)
    }

    /// The stacks `seat` commands.
    fn commands(&self, seat: Seat) -> Bitboard {
        if seat == 0 {
            self.occupied & !self.o_top
        } else {
            self.o_top
        }
    }

    fn direction(m: Move) -> Option<usize> {
        let df = m.toward.file() as i8 - m.from.file() as i8;
        let dr = m.toward.rank() as i8 - m.from.rank() as i8;
        DIRECTIONS.iter().position(|&d| d == (df, dr))
    }

    /// Where the pieces of `from` land when it collapses in direction `dir`:
    /// `(square, pieces)` from the nearest square out.
    fn landings(&self, from: Square, dir: usize) -> ArrayVec<(Square, u32), 7> {
        let (df, dr) = DIRECTIONS[dir];
        let height = self.height(from);
        let reach = REACH[from.index()][dir] as u32;
        let mut landings = ArrayVec::new();
        let mut at = from;
        let mut left = height;
        for step in 1..=reach {
            let Some(next) = at.offset(df, dr) else { break };
            at = next;
            let count = if step == reach { left } else { left.min(1) };
            if count == 0 {
                break;
            }
            landings.push((at, count));
            left -= count;
        }
        landings
    }
}

/// Worst case: o or x has 29 pieces, so commands at most 29 stacks, each with
/// at most 8 directions.
pub type MoveList = ArrayVec<Move, 232>;

impl Rules for Torri {
    type Move = Move;
    type MoveList = MoveList;
    type Illegal = Illegal;

    fn progress(&self) -> &Progress {
        &self.progress
    }

    fn mover(&self) -> Seat {
        (self.progress.ply % 2) as Seat
    }

    fn legal_moves_in_play(&self, moves: &mut MoveList) {
        for from in self.commands(self.mover()) {
            for (dir, &(df, dr)) in DIRECTIONS.iter().enumerate() {
                if REACH[from.index()][dir] > 0 {
                    if let Some(toward) = from.offset(df, dr) {
                        moves.push(Move { from, toward });
                    }
                }
            }
        }
    }

    fn legalize(&self, m: Move) -> Result<Move, Illegal> {
        let owner = self.top(m.from).ok_or(Illegal::Empty(m.from))?;
        if owner != self.mover() {
            return Err(Illegal::NotYours {
                square: m.from,
                owner: COLOURS[owner as usize],
            });
        }
        if m.from == m.toward {
            return Err(Illegal::NoDirection {
                from: m.from,
                toward: m.toward,
            });
        }
        match Torri::direction(m) {
            Some(_) => Ok(m),
            None => Err(Illegal::NotAdjacent {
                from: m.from,
                toward: m.toward,
            }),
        }
    }

    fn play_unchecked(&mut self, m: Move) {
        let Some(dir) = Torri::direction(m) else {
            return;
        };
        let from = m.from.index();
        let mut bits = self.stacks[from];
        for (square, count) in self.landings(m.from, dir) {
            let i = square.index();
            self.stacks[i] = stack_on(self.stacks[i], bits, count);
            self.occupied.set(square);
            self.set_top(square);
            bits = bits.checked_shr(count).unwrap_or(0);
        }
        self.stacks[from] = EMPTY;
        self.occupied.clear(m.from);
        self.o_top.clear(m.from);
        self.progress.ply += 1;
        let next = self.mover();
        if self.commands(next).is_empty() {
            self.progress.outcome = Some(Outcome::win(1 - next, EndReason::NoLegalMove));
        }
    }

    fn describe(&self, m: Move) -> Option<String> {
        let dir = Torri::direction(m)?;
        let landings = self.landings(m.from, dir);
        match landings.as_slice() {
            [(square, 1)] => Some(format!("lands on {square}")),
            _ => {
                let parts: Vec<String> = landings
                    .iter()
                    .map(|(square, count)| format!("{count} on {square}"))
                    .collect();
                Some(format!("collapses: {}", parts.join(", ")))
            }
        }
    }

    fn view(&self) -> View {
        View {
            board: BoardView::of_squares(8, 8, Square::all(), |square| {
                self.stack(square).into_iter().map(Some).collect()
            }),
            seats: SeatView::colours(COLOURS),
            phase: None,
        }
    }

    fn random_move(&self, rng: &mut Rng) -> Option<Move> {
        if self.progress.outcome.is_some() {
            return None;
        }
        let stacks = self.commands(self.mover());
        let total: usize = stacks.map(|s| EXITS[s.index()] as usize).sum();
        if total == 0 {
            return None;
        }
        let mut pick = rng.below(total);
        for from in stacks {
            let exits = EXITS[from.index()] as usize;
            if pick < exits {
                for (dir, &(df, dr)) in DIRECTIONS.iter().enumerate() {
                    if REACH[from.index()][dir] > 0 {
                        if pick == 0 {
                            return from.offset(df, dr).map(|toward| Move { from, toward });
                        }
                        pick -= 1;
                    }
                }
            }
            pick -= exits;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{legal, put_stacks, sq};

    /// An empty board with the given stacks (`square:seats`, bottom to top,
    /// 0 = x, 1 = o), x to move.
    fn setup(stacks: &str) -> Torri {
        let mut game = Torri::new(Layout::Standard);
        game.stacks = [EMPTY; 64];
        game.occupied = Bitboard::EMPTY;
        game.o_top = Bitboard::EMPTY;
        put_stacks(stacks, |square, seat| game.put(square, seat));
        game
    }

    fn stack_of(game: &Torri, square: &str) -> Vec<Seat> {
        game.stack(sq(square))
    }

    fn assert_layout(layout: Layout, rows: [&str; 8]) {
        let game = Torri::new(layout);
        for (row, text) in rows.iter().enumerate() {
            let cells: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(cells.len(), 8);
            for (file, cell) in cells.iter().enumerate() {
                let square = Square::new(file as u8, 7 - row as u8);
                let expected = match cell.as_bytes() {
                    [b'.'] => vec![],
                    [seat, height] => vec![(*seat == b'o') as Seat; (height - b'0') as usize],
                    _ => panic!("{cell}"),
                };
                assert_eq!(game.stack(square), expected, "{layout:?} {square}");
            }
        }
    }

    #[test]
    fn start_layouts_square_by_square() {
        assert_layout(
            Layout::Standard,
            [
                ".  .  o1 o2 o3 o4 o3 o2",
                ".  .  .  o1 o2 o3 o2 o1",
                ".  .  .  .  o1 o2 o1 .",
                ".  .  .  .  .  o1 .  .",
                ".  .  x1 .  .  .  .  .",
                ".  x1 x2 x1 .  .  .  .",
                "x1 x2 x3 x2 x1 .  .  .",
                "x2 x3 x4 x3 x2 x1 .  .",
            ],
        );
        assert_layout(
            Layout::Alt,
            [
                "o4 o3 o2 o2 o1 .  .  .",
                "o3 o2 o2 o1 .  .  .  .",
                "o2 o2 o1 .  .  .  .  .",
                "o2 o1 .  .  .  .  .  x1",
                "o1 .  .  .  .  .  x1 x2",
                ".  .  .  .  .  x1 x2 x2",
                ".  .  .  .  x1 x2 x2 x3",
                ".  .  .  x1 x2 x2 x3 x4",
            ],
        );
        for layout in [Layout::Standard, Layout::Alt] {
            let game = Torri::new(layout);
            let count = |seat| Square::all().flat_map(|s| game.stack(s)).filter(|&p| p == seat).count();
            assert_eq!((count(0), count(1)), (29, 29));
            assert_eq!(game.to_move(), Some(0));
        }
    }

    #[test]
    fn the_seed_collapse_example() {
        // A tower o,o,o,x (x on top) on a1 collapsing east onto
        // `_ x _ (o,x)`: b1 gets o, c1 (x,o), d1 o, e1 (o,x,x).
        let mut game = setup("a1:1110 c1:0 e1:10 h8:1");
        assert_eq!(
            game.describe("a1-b1".parse().unwrap()),
            Some("collapses: 1 on b1, 1 on c1, 1 on d1, 1 on e1".into())
        );
        game.play_str("a1-b1").unwrap();
        assert!(stack_of(&game, "a1").is_empty());
        assert_eq!(stack_of(&game, "b1"), vec![1]);
        assert_eq!(stack_of(&game, "c1"), vec![0, 1]);
        assert_eq!(stack_of(&game, "d1"), vec![1]);
        assert_eq!(stack_of(&game, "e1"), vec![1, 0, 0]);
        assert_eq!(game.to_move(), Some(1));
    }

    #[test]
    fn a_collapse_reaching_the_edge_lands_its_block_there() {
        // Five pieces from f6 toward the north-east: g7 gets the bottom one,
        // h8 (the edge) the four others as a block in the same order.
        let mut game = setup("f6:01011 h8:0");
        game.progress.ply = 1;
        assert_eq!(game.to_move(), Some(1));
        assert_eq!(
            game.describe("f6-g7".parse().unwrap()),
            Some("collapses: 1 on g7, 4 on h8".into())
        );
        game.play_str("f6-g7").unwrap();
        assert_eq!(stack_of(&game, "g7"), vec![0]);
        assert_eq!(stack_of(&game, "h8"), vec![0, 1, 0, 1, 1]);
        // A stack on the edge moving off it along the edge: a tall stack on
        // a8 moving south spreads down the file.
        let mut game = setup("a8:000 h1:1");
        game.play_str("a8-a7").unwrap();
        assert_eq!(
            (stack_of(&game, "a7"), stack_of(&game, "a6"), stack_of(&game, "a5")),
            (vec![0], vec![0], vec![0])
        );
        // Next to the edge: everything lands on the neighbouring edge square.
        let mut game = setup("b2:1010 h8:1");
        game.play_str("b2-a1").unwrap();
        assert_eq!(stack_of(&game, "a1"), vec![1, 0, 1, 0]);
        assert!(stack_of(&game, "b2").is_empty());
    }

    #[test]
    fn single_pieces_step_and_stacks_grow_without_limit() {
        let mut game = setup("c3:0 d4:1111111 h8:1");
        assert_eq!(game.describe("c3-d4".parse().unwrap()), Some("lands on d4".into()));
        game.play_str("c3-d4").unwrap();
        assert_eq!(stack_of(&game, "d4").len(), 8);
        // o commands nothing now: x wins.
        assert_eq!(game.outcome(), None, "o still commands h8");
        let mut game = setup("c3:0 d4:1");
        game.play_str("C3-D4").unwrap();
        assert_eq!(game.outcome(), Some(Outcome::win(0, EndReason::NoLegalMove)));
        assert!(legal(&game).is_empty());
        assert_eq!(game.to_move(), None);
    }

    #[test]
    fn a_player_commanding_no_stack_loses_even_with_pieces_on_the_board() {
        // o's pieces are all buried under x: o loses on its turn.
        let mut game = setup("c3:0 d3:1 e5:10 f5:0");
        game.play_str("c3-d3").unwrap();
        assert_eq!(stack_of(&game, "d3"), vec![1, 0]);
        assert_eq!(game.outcome(), Some(Outcome::win(0, EndReason::NoLegalMove)));
    }

    #[test]
    fn errors_name_what_is_wrong() {
        let mut game = Torri::new(Layout::Standard);
        assert_eq!(game.play_str("e4-e5").unwrap_err().to_string(), "e4 is empty");
        assert_eq!(game.play_str("f8-f7").unwrap_err().to_string(), "f8 holds o's stack");
        assert_eq!(game.play_str("c3-c5").unwrap_err().to_string(), "c5 is not next to c3");
        assert_eq!(
            game.play_str("c3-c3").unwrap_err().to_string(),
            "c3-c3 gives no direction: name a square next to c3"
        );
        for bad in ["", "c3", "c3-", "c3d4", "c3-d4-", "c9-c8", "c3x d4"] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
        // Off the board is never a neighbour: a1 has three.
        let game = setup("a1:0 h8:1");
        assert_eq!(legal(&game), vec!["a1-a2", "a1-b1", "a1-b2"]);
    }

    #[test]
    fn start_moves_count_every_commanded_stack_and_direction() {
        // x: c4 b3 c3 d3 b2 c2 d2 e2 inside (8 each), a2 (5), a1 (3),
        // b1 c1 d1 e1 f1 (5 each).
        assert_eq!(legal(&Torri::new(Layout::Standard)).len(), 8 * 8 + 5 + 3 + 5 * 5);
        assert_eq!(legal(&Torri::new(Layout::Alt)).len(), 91);
    }

    #[test]
    fn random_moves_are_legal_and_pieces_are_kept() {
        let mut rng = Rng::new(9);
        for layout in [Layout::Standard, Layout::Alt] {
            for _ in 0..10 {
                let mut game = Torri::new(layout);
                while let Some(m) = game.random_move(&mut rng) {
                    assert!(legal(&game).contains(&m.to_string()));
                    game.play_unchecked(m);
                    let pieces: usize = Square::all().map(|s| game.height(s) as usize).sum();
                    assert_eq!(pieces, 58);
                    let o: usize = Square::all()
                        .map(|s| game.stack(s).iter().filter(|&&p| p == 1).count())
                        .sum();
                    assert_eq!(o, 29);
                    if game.progress.ply > 500 {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn view_shows_all_64_cells() {
        let view = Torri::new(Layout::Standard).view();
        assert_eq!(view.board.cells.len(), 64);
        let c1 = view.board.cells.iter().find(|c| c.name == "c1").unwrap();
        assert_eq!(c1.stack, vec![Some(0); 4]);
        assert_eq!((c1.x, c1.y), (2.5, 7.5));
    }
}
