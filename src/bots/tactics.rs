//! Tactical checks at the root, before any search: take a win in one, and
//! never play a move that lets the next player win at once when another
//! move does not. Random playouts see neither reliably (a Pente five is one
//! point among hundreds), and both are cheap: one or two plies of the rules.
//! The strongest level also takes a win in two where the game asks for it
//! (Pente's open fours: [`Heuristics::reads_wins_in_two`]); it stays cheap because
//! a move fails at the first reply that leaves no win.

use crate::rules::Seat;

use super::heuristics::Heuristics;
use super::search::candidates;

/// Whether playing `m` in `game` ends the game with `team` among the winners.
fn wins<G: Heuristics>(game: &G, m: G::Move, team: u8) -> bool {
    let mut next = game.clone();
    next.play_unchecked(m);
    next.outcome()
        .is_some_and(|o| (0..4).any(|s: Seat| team & (1 << s) != 0 && o.winners.contains(s)))
}

/// A move of `moves` that wins at once for the seat to move.
pub fn winning_move<G: Heuristics>(game: &G, moves: &[G::Move]) -> Option<G::Move> {
    let team = game.team(game.to_move()?);
    moves.iter().copied().find(|&m| wins(game, m, team))
}

/// A move of `moves` that wins in two for the seat to move: after it, the
/// next player (not a partner) has a reply, and every reply leaves the
/// seat to move again a win in one.
pub fn winning_in_two<G: Heuristics>(game: &G, moves: &[G::Move]) -> Option<G::Move> {
    let ours = game.team(game.to_move()?);
    moves.iter().copied().find(|&m| {
        let mut next = game.clone();
        next.play_unchecked(m);
        match next.to_move() {
            Some(them) if ours & (1 << them) == 0 => {
                let replies = candidates(&next);
                !replies.is_empty()
                    && replies.into_iter().all(|reply| {
                        let mut after = next.clone();
                        after.play_unchecked(reply);
                        after.to_move().is_some_and(|us| ours & (1 << us) != 0)
                            && winning_move(&after, &candidates(&after)).is_some()
                    })
            }
            _ => false,
        }
    })
}

/// The moves of `moves` after which the next player (when not a partner)
/// has no winning reply; all of `moves` when every one of them loses.
pub fn safe_moves<G: Heuristics>(game: &G, moves: Vec<G::Move>) -> Vec<G::Move> {
    let Some(seat) = game.to_move() else {
        return moves;
    };
    let ours = game.team(seat);
    let safe: Vec<G::Move> = moves
        .iter()
        .copied()
        .filter(|&m| {
            let mut next = game.clone();
            next.play_unchecked(m);
            match next.to_move() {
                Some(them) if ours & (1 << them) == 0 => {
                    let theirs = next.team(them);
                    !candidates(&next).into_iter().any(|reply| wins(&next, reply, theirs))
                }
                _ => true,
            }
        })
        .collect();
    if safe.is_empty() {
        moves
    } else {
        safe
    }
}
