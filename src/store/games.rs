//! The games aggregate: a game's row, its seats, its moves and its event
//! log, written only through the group-commit writer (`create_game`,
//! `update_game`). Promises: an update applies whole or not at all, and only
//! while the game is still at its `expected_seq`; every caller hears its
//! result after the transaction carrying it committed.

use async_trait::async_trait;

use super::announce::Announcement;
use super::{CommitStats, EventRow, GameFilter, GameRecord, GameUpdate, MoveRow, NewGame, StoreResult};

/// What a game's creation needs to know of its creator (see
/// [`GameStore::creator_standing`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CreatorStanding {
    /// Their games still waiting for players.
    pub open_games: i64,
    /// The invitations in those games nobody answered yet.
    pub open_invitations: i64,
    /// Their `(rating, rd)` in the new game's variant, if rated there: what
    /// their seat shows.
    pub rating: Option<(f64, f64)>,
}

#[async_trait]
pub trait GameStore: Send + Sync {
    async fn game(&self, id: i64) -> StoreResult<Option<GameRecord>>;
    async fn list_games(&self, filter: &GameFilter) -> StoreResult<Vec<GameRecord>>;
    /// Moves `1..=upto` (all when `None`), in order.
    async fn moves(&self, game_id: i64, upto: Option<i64>) -> StoreResult<Vec<MoveRow>>;
    async fn move_at(&self, game_id: i64, ply: i64) -> StoreResult<Option<MoveRow>>;
    /// Creates the game, its seats and events; returns its id.
    async fn create_game(&self, game: NewGame) -> StoreResult<i64>;
    /// Applies a change atomically; [`super::StoreError::Conflict`] or
    /// [`super::StoreError::Unique`] when another writer got there first.
    async fn update_game(&self, update: GameUpdate) -> StoreResult<()>;
    /// How many transactions carried how many game updates (group commit).
    fn commit_stats(&self) -> CommitStats;
    async fn game_events(&self, game_id: i64, after: i64, limit: i64) -> StoreResult<Vec<EventRow>>;
    /// How many games `creator` made that still wait for players, how many
    /// invitations in them nobody answered yet, and `creator`'s rating in
    /// `game`'s `variant`.
    async fn creator_standing(&self, creator: i64, game: &str, variant: &str) -> StoreResult<CreatorStanding>;
    /// What the database announces was committed, by any process sharing
    /// it, from a connection of its own: `None` where the backend cannot
    /// tell (SQLite). Announcements made while that connection is down are
    /// lost.
    fn announcements(&self) -> Option<tokio::sync::mpsc::Receiver<Vec<Announcement>>>;
}
