//! A player's conditional moves as a tree, pure: built from lines ("their
//! move, my reply, their move, my reply, …") that share prefixes, each
//! checked by the rules from the position it is set in, move by move, and
//! kept in canonical notation; matched against the opponent's move, which
//! yields the reply and the tree that remains.
//!
//! Promises: a [`Tree`] only ever holds lines the rules accepted from its
//! position, with one reply per move of the opponent at every node; it has
//! at most [`MAX_LINES`] lines of at most [`MAX_PLIES`] plies, each a whole
//! number of (their move, my reply) pairs.

use serde_json::Value;

use crate::games::MAX_MOVE_LEN;
use crate::rules::{AnyGame, MoveError, Seat};

/// The most lines a tree holds.
pub const MAX_LINES: usize = 64;
/// The most plies (theirs and mine together) of one line.
pub const MAX_PLIES: usize = 40;

/// A line as a client writes it.
pub type Line = Vec<String>;

/// The tree: for each move of the opponent foreseen, the reply and what
/// follows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    branches: Vec<Branch>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Branch {
    theirs: String,
    mine: String,
    then: Tree,
}

/// Why a set of lines was refused. Lines and plies count from 1, as people
/// do.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LineError {
    #[error("no lines: a tree needs at least one (DELETE clears it)")]
    NoLines,
    #[error("{count} lines: a tree holds at most {MAX_LINES}")]
    TooManyLines { count: usize },
    #[error("line {line} has {plies} plies: a line holds at most {MAX_PLIES}")]
    TooLong { line: usize, plies: usize },
    #[error("line {line} is empty")]
    Empty { line: usize },
    #[error("line {line} ends with their move: each of their moves needs your reply")]
    EndsWithTheirs { line: usize },
    #[error("line {line}, ply {ply}: the move is longer than {MAX_MOVE_LEN} characters")]
    MoveTooLong { line: usize, ply: usize },
    #[error("line {line}, ply {ply}: {}", if *.yours { "it is your opponent's move there, not yours" } else { "it is your move there, not your opponent's" })]
    WrongSide { line: usize, ply: usize, yours: bool },
    #[error("line {line}, ply {ply} ({notation:?}): {error}")]
    Move {
        line: usize,
        ply: usize,
        notation: String,
        error: MoveError,
    },
    #[error("line {line}, ply {ply}: an earlier line answers the same move with {reply}")]
    Conflict { line: usize, ply: usize, reply: String },
}

impl Tree {
    /// Checks `lines` for `owner` from `game`, the position the tree starts
    /// in (the opponent to move), and builds the tree, in canonical
    /// notation. The first bad line refuses them all.
    pub fn check(game: &AnyGame, owner: Seat, lines: &[Line]) -> Result<Tree, LineError> {
        if lines.is_empty() {
            return Err(LineError::NoLines);
        }
        if lines.len() > MAX_LINES {
            return Err(LineError::TooManyLines { count: lines.len() });
        }
        let mut tree = Tree::default();
        for (index, line) in lines.iter().enumerate() {
            let canonical = check_line(game, owner, index + 1, line)?;
            tree.insert(index + 1, &canonical)?;
        }
        Ok(tree)
    }

    /// The tree of lines checked before (as stored): `None` if they break
    /// the tree's promises, which only a broken row could.
    pub fn from_stored(lines: &Value) -> Option<Tree> {
        let lines: Vec<Line> = serde_json::from_value(lines.clone()).ok()?;
        let mut tree = Tree::default();
        for (index, line) in lines.iter().enumerate() {
            if line.is_empty() || line.len() % 2 == 1 || line.len() > MAX_PLIES {
                return None;
            }
            tree.insert(index + 1, line).ok()?;
        }
        (!tree.is_empty()).then_some(tree)
    }

    /// The stored form: the canonical lines.
    pub fn to_stored(&self) -> Value {
        Value::from(
            self.lines()
                .into_iter()
                .map(|line| Value::from(line.into_iter().map(Value::from).collect::<Vec<_>>()))
                .collect::<Vec<_>>(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.branches.is_empty()
    }

    /// The lines, each as long as it goes, in the order they were first
    /// given; shared prefixes and lines that are prefixes of others are
    /// written once.
    pub fn lines(&self) -> Vec<Line> {
        let mut lines = Vec::new();
        self.collect(&mut Vec::new(), &mut lines);
        lines
    }

    /// The reply to the opponent's move `theirs` (canonical), and the tree
    /// that remains after it; `None` when no line foresaw the move.
    pub fn answer(&self, theirs: &str) -> Option<(&str, &Tree)> {
        self.branches
            .iter()
            .find(|b| b.theirs == theirs)
            .map(|b| (b.mine.as_str(), &b.then))
    }

    fn collect(&self, prefix: &mut Line, lines: &mut Vec<Line>) {
        for branch in &self.branches {
            prefix.push(branch.theirs.clone());
            prefix.push(branch.mine.clone());
            if branch.then.is_empty() {
                lines.push(prefix.clone());
            } else {
                branch.then.collect(prefix, lines);
            }
            prefix.truncate(prefix.len() - 2);
        }
    }

    /// Adds a line of whole (their move, my reply) pairs, line number
    /// `line` for errors.
    fn insert(&mut self, line: usize, moves: &[String]) -> Result<(), LineError> {
        let mut node = self;
        for (pair, ply) in moves.chunks_exact(2).zip((1..).step_by(2)) {
            let (theirs, mine) = (&pair[0], &pair[1]);
            let at = match node.branches.iter().position(|b| &b.theirs == theirs) {
                Some(at) if &node.branches[at].mine != mine => {
                    return Err(LineError::Conflict {
                        line,
                        ply: ply + 1,
                        reply: node.branches[at].mine.clone(),
                    })
                }
                Some(at) => at,
                None => {
                    node.branches.push(Branch {
                        theirs: theirs.clone(),
                        mine: mine.clone(),
                        then: Tree::default(),
                    });
                    node.branches.len() - 1
                }
            };
            node = &mut node.branches[at].then;
        }
        Ok(())
    }
}

/// One line, played from `game`: its moves in canonical notation, each on
/// the right side's turn.
fn check_line(game: &AnyGame, owner: Seat, line: usize, moves: &[String]) -> Result<Line, LineError> {
    if moves.is_empty() {
        return Err(LineError::Empty { line });
    }
    if moves.len() > MAX_PLIES {
        return Err(LineError::TooLong {
            line,
            plies: moves.len(),
        });
    }
    if moves.len() % 2 == 1 {
        return Err(LineError::EndsWithTheirs { line });
    }
    let mut position = game.clone();
    let mut canonical = Vec::with_capacity(moves.len());
    for (index, notation) in moves.iter().enumerate() {
        let ply = index + 1;
        if notation.chars().count() > MAX_MOVE_LEN {
            return Err(LineError::MoveTooLong { line, ply });
        }
        let yours = index % 2 == 1;
        let refused = |error| LineError::Move {
            line,
            ply,
            notation: notation.clone(),
            error,
        };
        match position.to_move() {
            None => return Err(refused(MoveError::GameOver)),
            Some(seat) if (seat == owner) != yours => return Err(LineError::WrongSide { line, ply, yours }),
            Some(_) => {}
        }
        canonical.push(position.play(notation).map_err(refused)?.notation);
    }
    Ok(canonical)
}

#[cfg(test)]
mod tests;
