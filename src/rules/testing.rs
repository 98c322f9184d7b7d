//! What the games' unit tests share: squares by name, and a position's
//! legal moves as the notation prints them.

use super::board::Square;
use super::{MoveBuffer, Rules};

pub fn sq(name: &str) -> Square {
    name.parse().expect("a square's name")
}

pub fn legal<R: Rules>(game: &R) -> Vec<String> {
    let mut moves = R::MoveList::default();
    game.legal_moves(&mut moves);
    moves.as_slice().iter().map(ToString::to_string).collect()
}
