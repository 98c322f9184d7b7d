//! What the games' unit tests share: squares by name, stacks as text, a
//! position's legal moves as the notation prints them, notation round
//! trips, random walks.

use std::fmt;
use std::str::FromStr;

use super::board::Square;
use super::playout::Rng;
use super::{AnyGame, MoveBuffer, Rules, Seat};

pub fn sq(name: &str) -> Square {
    name.parse().expect("a square's name")
}

/// Stacks as the stacking games' tests write them, `square:seats` bottom
/// to top (`c3:010`): each piece goes to `put`, lowest first.
pub fn put_stacks(stacks: &str, mut put: impl FnMut(Square, Seat)) {
    for item in stacks.split_whitespace() {
        let (square, seats) = item.split_once(':').expect("square:seats");
        for seat in seats.bytes() {
            put(sq(square), seat - b'0');
        }
    }
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

/// Plays `game` to its end the same way every time, for tests that need a
/// finished game and not a crafted one: the `n`th move is legal move
/// `(n × stride + offset) mod count`. The moves, in order.
pub fn play_out(game: &mut AnyGame, stride: usize, offset: usize) -> Vec<String> {
    let mut moves = Vec::new();
    while !game.is_finished() {
        let legal = game.legal_moves();
        let pick = legal[(moves.len() * stride + offset) % legal.len()].clone();
        game.play(&pick).expect("a legal move");
        moves.push(pick);
    }
    moves
}

/// Why `text` is refused in `game`, as a player reads it.
pub fn refusal<R: Rules>(game: &R, text: &str) -> String {
    match game.clone().play_str(text) {
        Ok(m) => panic!("{text} was accepted as {m}"),
        Err(e) => e.to_string(),
    }
}
