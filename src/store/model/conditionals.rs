//! The conditional moves' models: a change of a game's trees, a tree to
//! store, and the trees as read at a version of the game.

use serde_json::Value;

/// A change of a game's conditional trees.
#[derive(Clone, Debug)]
pub enum ConditionalWrite {
    /// The player's tree, replacing any they had.
    Put(NewConditional),
    /// The player's tree goes (played out, left, or withdrawn).
    Delete { player_id: i64 },
    /// Every tree of the game goes (a takeback, the game over).
    DeleteAll,
}

/// A tree of conditional moves to store.
#[derive(Clone, Debug)]
pub struct NewConditional {
    pub player_id: i64,
    /// The ply of the position the tree starts from.
    pub ply: i64,
    /// The canonical lines, `[[their move, my reply, …], …]`.
    pub lines: Value,
}

/// A stored tree of conditional moves.
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionalRow {
    pub player_id: i64,
    pub ply: i64,
    pub lines: Value,
    pub updated_at: i64,
}

/// A game's conditional trees as of version `rev` (its
/// `conditional_rev`): every change of them bumps the version, so trees
/// read at a version stay true for as long as the game is at it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConditionalTrees {
    pub rev: i64,
    pub trees: Vec<ConditionalRow>,
}
