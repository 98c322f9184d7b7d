//! What the search knows of Torri. A seat loses when it commands no stack,
//! and nothing is ever captured, so a game ends only when one side covers
//! the other's last stacks. Uniformly random playouts never do that: they
//! scatter both sides' pieces, and a bot far ahead (twenty stacks to three)
//! finds every move equally good, so it never finishes (2 wins in 22 games
//! against random moves within 200 plies). Two things drive it to the end:
//!
//! - the evaluation counts stacks on a log scale, so taking an opponent
//!   from three stacks to one weighs as much as from twenty to seven: the
//!   search still sees the difference when far ahead;
//! - the playout picks the best of a few random moves by the stacks it
//!   leaves each side (a tournament), so a playout's winning side covers
//!   stacks as a player does, and playouts end in wins the search can see.

use crate::rules::playout::Rng;
use crate::rules::torri::{self, Torri};
use crate::rules::{Rules, Seat};

use super::heuristics::{Heuristics, Scores};

/// Random moves a playout compares before making the best of them: more is
/// greedier and slower; one would be uniform.
const TOURNAMENT: usize = 3;

/// The evaluation of one seat: how many stacks it commands, on a log scale.
fn standing(game: &Torri, seat: Seat) -> f32 {
    (1.0 + game.commanded(seat).count() as f32).ln()
}

/// How good a position is for `seat`: its standing less the other seat's.
fn margin(game: &Torri, seat: Seat) -> f32 {
    standing(game, seat) - standing(game, 1 - seat)
}

impl Heuristics for Torri {
    const CUTOFF: Option<u32> = Some(16);
    /// Log units: a ratio of stacks of about e (say eight to three) makes
    /// the leader about 73 % sure.
    const SCALE: f32 = 0.6;

    fn evaluate(&self) -> Scores {
        [standing(self, 0), standing(self, 1), 0.0, 0.0]
    }

    /// The best of [`TOURNAMENT`] random moves for the seat to move, by
    /// the margin each leaves it; a move that wins at once wins outright.
    fn playout_move(&self, rng: &mut Rng) -> Option<torri::Move> {
        let seat = self.to_move()?;
        let mut moves = torri::MoveList::default();
        self.legal_moves(&mut moves);
        let moves = moves.as_slice();
        if moves.is_empty() {
            return None;
        }
        let mut best = None;
        for _ in 0..TOURNAMENT {
            let m = moves[rng.below(moves.len())];
            let mut next = self.clone();
            next.play_unchecked(m);
            let value = if next.outcome().is_some() {
                f32::INFINITY
            } else {
                margin(&next, seat)
            };
            if best.is_none_or(|(_, v)| value > v) {
                best = Some((m, value));
            }
        }
        best.map(|(m, _)| m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::torri::Layout;

    /// Plays `line` from the standard start.
    fn after(line: &[&str]) -> Torri {
        let mut game = Torri::new(Layout::Standard);
        for m in line {
            let m: torri::Move = m.parse().expect("notation");
            game.play_unchecked(game.legalize(m).expect("legal"));
        }
        game
    }

    #[test]
    fn the_start_is_even_and_the_evaluation_grows_with_stacks() {
        let start = Torri::new(Layout::Standard);
        let [x, o, ..] = start.evaluate();
        assert!((x - o).abs() < 1e-6, "the setups mirror each other: {x} {o}");
        assert!(standing(&start, 0) > 0.0);
        // e1's two pieces spread onto the empty f2 and g3: x commands one
        // stack more, and its margin grows.
        let spread = after(&["e1-f2"]);
        assert_eq!(spread.commanded(0).count(), start.commanded(0).count() + 1);
        assert!(margin(&spread, 0) > margin(&start, 0));
    }

    #[test]
    fn the_log_scale_keeps_the_end_in_sight() {
        // Twenty stacks against three, then against one: the difference
        // the search sees is larger than going from four to three when even.
        let far = (21.0f32).ln() - (4.0f32).ln();
        let finished = (21.0f32).ln() - (2.0f32).ln();
        let even = (5.0f32).ln() - (4.0f32).ln();
        assert!(finished - far > even);
    }

    #[test]
    fn every_playout_move_is_legal() {
        for layout in [Layout::Standard, Layout::Alt] {
            let mut game = Torri::new(layout);
            let mut rng = Rng::new(9);
            for ply in 0..400 {
                let Some(m) = game.playout_move(&mut rng) else {
                    assert!(game.outcome().is_some(), "no move only at the end");
                    break;
                };
                assert_eq!(game.legalize(m), Ok(m), "{m} at ply {ply}");
                game.play_unchecked(m);
            }
        }
    }

    #[test]
    fn the_strongest_level_ends_a_torri_game_against_random_moves() {
        for layout in ["standard", "alt"] {
            let mut game = crate::rules::AnyGame::new("torri", Some(layout)).expect("known");
            while !game.is_finished() && game.ply() < 400 {
                let seed = u64::from(game.ply());
                let m = if game.to_move() == Some(0) {
                    crate::bots::choose_with(&game, crate::bots::Level::Strongest.budget(), seed)
                } else {
                    crate::bots::random(&game, seed)
                }
                .expect("a move");
                game.play(&m).expect("legal");
            }
            let outcome = game.outcome().expect("the bot ends the game within 400 plies");
            assert!(outcome.winners.contains(0), "{layout}: the bot wins");
        }
    }
}
