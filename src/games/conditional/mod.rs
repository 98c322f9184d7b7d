//! Conditional moves ("if you play this, I play that"): a seated player of
//! a two-player game leaves the server a tree of lines while waiting for the
//! opponent, and the server answers the opponent's foreseen moves for them.
//!
//! - The tree itself is pure ([`tree`]): lines checked by the rules from the
//!   position they are set in and kept in canonical notation.
//! - The reply is decided with the move it answers (`decide/reply.rs`) and
//!   committed in the same transaction, tree change included.
//! - This is the shell of the owner's own actions: set, show, clear. A tree
//!   is its owner's alone: everyone else is told there is none.
//! - Two-player games only. In a game of four, lines would have to name
//!   three opponents' moves per reply, in an order that changes as seats
//!   are knocked out, and a team mate's move would need a reply of its own;
//!   no server we follow defines that, so such games are refused
//!   ([`GameError::ConditionalSeats`]).

pub mod tree;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::store::{ConditionalTrees, ConditionalWrite, GameRecord, NewConditional, Player};

use super::commit::Progress;
use super::error::{GameError, GameResult};
use super::hot::Hot;
use super::{now, Games, ATTEMPTS};

pub use tree::{Line, LineError, Tree, MAX_LINES, MAX_PLIES};

/// A stored tree, read: its owner and the ply of the position it is valid
/// in.
#[derive(Clone, Debug, PartialEq)]
pub struct Conditional {
    pub player_id: i64,
    pub ply: i64,
    pub tree: Tree,
}

/// Lines to set, as a client sends them.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LinesCommand {
    /// Each line alternates their move and your reply, starting with their
    /// next move: `[["d4", "e5", "c3", "f6"], ["a1", "h8"]]`.
    pub lines: Vec<Line>,
}

/// A player's tree, as its owner sees it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ConditionalView {
    pub game: i64,
    /// The ply of the position the lines start from: the opponent's next
    /// move is move `ply + 1`.
    pub ply: i64,
    /// The lines in canonical notation, shared prefixes written once.
    pub lines: Vec<Line>,
}

impl Games {
    /// Sets `player`'s tree of conditional moves in game `id`, replacing
    /// theirs: only a seated player of an active two-player game, while it
    /// is the opponent's turn. Every line is checked from the current
    /// position; the first bad one refuses them all and nothing is stored.
    pub async fn set_conditional(&self, player: &Player, id: i64, lines: &[Line]) -> GameResult<ConditionalView> {
        self.admit(player)?;
        if lines.len() > MAX_LINES {
            return Err(GameError::Lines(LineError::TooManyLines { count: lines.len() }));
        }
        let slot = self.hot.slot(id);
        let mut hot = slot.lock().await;
        for _ in 0..ATTEMPTS {
            let (record, seat) = self.seated_in_active(player, id).await?;
            if record.seats.len() != 2 {
                return Err(GameError::ConditionalSeats(record.seats.len()));
            }
            if record.row.to_move == Some(seat) {
                return Err(GameError::ConditionalOnYourTurn);
            }
            let game = self.position(&mut hot, &record).await?;
            let tree = Tree::check(&game, seat.rules(), lines).map_err(GameError::Lines)?;
            let mut progress = Progress::of(&record, now());
            progress.update.conditional = Some(ConditionalWrite::Put(NewConditional {
                player_id: player.id,
                ply: record.row.ply,
                lines: tree.to_stored(),
            }));
            if self.commit(&mut hot, &record, progress, game).await?.is_some() {
                return Ok(ConditionalView {
                    game: id,
                    ply: record.row.ply,
                    lines: tree.lines(),
                });
            }
        }
        Err(GameError::Busy)
    }

    /// `player`'s own tree in game `id`; [`GameError::NoConditional`] when
    /// they have none, and for everyone else (spectators, the opponent):
    /// nobody learns whether a tree exists but its owner.
    pub async fn conditional(&self, player: &Player, id: i64) -> GameResult<ConditionalView> {
        let record = self.load_visible(id, Some(player)).await?;
        let trees = self.store.conditionals(id).await?;
        let mine = parse(&trees)?
            .into_iter()
            .find(|t| t.player_id == player.id && t.ply == record.row.ply)
            .filter(|_| record.seat_of(player.id).is_some());
        let tree = mine.ok_or(GameError::NoConditional(id))?;
        Ok(ConditionalView {
            game: id,
            ply: tree.ply,
            lines: tree.tree.lines(),
        })
    }

    /// Clears `player`'s tree in game `id`, if they have one; nothing to
    /// clear is no error (a tree the opponent's move just cleared is
    /// cleared).
    pub async fn clear_conditional(&self, player: &Player, id: i64) -> GameResult<()> {
        self.admit(player)?;
        let slot = self.hot.slot(id);
        let mut hot = slot.lock().await;
        for _ in 0..ATTEMPTS {
            let record = self.load_visible(id, Some(player)).await?;
            if record.seat_of(player.id).is_none() {
                return Err(GameError::NoConditional(id));
            }
            let trees = self.conditionals_of(&mut hot, &record).await?;
            if !trees.iter().any(|t| t.player_id == player.id) {
                return Ok(());
            }
            let game = self.position(&mut hot, &record).await?;
            let mut progress = Progress::of(&record, now());
            progress.update.conditional = Some(ConditionalWrite::Delete { player_id: player.id });
            if self.commit(&mut hot, &record, progress, game).await?.is_some() {
                return Ok(());
            }
        }
        Err(GameError::Busy)
    }

    /// The trees of `record`'s game at its version, from the cache when it
    /// holds that version. A game whose trees were never written has none,
    /// and nothing is read.
    pub(super) async fn conditionals_of(&self, hot: &mut Hot, record: &GameRecord) -> GameResult<Vec<Conditional>> {
        let rev = record.row.conditional_rev;
        if rev == 0 {
            return Ok(Vec::new());
        }
        if let Some(trees) = hot.conditionals.as_ref().filter(|t| t.rev == rev) {
            return parse(trees);
        }
        let trees = self.store.conditionals(record.row.id).await?;
        let parsed = parse(&trees)?;
        hot.conditionals = Some(trees);
        Ok(parsed)
    }
}

/// The stored trees, read; a tree the rules never checked means a broken
/// row.
fn parse(trees: &ConditionalTrees) -> GameResult<Vec<Conditional>> {
    trees
        .trees
        .iter()
        .map(|row| {
            let tree = Tree::from_stored(&row.lines)
                .ok_or_else(|| GameError::internal(format!("a broken tree of player {} in a game", row.player_id)))?;
            Ok(Conditional {
                player_id: row.player_id,
                ply: row.ply,
                tree,
            })
        })
        .collect()
}
