//! The players aggregate: accounts, their credentials and their own event
//! stream (their sessions are [`super::SessionStore`]'s). Promises: a name
//! key is unique (`StoreError::Unique` on a second), and a new password ends
//! every session of the player but the one that changed it, in one
//! transaction.

use async_trait::async_trait;

use super::{Credentials, EventRow, NewPlayer, Player, PlayerChange, StoreResult};

#[async_trait]
pub trait PlayerStore: Send + Sync {
    async fn create_player(&self, player: NewPlayer) -> StoreResult<Player>;
    async fn credentials(&self, name_key: &str) -> StoreResult<Option<Credentials>>;
    async fn player_by_name(&self, name_key: &str) -> StoreResult<Option<Player>>;
    async fn player_by_id(&self, id: i64) -> StoreResult<Option<Player>>;
    /// Applies a change of account and notification settings in one
    /// transaction and returns the player as changed (`None`: no such
    /// player, nothing written).
    async fn update_player(&self, change: PlayerChange) -> StoreResult<Option<Player>>;
    /// The player's events after `after`, in order.
    async fn player_events(&self, player_id: i64, after: i64, limit: i64) -> StoreResult<Vec<EventRow>>;
    /// The number of the player's last event (0 when none).
    async fn player_event_seq(&self, player_id: i64) -> StoreResult<i64>;
}
