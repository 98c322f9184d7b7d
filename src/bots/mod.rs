//! The built-in opponents' thinking: pure code beside the rules, no I/O,
//! no async, no clock. Given a position, a [`Level`] and a seed, [`choose`]
//! returns the move to play; the same inputs always give the same move, on
//! any machine, because a level's budget counts playouts, not time.
//!
//! - [`search`]: UCT over any [`Rules`](crate::rules::Rules) (max^n for
//!   four players).
//! - [`heuristics`]: per game, the evaluation of playouts cut off early,
//!   the moves worth searching and the playout policy.
//! - [`tactics`]: win in one, and never allow a win in one, at the root.
//! - [`endgame`]: minimax instead of sampling, for the strongest level in
//!   the endgames a game names (Vicini Amici's chase of the last pairs).
//! - [`pente`]: Pente's evaluation, and the strongest level's reading of
//!   open threes and fours.
//! - [`torri`]: Torri's evaluation and playouts, which drive a game to its
//!   end.
//!
//! The service (`crate::games::bots`) decides when a bot moves and plays its
//! move like anyone's.

pub mod endgame;
pub mod heuristics;
pub mod pente;
pub mod search;
pub mod tactics;
#[cfg(test)]
mod tests;
pub mod torri;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::rules::playout::Rng;
use crate::rules::{AnyGame, Position};

use heuristics::Heuristics;

/// How hard a bot thinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    Beginner,
    Intermediate,
    Strongest,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Beginner, Level::Intermediate, Level::Strongest];

    pub fn budget(self) -> Budget {
        match self {
            Level::Beginner => Budget {
                playouts: 60,
                tactics: false,
                threats: false,
            },
            Level::Intermediate => Budget {
                playouts: 600,
                tactics: true,
                threats: false,
            },
            Level::Strongest => Budget {
                playouts: 4000,
                tactics: true,
                threats: true,
            },
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Level::Beginner => "Thinks a little (60 playouts a move) and misses tactics: a first opponent.",
            Level::Intermediate => "600 playouts a move; takes a win in one and stops yours.",
            Level::Strongest => {
                "4000 playouts a move, with tactics (in Pente also open fours made and open threes stopped; in a Vicini Amici endgame, minimax nine plies deep): the strongest that answers within a second."
            }
        }
    }

    pub fn slug(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Intermediate => "intermediate",
            Level::Strongest => "strongest",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.slug())
    }
}

impl Serialize for Level {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.slug())
    }
}

/// A level slug that is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown bot level {0:?}; levels are beginner, intermediate, strongest")]
pub struct UnknownLevel(String);

impl FromStr for Level {
    type Err = UnknownLevel;

    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        Level::ALL
            .into_iter()
            .find(|level| level.slug() == s)
            .ok_or_else(|| UnknownLevel(crate::rules::NotationError::echo(s)))
    }
}

/// What one move may cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Playouts of the tree search.
    pub playouts: u32,
    /// Whether the root takes a win in one and avoids a loss in one.
    pub tactics: bool,
    /// Whether the root also reads threats two moves deep, in the games
    /// that look for them: takes a win in two ([`Heuristics::reads_wins_in_two`])
    /// and meets the next player's or makes its own
    /// ([`Heuristics::read_threats`]); and reads by minimax the endgames
    /// the game names ([`Heuristics::endgame_depth`]).
    pub threats: bool,
}

/// The move a bot of `level` plays in `game`, in canonical notation;
/// `None` when the game is over.
pub fn choose(game: &AnyGame, level: Level, seed: u64) -> Option<String> {
    choose_with(game, level.budget(), seed)
}

/// [`choose`] with any budget.
pub fn choose_with(game: &AnyGame, budget: Budget, seed: u64) -> Option<String> {
    let mut rng = Rng::new(seed);
    match game.position() {
        Position::Gravity(g) => think(g, budget, &mut rng),
        Position::Torri(g) => think(g, budget, &mut rng),
        Position::Focus(g) => think(g, budget, &mut rng),
        Position::Neighbours(g) => think(g, budget, &mut rng),
        Position::Pente(g) => think(g, budget, &mut rng),
        Position::Huntsmen(g) => think(g, budget, &mut rng),
    }
}

/// A uniformly random legal move: the yardstick bots are measured against.
pub fn random(game: &AnyGame, seed: u64) -> Option<String> {
    let legal = game.legal_moves();
    (!legal.is_empty()).then(|| legal[Rng::new(seed).below(legal.len())].clone())
}

fn think<G: Heuristics>(game: &G, budget: Budget, rng: &mut Rng) -> Option<String> {
    game.to_move()?;
    let mut moves = search::candidates(game);
    if budget.tactics {
        if let Some(win) = tactics::winning_move(game, &moves) {
            return Some(win.to_string());
        }
        moves = tactics::safe_moves(game, moves);
        if budget.threats {
            if let Some(depth) = game.endgame_depth() {
                return endgame::best(game, &moves, depth).map(|read| read.best.to_string());
            }
            if game.reads_wins_in_two() {
                if let Some(win) = tactics::winning_in_two(game, &moves) {
                    return Some(win.to_string());
                }
            }
            moves = game.read_threats(moves);
        }
    }
    search::search(game, moves, budget.playouts, rng)
        .best
        .map(|m| m.to_string())
}
