//! The conditional-moves aggregate: each player's tree of "if you play
//! this, I play that" lines for a game. Trees are read here and written only
//! with their game, by the group-commit writer (a [`super::ConditionalWrite`]
//! in a [`super::GameUpdate`]), so a tree changes in the same transaction as
//! the moves that consume or clear it. Promises: the trees and their version
//! are read in one statement, so they agree with each other; nobody but the
//! games service reads them (the service shows a tree to its owner only).

use async_trait::async_trait;

use super::backend::Backend;
use super::binding::{Select, Statement};
use super::rows::ConditionalRecord;
use super::{ConditionalTrees, StoreResult};

#[async_trait]
pub trait ConditionalStore: Send + Sync {
    /// The game's trees and their version; `rev` 0 and no trees for a game
    /// that does not exist.
    async fn conditionals(&self, game_id: i64) -> StoreResult<ConditionalTrees>;
}

#[async_trait]
impl<B: Backend> ConditionalStore for B {
    async fn conditionals(&self, game_id: i64) -> StoreResult<ConditionalTrees> {
        let rows: Vec<ConditionalRecord> = sqlx::query(
            "SELECT g.conditional_rev AS rev, c.player_id, c.ply, c.lines, c.updated_at FROM games g \
             LEFT JOIN conditionals c ON c.game_id = g.id WHERE g.id = $1 ORDER BY c.player_id",
        )
        .arg(game_id)
        .rows()
        .fetch_all(self.db())
        .await?;
        ConditionalRecord::gather(rows)
    }
}
