//! Monte Carlo tree search (UCT) over any game's [`Rules`], with the
//! [`Heuristics`] a game adds: pruned move lists in the tree, playouts cut
//! off and evaluated, and a result per seat.
//!
//! Several players: max^n. Every node keeps the reward of the seat that
//! made the move leading to it, and each seat picks the child best for
//! itself; a team's seats share one reward. Paranoid search (everyone else
//! against the mover) would make a four-player Focus bot give up positions
//! where the other three fight each other, which is most of them.
//!
//! The budget is a number of playouts, never a time, so a search is the
//! same on every machine and the same again with the same seed.

use crate::rules::playout::Rng;
use crate::rules::{MoveBuffer, Outcome, Seat};

use super::heuristics::{Heuristics, Scores};

/// The exploration constant of UCT for rewards in `0..=1`.
const EXPLORATION: f32 = 0.8;

/// The reward of each seat, in `0..=1`.
type Rewards = [f32; 4];

struct Node<M> {
    /// The move from the parent (`None` at the root).
    mv: Option<M>,
    parent: Option<usize>,
    /// Who made `mv`: the seat this node's reward is counted for.
    mover: Seat,
    children: Vec<usize>,
    /// Moves not expanded yet.
    untried: Vec<M>,
    visits: u32,
    reward: f32,
}

/// The moves of `game` worth searching (all legal moves, pruned).
pub fn candidates<G: Heuristics>(game: &G) -> Vec<G::Move> {
    let mut moves = G::MoveList::default();
    game.legal_moves(&mut moves);
    game.prune(&mut moves);
    moves.as_slice().to_vec()
}

/// What a search found.
#[derive(Clone, Copy, Debug)]
pub struct Searched<M> {
    /// The root move visited most (`None`: no move to search).
    pub best: Option<M>,
    /// Playouts run: the budget, or none when one move or none was given.
    pub playouts: u32,
}

/// Runs `playouts` playouts from `root`, whose moves are searched among
/// `moves` only, and returns the move visited most.
pub fn search<G: Heuristics>(root: &G, moves: Vec<G::Move>, playouts: u32, rng: &mut Rng) -> Searched<G::Move> {
    if moves.len() <= 1 {
        return Searched {
            best: moves.first().copied(),
            playouts: 0,
        };
    }
    let mut tree = vec![Node {
        mv: None,
        parent: None,
        mover: 0,
        children: Vec::new(),
        untried: moves,
        visits: 0,
        reward: 0.0,
    }];
    for _ in 0..playouts {
        let mut game = root.clone();
        let leaf = descend(&mut tree, &mut game, rng);
        let rewards = playout(&mut game, rng);
        backpropagate(&mut tree, leaf, &rewards);
    }
    let best = tree[0]
        .children
        .iter()
        .max_by_key(|&&child| tree[child].visits)
        .and_then(|&child| tree[child].mv);
    Searched {
        best,
        playouts: tree[0].visits,
    }
}

/// Selects down the tree while every move of a node is expanded, then
/// expands one untried move; plays the path on `game` and returns the
/// node reached.
fn descend<G: Heuristics>(tree: &mut Vec<Node<G::Move>>, game: &mut G, rng: &mut Rng) -> usize {
    let mut node = 0;
    loop {
        if !tree[node].untried.is_empty() {
            let untried = &mut tree[node].untried;
            let mv = untried.swap_remove(rng.below(untried.len()));
            let mover = game.to_move().unwrap_or(0);
            game.play_unchecked(mv);
            let untried = if game.outcome().is_some() {
                Vec::new()
            } else {
                candidates(game)
            };
            let child = tree.len();
            tree.push(Node {
                mv: Some(mv),
                parent: Some(node),
                mover,
                children: Vec::new(),
                untried,
                visits: 0,
                reward: 0.0,
            });
            tree[node].children.push(child);
            return child;
        }
        let Some(child) = best_child(tree, node) else {
            return node;
        };
        if let Some(mv) = tree[child].mv {
            game.play_unchecked(mv);
        }
        node = child;
    }
}

/// The child with the highest upper confidence bound, for the seat to move.
fn best_child<M>(tree: &[Node<M>], node: usize) -> Option<usize> {
    let log_n = (tree[node].visits.max(1) as f32).ln();
    let ucb = |child: usize| {
        let c = &tree[child];
        let n = c.visits.max(1) as f32;
        c.reward / n + EXPLORATION * (log_n / n).sqrt()
    };
    tree[node]
        .children
        .iter()
        .copied()
        .max_by(|&a, &b| ucb(a).total_cmp(&ucb(b)))
}

fn backpropagate<M>(tree: &mut [Node<M>], leaf: usize, rewards: &Rewards) {
    let mut node = Some(leaf);
    while let Some(index) = node {
        let n = &mut tree[index];
        n.visits += 1;
        n.reward += rewards[n.mover as usize & 3];
        node = n.parent;
    }
}

/// Plays on to the end or the game's cut-off and scores the result.
fn playout<G: Heuristics>(game: &mut G, rng: &mut Rng) -> Rewards {
    let limit = game.playout_plies().unwrap_or(u32::MAX);
    let mut plies = 0;
    while plies < limit {
        if let Some(outcome) = game.outcome() {
            return finished(game, outcome);
        }
        match game.playout_move(rng) {
            Some(m) => game.play_unchecked(m),
            None => break,
        }
        plies += 1;
    }
    match game.outcome() {
        Some(outcome) => finished(game, outcome),
        None => estimated(game, game.evaluate()),
    }
}

/// A finished game: 1 for the winners, 0 for the others, an even share
/// for a draw.
pub fn finished<G: Heuristics>(game: &G, outcome: Outcome) -> Rewards {
    let seats = game.seats();
    let mut rewards = [0.0; 4];
    for (seat, reward) in rewards.iter_mut().enumerate().take(seats as usize) {
        *reward = if outcome.winners.is_draw() {
            1.0 / seats as f32
        } else if outcome.winners.contains(seat as Seat) {
            1.0
        } else {
            0.0
        };
    }
    rewards
}

/// A game cut off: each seat's chance by a softmax of the evaluations
/// (for two seats, the logistic of their difference), a team's summed.
fn estimated<G: Heuristics>(game: &G, scores: Scores) -> Rewards {
    let seats = game.seats() as usize;
    let top = scores[..seats].iter().copied().fold(f32::MIN, f32::max);
    let mut shares = [0.0; 4];
    for seat in 0..seats {
        shares[seat] = ((scores[seat] - top) / G::SCALE).exp();
    }
    let total: f32 = shares.iter().sum();
    let mut rewards = [0.0; 4];
    for (seat, reward) in rewards.iter_mut().enumerate().take(seats) {
        let team = game.team(seat as Seat);
        *reward = (0..seats)
            .filter(|&other| team & (1 << other) != 0)
            .map(|other| shares[other])
            .sum::<f32>()
            / total;
    }
    rewards
}
