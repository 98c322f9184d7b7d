//! The clocks aggregate: deadlines and reminders of games, players'
//! vacations, and the games waiting for a player. Promises: a reminder is
//! sent once per move (its claim and its event commit together), and a
//! deadline moves only while the game is still at the expected event.

use async_trait::async_trait;

use super::{DeadlineChange, NewVacation, Reminder, StoreResult};

#[async_trait]
pub trait ClockStore: Send + Sync {
    /// Active games whose deadline is at or before `now`, earliest first.
    async fn due_deadlines(&self, now: i64, limit: i64) -> StoreResult<Vec<i64>>;
    /// Active games whose reminder is due at `now`, earliest first.
    async fn due_reminders(&self, now: i64, limit: i64) -> StoreResult<Vec<i64>>;
    /// `false` when the game moved on or another process sent it first.
    async fn send_reminder(&self, reminder: Reminder) -> StoreResult<bool>;
    /// `false` if the game changed meanwhile.
    async fn set_deadline(&self, change: DeadlineChange) -> StoreResult<bool>;
    /// The player's vacations as `(starts_at, ends_at)`, oldest first.
    async fn vacations(&self, player_id: i64) -> StoreResult<Vec<(i64, i64)>>;
    /// [`super::StoreError::Unique`] when one starts at the same time.
    async fn add_vacation(&self, vacation: NewVacation) -> StoreResult<()>;
    /// Ends the player's current vacation at `now` and cancels the ones to
    /// come; `false` when there was none of either.
    async fn end_vacations(&self, player_id: i64, now: i64) -> StoreResult<bool>;
    /// Active games where `player_id` is to move.
    async fn games_to_move(&self, player_id: i64) -> StoreResult<Vec<i64>>;
}
