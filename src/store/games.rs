//! The games aggregate: a game's row, its seats and its event log (which
//! holds its moves: `model/history.rs`), written only through the
//! group-commit writer (`create_game`, `update_game`). Promises: an update
//! applies whole or not at all, and only while the game is still at its
//! `expected_seq`; every caller hears its result after the transaction
//! carrying it committed; a game's moves are read as of the row given.

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
    /// The moves standing at `game`'s row, `1..=upto` of them (all when
    /// `None`), in order.
    async fn moves(&self, game: &GameRecord, upto: Option<i64>) -> StoreResult<Vec<MoveRow>>;
    /// Move `ply` of `game` as its row stands (`None` past its last move).
    async fn move_at(&self, game: &GameRecord, ply: i64) -> StoreResult<Option<MoveRow>>;
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
