//! What the games' unit tests share: squares by name, a position's legal
//! moves as the notation prints them, notation round trips, random walks.

use std::fmt;
use std::str::FromStr;

use super::board::Square;
use super::playout::Rng;
use super::{MoveBuffer, Rules};

pub fn sq(name: &str) -> Square {
    name.parse().expect("a square's name")
}

pub fn legal<R: Rules>(game: &R) -> Vec<String> {
    let mut moves = R::MoveList::default();
    game.legal_moves(&mut moves);
    moves.as_slice().iter().map(ToString::to_string).collect()
}

/// Each `(text, canonical)`: `text` parses, prints as `canonical`, and
/// `canonical` parses back to the same move.
pub fn assert_notation<M>(cases: &[(&str, &str)])
where
    M: FromStr + fmt::Display + PartialEq + fmt::Debug,
    M::Err: fmt::Debug,
{
    for &(text, canonical) in cases {
        let parsed: M = text.parse().unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert_eq!(parsed.to_string(), canonical, "{text}");
        assert_eq!(canonical.parse::<M>().ok(), Some(parsed), "{canonical}");
    }
}

/// Plays up to `plies` random legal moves, fewer when the game ends.
pub fn play_randomly<R: Rules>(game: &mut R, rng: &mut Rng, plies: usize) {
    for _ in 0..plies {
        match game.random_move(rng) {
            Some(m) if game.outcome().is_none() => game.play_unchecked(m),
            _ => break,
        }
    }
}

/// Why `text` is refused in `game`, as a player reads it.
pub fn refusal<R: Rules>(game: &R, text: &str) -> String {
    match game.clone().play_str(text) {
        Ok(m) => panic!("{text} was accepted as {m}"),
        Err(e) => e.to_string(),
    }
}
