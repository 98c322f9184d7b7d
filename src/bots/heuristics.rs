//! What the search knows of each game beyond its rules: a cheap evaluation
//! for playouts cut off before the end, which moves are worth searching,
//! and how a playout picks its moves. Everything here is a heuristic: it
//! may make the bot weaker or stronger, never make it play an illegal move
//! (every move still comes from `legal_moves` or `legalize`). Torri's and
//! Pente's are in modules of their own ([`super::torri`], [`super::pente`]).

use crate::rules::board::{Bitboard, Square};
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

    /// Plies a playout from this position runs before the evaluation
    /// decides: [`Heuristics::CUTOFF`], unless the position asks for less.
    fn playout_plies(&self) -> Option<u32> {
        Self::CUTOFF
    }

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
    fn reads_wins_in_two(&self) -> bool {
        false
    }

    /// The strongest level's reading of threats random playouts miss
    /// (the next player's to meet, its own to make): narrows `moves` to
    /// those worth searching, never to none. Most games have none to read.
    fn read_threats(&self, moves: Vec<Self::Move>) -> Vec<Self::Move> {
        moves
    }

    /// Plies the strongest level reads by minimax ([`super::endgame`])
    /// instead of sampling, in the endgames where sampling cannot chase;
    /// `None` (the default) samples.
    fn endgame_depth(&self) -> Option<u32> {
        None
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
    /// intermediate unfinished at 300 plies, having lost none). In Vicini
    /// Amici the side ahead also gains as its pieces close in on the
    /// other's ([`closing_in`]).
    fn evaluate(&self) -> Scores {
        let mut scores = two(self.pieces(0).count(), self.pieces(1).count()).map(|n: f32| n.ln_1p());
        if let Some(ahead) = friendly_side_ahead(self) {
            scores[ahead as usize] += MOP_UP * closing_in(self.pieces(ahead), self.pieces(1 - ahead));
        }
        scores
    }

    /// In Vicini Amici with one side ahead, thirty random plies scatter the
    /// pieces the evaluation looks at, so how close the hunters stand tells
    /// nothing about the move searched; four plies keep it the search's
    /// guide.
    fn playout_plies(&self) -> Option<u32> {
        match friendly_side_ahead(self) {
            Some(_) => Some(4),
            None => Self::CUTOFF,
        }
    }

    /// In Vicini Amici a side behind keeps its last pieces in pairs, which
    /// walk for ever: the strongest level also looks for the capture that
    /// leaves the other side no move two moves ahead.
    fn reads_wins_in_two(&self) -> bool {
        self.is_friendly()
    }

    /// In Vicini Amici with one side ahead and few pieces left, the side
    /// ahead has to walk its pieces up to the last pairs, never a step
    /// where a reply captures: read by minimax.
    fn endgame_depth(&self) -> Option<u32> {
        let pieces = self.pieces(0).count() + self.pieces(1).count();
        (friendly_side_ahead(self).is_some() && pieces <= ENDGAME_PIECES).then_some(ENDGAME_DEPTH)
    }
}

/// Pieces on the board, both sides', at most, for a Vicini Amici endgame
/// read by minimax, and the plies it reads.
const ENDGAME_PIECES: u32 = 7;
const ENDGAME_DEPTH: u32 = 9;

/// The weight of [`closing_in`] against the log of the pieces (the gap
/// between four pieces and two is 0.51): enough to choose among moves the
/// material cannot tell apart, not enough to give up a piece for.
pub(super) const MOP_UP: f32 = 0.15;

/// How close `hunters` stand to `hunted`, from 0 (seven squares or more
/// from each) to 1 (each hunted piece has a hunter beside it): the mean over
/// the hunted pieces of how near the nearest hunter is. A side behind in
/// Vicini Amici survives by keeping its pieces in pairs that walk away;
/// material alone does not tell the side ahead to chase them (the mop-up
/// term of chess engines, which brings the king to the lone king).
pub(super) fn closing_in(hunters: Bitboard, hunted: Bitboard) -> f32 {
    let near = |prey: Square| {
        let nearest = hunters
            .map(|hunter| {
                hunter
                    .file()
                    .abs_diff(prey.file())
                    .max(hunter.rank().abs_diff(prey.rank()))
            })
            .min()
            .unwrap_or(7);
        f32::from(7 - nearest) / 6.0
    };
    match hunted.count() {
        0 => 0.0,
        n => hunted.map(near).sum::<f32>() / n as f32,
    }
}

/// In Vicini Amici, the seat with more pieces; `None` in plain Vicini or
/// with even material.
fn friendly_side_ahead(game: &Neighbours) -> Option<Seat> {
    let (white, black) = (game.pieces(0).count(), game.pieces(1).count());
    (game.is_friendly() && white != black).then_some(Seat::from(black > white))
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
