//! What the search knows of each game beyond its rules: a cheap evaluation
//! for playouts cut off before the end, which moves are worth searching,
//! and how a playout picks its moves. Everything here is a heuristic: it
//! may make the bot weaker or stronger, never make it play an illegal move
//! (every move still comes from `legal_moves` or `legalize`). Torri's and
//! Pente's are in modules of their own ([`super::torri`], [`super::pente`]).

use crate::rules::focus::{Focus, Variant as FocusVariant};
use crate::rules::gravity::Gravity;
use crate::rules::huntsmen::Huntsmen;
use crate::rules::neighbours::Neighbours;
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

    /// The strongest level's reading of threats random playouts miss
    /// (the next player's to meet, its own to make): narrows `moves` to
    /// those worth searching, never to none. Most games have none to read.
    fn read_threats(&self, moves: Vec<Self::Move>) -> Vec<Self::Move> {
        moves
    }

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
    /// Log units, as Focus's: twice the other's pieces, 80 % sure.
    const SCALE: f32 = 0.5;

    /// Pieces left, on a log scale: counted plainly, a bot far ahead found
    /// every move equally good and did not take the last pieces (in
    /// Vicini Amici the strongest level left 27 of 40 games against the
    /// intermediate unfinished at 300 plies, having lost none).
    fn evaluate(&self) -> Scores {
        two(self.pieces(0).count(), self.pieces(1).count()).map(|n: f32| n.ln_1p())
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
    /// Log units: shares go by `(1 + material)^(1 / SCALE)`, so a seat
    /// with twice the other's material is 80 % sure.
    const SCALE: f32 = 0.5;

    fn seats(&self) -> u8 {
        match self.variant() {
            FocusVariant::Four | FocusVariant::FourTeams => 4,
            FocusVariant::Standard | FocusVariant::NoSwap => 2,
        }
    }

    /// A seat with neither a stack to move nor a piece to drop is out:
    /// its material counts both, and what it captured (which weakens the
    /// others). On a log scale, as Torri's stacks ([`super::torri`]): with
    /// a linear count a bot far ahead (fifteen to three) found every move
    /// equally good and never took the last pieces (27 of 40 games of the
    /// intermediate against the beginner went past 300 plies); taking the
    /// other from three to one now weighs as much as from fifteen to eight.
    fn evaluate(&self) -> Scores {
        let mut material = [0.0; 4];
        for seat in 0..self.seats() {
            if !self.is_out(seat) {
                material[seat as usize] =
                    self.commanded(seat).count() as f32 + self.reserve(seat) as f32 + 0.25 * self.captured(seat) as f32;
            }
        }
        if self.variant() == FocusVariant::FourTeams {
            for seat in 0..2 {
                let team = material[seat] + material[seat + 2];
                material[seat] = team;
                material[seat + 2] = team;
            }
        }
        material.map(|m: f32| m.ln_1p())
    }

    fn team(&self, seat: Seat) -> u8 {
        match self.variant() {
            FocusVariant::FourTeams => (1 << seat) | (1 << ((seat + 2) % 4)),
            _ => 1 << seat,
        }
    }
}
