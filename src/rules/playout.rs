//! Random playouts: a small, fast, seedable generator and a loop that plays
//! random legal moves to the end. Used by benchmarks, property tests and the
//! load generator; no game logic lives here.

use super::{Outcome, Rules};

/// SplitMix64: tiny state, good enough statistics for choosing moves, and
/// reproducible from a seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift: no division.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// Plays random legal moves until the game ends or `max_plies` moves were
/// made; returns the number of moves made and the outcome, if reached.
pub fn random_playout<G: Rules>(game: &mut G, rng: &mut Rng, max_plies: u32) -> (u32, Option<Outcome>) {
    let mut plies = 0;
    while plies < max_plies {
        if let Some(outcome) = game.outcome() {
            return (plies, Some(outcome));
        }
        match game.random_move(rng) {
            Some(m) => game.play_unchecked(m),
            None => break,
        }
        plies += 1;
    }
    (plies, game.outcome())
}
