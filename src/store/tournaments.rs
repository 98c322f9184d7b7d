//! The tournaments aggregate: tournaments, their players and their
//! pairings. Read here; joining and leaving are small guarded writes here
//! too; everything that creates games (a start, the next Swiss round, a
//! league's new season) is a [`TournamentStep`], written by the
//! group-commit writers, alone or in the transaction of the game end that
//! causes it. Promises: every write moves the tournament's `rev` on from
//! the one it was decided on, or writes nothing, so no round is paired
//! twice or lost.

use async_trait::async_trait;

use super::{
    EntrantChange, NewTournament, StoreResult, TournamentFilter, TournamentRecord, TournamentRow, TournamentStep,
};

#[async_trait]
pub trait TournamentStore: Send + Sync {
    /// Creates a tournament, its organiser not yet a player; its id.
    async fn create_tournament(&self, tournament: NewTournament) -> StoreResult<i64>;
    async fn tournament(&self, id: i64) -> StoreResult<Option<TournamentRecord>>;
    /// Newest first.
    async fn list_tournaments(&self, filter: &TournamentFilter) -> StoreResult<Vec<TournamentRow>>;
    /// `false` when the tournament is no longer at the change's `expected_rev`.
    async fn change_entrant(&self, change: EntrantChange) -> StoreResult<bool>;
    /// Open tournaments whose `starts_at` has passed.
    async fn due_tournaments(&self, now: i64, limit: i64) -> StoreResult<Vec<i64>>;
    /// Writes a step that no game end carries (a start, a cancellation);
    /// [`super::StoreError::TournamentMoved`] when its guard refused it.
    async fn step_tournament(&self, step: TournamentStep) -> StoreResult<()>;
}
