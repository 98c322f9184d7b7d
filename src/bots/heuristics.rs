//! What the search knows of each game beyond its rules: a cheap evaluation
//! for playouts cut off before the end, which moves are worth searching,
//! and how a playout picks its moves. Everything here is a heuristic: it
//! may make the bot weaker or stronger, never make it play an illegal move
//! (every move still comes from `legal_moves` or `legalize`).

use crate::rules::focus::{Focus, Variant as FocusVariant};
use crate::rules::gravity::Gravity;
use crate::rules::huntsmen::Huntsmen;
use crate::rules::neighbours::Neighbours;
use crate::rules::pente::{self, Pente, Point};
use crate::rules::playout::Rng;
use crate::rules::{Rules, Seat};

/// Each seat's evaluation, higher is better, in the game's own units.
pub type Scores = [f32; 4];

/// A game as the search sees it.
pub trait Heuristics: Rules {
    /// How many seats play.
    fn seats(&self) -> u8 {
        2
    }

    /// Plies a playout runs before [`Heuristics::evaluate`] decides; `None`
    /// plays to the end (games whose random games are short anyway).
    const CUTOFF: Option<u32>;

    /// Evaluation units that make one seat about 73 % sure to win (the
    /// logistic's scale).
    const SCALE: f32 = 1.0;

    /// Each seat's standing, for a playout cut off early.
    fn evaluate(&self) -> Scores {
        [0.0; 4]
    }

    /// Narrows `moves` to those worth searching; the list is never left
    /// empty when it was not.
    fn prune(&self, _moves: &mut Self::MoveList) {}

    /// The move a playout makes.
    fn playout_move(&self, rng: &mut Rng) -> Option<Self::Move> {
        self.random_move(rng)
    }

    /// Whether the strongest level looks for a win in two at the root
    /// (see [`super::tactics::winning_in_two`]): for games whose threats
    /// random playouts miss and whose wins in two are few and cheap to see.
    const WINS_IN_TWO: bool = false;

    /// Seats sharing `seat`'s result (its team), as a bit set.
    fn team(&self, seat: Seat) -> u8 {
        1 << seat
    }
}

impl Heuristics for Gravity {
    // A Gravity game has at most 64 plies: play them out.
    const CUTOFF: Option<u32> = None;
}

/// Material as the count of each seat's pieces.
fn two(a: u32, b: u32) -> Scores {
    [a as f32, b as f32, 0.0, 0.0]
}

impl Heuristics for Neighbours {
    const CUTOFF: Option<u32> = Some(30);
    const SCALE: f32 = 1.5;

    fn evaluate(&self) -> Scores {
        two(self.pieces(0).count(), self.pieces(1).count())
    }
}

impl Heuristics for Huntsmen {
    const CUTOFF: Option<u32> = Some(30);
    const SCALE: f32 = 1.5;

    fn evaluate(&self) -> Scores {
        two(self.pieces_left(0) as u32, self.pieces_left(1) as u32)
    }
}

impl Heuristics for Focus {
    const CUTOFF: Option<u32> = Some(20);
    const SCALE: f32 = 3.0;

    fn seats(&self) -> u8 {
        match self.variant() {
            FocusVariant::Four | FocusVariant::FourTeams => 4,
            FocusVariant::Standard | FocusVariant::NoSwap => 2,
        }
    }

    /// A seat with neither a stack to move nor a piece to drop is out:
    /// count both, and what it captured (which weakens the others).
    fn evaluate(&self) -> Scores {
        let mut scores = [0.0; 4];
        for seat in 0..self.seats() {
            if !self.is_out(seat) {
                scores[seat as usize] =
                    self.commanded(seat).count() as f32 + self.reserve(seat) as f32 + 0.25 * self.captured(seat) as f32;
            }
        }
        if self.variant() == FocusVariant::FourTeams {
            for seat in 0..2 {
                let team = scores[seat] + scores[seat + 2];
                scores[seat] = team;
                scores[seat + 2] = team;
            }
        }
        scores
    }

