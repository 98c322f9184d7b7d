//! Who plays whom: the pairing algorithms of the three formats, pure (no
//! I/O, no clock), each a function of what was played before.
//!
//! - [`round_robin`]: the whole schedule at once (Berger tables), seats
//!   balanced; a double round robin plays it again with seats swapped.
//! - [`swiss`]: one round at a time, Dutch style: score groups, top half
//!   against bottom half, no pair twice, seats balanced within one, a bye
//!   to the lowest player who has not had one.
//! - [`league`]: a season's groups, and the next season's after promotion
//!   and relegation.
//!
//! Players are plain ids; the service turns pairs into games.

pub mod league;
pub mod round_robin;
pub mod swiss;

/// One pairing of a round: `first` takes seat 0 against `second`, or has a
/// bye when there is no second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    pub first: i64,
    pub second: Option<i64>,
}

impl Pair {
    pub fn game(first: i64, second: i64) -> Pair {
        Pair {
            first,
            second: Some(second),
        }
    }

    pub fn bye(player: i64) -> Pair {
        Pair {
            first: player,
            second: None,
        }
    }

    /// Whether `player` is in this pairing.
    pub fn has(&self, player: i64) -> bool {
        self.first == player || self.second == Some(player)
    }
}
