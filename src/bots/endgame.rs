//! Reading an endgame to the end of a line: alpha-beta minimax over a
//! two-player game's rules, scored by the game's own
//! [`Heuristics::evaluate`] at the horizon, for the strongest level in the
//! endgames a game names ([`Heuristics::endgame_depth`]).
//!
//! Sampling cannot chase. With few pieces left, a side ahead has to walk its
//! pieces up to the other's, a step at a time, never stepping where a reply
//! captures: each step gains a little on the evaluation, and a random reply
//! in a playout undoes as much. Minimax sees the step and the best reply.
//!
//! Like the rest of the bots, it counts work, never time: iterative
//! deepening stops at the depth asked for or when a depth would go past the
//! node budget, so the same position always gives the same move.

use crate::rules::{MoveBuffer, Seat};

use super::heuristics::Heuristics;

/// More than any evaluation: a won line is worth this, less the plies it
/// takes, so that a sooner win is better and a later loss less bad.
const WON: f32 = 1000.0;

/// Positions a reading may visit, over all its depths: a depth is started
/// only if ten times the last one's nodes still fit, and one that goes past
/// the budget anyway is thrown away. About half a second of the strongest
/// level's time on this machine.
pub const NODES: u64 = 400_000;

/// What a reading found.
#[derive(Clone, Copy, Debug)]
pub struct Read<M> {
    /// The best move at the deepest depth read in full.
    pub best: M,
    /// Its worth for the seat to move at that depth: more than
    /// [`WON`]` - 1` is a forced win, less than `1 - `[`WON`] a forced loss.
    pub value: f32,
    /// Plies read.
    pub depth: u32,
}

/// Reads `moves` of `game` by minimax to `depth` plies, deepening one ply
/// at a time (a forced win found ends it) while the next depth fits in
/// [`NODES`]; `None` when `moves` is empty or the game is over. One ply
/// always fits, so a move is always found when there is one.
pub fn best<G: Heuristics>(game: &G, moves: &[G::Move], depth: u32) -> Option<Read<G::Move>> {
    let seat = game.to_move()?;
    let mut order: Vec<G::Move> = moves.to_vec();
    let mut read: Option<Read<G::Move>> = None;
    let mut reading = Reading { nodes: 0, limit: NODES };
    for depth in 1..=depth.max(1) {
        let before = reading.nodes;
        let mut alpha = -f32::INFINITY;
        let mut scored = Vec::with_capacity(order.len());
        for &m in &order {
            let mut next = game.clone();
            next.play_unchecked(m);
            let score = -reading.negamax(&next, depth - 1, -f32::INFINITY, -alpha, 1 - seat);
            alpha = alpha.max(score);
            scored.push((score, m));
        }
        if reading.nodes > reading.limit {
            // Cut short: this depth's scores are not minimax; the last stand.
            break;
        }
        // Stable: among equal scores the earlier (last depth's better) first.
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        order = scored.iter().map(|&(_, m)| m).collect();
        let (value, best) = *scored.first()?;
        read = Some(Read { best, value, depth });
        let spent = reading.nodes - before;
        if value > WON - 1.0 || reading.nodes + spent * 10 > NODES {
            break;
        }
    }
    read
}

/// The worth of `game` for `seat`, who is to move, by minimax to `depth`
/// plies, without a node budget: for tests against a plain minimax.
#[cfg(test)]
pub(super) fn value<G: Heuristics>(game: &G, depth: u32, seat: Seat) -> f32 {
    let mut reading = Reading {
        nodes: 0,
        limit: u64::MAX,
    };
    reading.negamax(game, depth, -f32::INFINITY, f32::INFINITY, seat)
}

struct Reading {
    nodes: u64,
    /// Past this many nodes every position scores as it stands, and the
    /// depth being read is thrown away.
    limit: u64,
}

impl Reading {
    /// The value of `game` for `seat`, who is to move, searched `depth`
    /// plies deeper, within the window `alpha..beta`.
    fn negamax<G: Heuristics>(&mut self, game: &G, depth: u32, mut alpha: f32, beta: f32, seat: Seat) -> f32 {
        self.nodes += 1;
        if let Some(worth) = ended(game, seat) {
            return worth;
        }
        if depth == 0 || self.nodes > self.limit {
            return standing(game, seat);
        }
        let mut moves = G::MoveList::default();
        game.legal_moves(&mut moves);
        let mut children: Vec<(f32, G)> = moves
            .as_slice()
            .iter()
            .map(|&m| {
                let mut next = game.clone();
                next.play_unchecked(m);
                let worth = ended(&next, 1 - seat).unwrap_or_else(|| standing(&next, 1 - seat));
                (-worth, next)
            })
            .collect();
        // The replies that look best first, so that alpha-beta cuts early.
        children.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut value = -f32::INFINITY;
        for (looks, next) in &children {
            let score = if depth == 1 {
                // A leaf's worth is what its ordering already computed.
                self.nodes += 1;
                *looks
            } else {
                -self.negamax(next, depth - 1, -beta, -alpha, 1 - seat)
            };
            value = value.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        value
    }
}

/// `seat`'s evaluation less the other's.
pub(super) fn standing<G: Heuristics>(game: &G, seat: Seat) -> f32 {
    let scores = game.evaluate();
    scores[seat as usize] - scores[1 - seat as usize]
}

/// A finished game's worth for `seat`: [`WON`] less a thousandth a ply
/// played (a sooner win is better, a later loss less bad), its negative,
/// or 0 for a draw; `None` while the game goes on.
pub(super) fn ended<G: Heuristics>(game: &G, seat: Seat) -> Option<f32> {
    let outcome = game.outcome()?;
    let plies = (game.ply() as f32).min(WON / 2.0) / WON;
    Some(if outcome.winners.is_draw() {
        0.0
    } else if outcome.winners.contains(seat) {
        WON - plies
    } else {
        plies - WON
    })
}