    fn team(&self, seat: Seat) -> u8 {
        match self.variant() {
            FocusVariant::FourTeams => (1 << seat) | (1 << ((seat + 2) % 4)),
            _ => 1 << seat,
        }
    }
}

/// Pente's board side.
const SIDE: u8 = 19;

impl Heuristics for Pente {
    const CUTOFF: Option<u32> = Some(16);
    const SCALE: f32 = 30.0;
    /// An open four (or a four and a three) wins in two; the level below
    /// blocks a four only once it stands, so the strongest makes them.
    const WINS_IN_TWO: bool = true;

    /// Captures (each pair counts toward the win) and the open five-point
    /// windows each seat holds, a window with more stones counting far more.
    fn evaluate(&self) -> Scores {
        let mut scores = [0.0; 4];
        for (seat, score) in scores.iter_mut().enumerate().take(2) {
            *score = 6.0 * self.captured(seat as Seat) as f32 + 10.0 * self.score(seat as Seat) as f32;
        }
        const WEIGHT: [f32; 6] = [0.0, 0.2, 1.5, 8.0, 40.0, 200.0];
        const AXES: [(i8, i8); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
        for rank in 0..SIDE as i8 {
            for file in 0..SIDE as i8 {
                for (df, dr) in AXES {
                    let (last_file, last_rank) = (file + 4 * df, rank + 4 * dr);
                    if !(0..SIDE as i8).contains(&last_file) || !(0..SIDE as i8).contains(&last_rank) {
                        continue;
                    }
                    let mut counts = [0usize; 2];
                    let mut blocked = false;
                    for i in 0..5 {
                        let point = Point::new((file + i * df) as u8, (rank + i * dr) as u8);
                        match self.stone_at(point) {
                            Some(Some(seat)) => counts[seat as usize & 1] += 1,
                            Some(None) => blocked = true,
                            None => {}
                        }
                    }
                    if blocked {
                        continue;
                    }
                    match counts {
                        [n, 0] => scores[0] += WEIGHT[n],
                        [0, n] => scores[1] += WEIGHT[n],
                        _ => {}
                    }
                }
            }
        }
        scores
    }

    /// Only points next to a stone, or two away from one, are worth a
    /// thought (every winning point is next to a stone).
    fn prune(&self, moves: &mut pente::MoveList) {
        let near: pente::MoveList = moves
            .as_slice()
            .iter()
            .copied()
            .filter(|m| near_stone(self, m.point, 2))
            .collect();
        if !near.is_empty() {
            *moves = near;
        }
    }

    /// A random free point next to a stone (legalised, so the variant's
    /// own rules still apply), or any random move when none is found.
    fn playout_move(&self, rng: &mut Rng) -> Option<pente::Move> {
        self.outcome()?;
        for _ in 0..48 {
            let point = Point::new(rng.below(SIDE as usize) as u8, rng.below(SIDE as usize) as u8);
            if self.stone_at(point).is_some() || !near_stone(self, point, 1) {
                continue;
            }
            if let Ok(m) = self.legalize(pente::Move::stone(point)) {
                return Some(m);
            }
        }
        self.random_move(rng)
    }
}

/// Whether a stone stands within `distance` (Chebyshev) of `point`.
fn near_stone(game: &Pente, point: Point, distance: i8) -> bool {
    let (file, rank) = coordinates(point);
    (-distance..=distance).any(|df| {
        (-distance..=distance).any(|dr| {
            let (f, r) = (file + df, rank + dr);
            (df, dr) != (0, 0)
                && (0..SIDE as i8).contains(&f)
                && (0..SIDE as i8).contains(&r)
                && game.stone_at(Point::new(f as u8, r as u8)).is_some()
        })
    })
}

fn coordinates(point: Point) -> (i8, i8) {
    (point.file() as i8, point.rank() as i8)
}
