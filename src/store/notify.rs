//! Storage for notifications: per-player settings, the outbox cursor and the
//! deliveries table (also the delivery log players read). Promises: a
//! player's cursor moves only from where it was read (a pass another process
//! made first is skipped), and a delivery is claimed by one process per
//! attempt.

use async_trait::async_trait;

use super::{DeliveryRow, EventRow, NotifySettings, Outbox, Settlement, StoreResult, Waiting};

#[async_trait]
pub trait NotifyStore: Send + Sync {
    async fn notify_settings(&self, player_id: i64) -> StoreResult<NotifySettings>;
    /// Players with events not yet turned into deliveries, with what the
    /// notifier needs to know about them.
    async fn outbox(&self, limit: i64) -> StoreResult<Vec<Waiting>>;
    /// Moves each player's cursor and creates their deliveries, all in one
    /// transaction of the game writer (one fsync per pass, however many
    /// players). A player whose cursor another process moved first is
    /// skipped. Returns how many players' cursors moved.
    async fn enqueue(&self, outboxes: Vec<Outbox>, now: i64) -> StoreResult<usize>;
    /// Pending deliveries due at `now`, oldest first.
    async fn due_deliveries(&self, now: i64, limit: i64) -> StoreResult<Vec<DeliveryRow>>;
    /// Takes a due delivery for one attempt: pushes its due time to
    /// `lease_until` and counts the attempt, if nobody did since it was
    /// read. Only the process that gets `true` sends it.
    async fn claim_delivery(&self, row: &DeliveryRow, lease_until: i64, now: i64) -> StoreResult<bool>;
    /// Records an attempt's result. A success keeps the last error, for
    /// the log.
    async fn settle_delivery(&self, settlement: Settlement) -> StoreResult<()>;
    /// The player's deliveries, newest first.
    async fn deliveries(&self, player_id: i64, before: Option<i64>, limit: i64) -> StoreResult<Vec<DeliveryRow>>;
    /// One player event.
    async fn player_event(&self, player_id: i64, seq: i64) -> StoreResult<Option<EventRow>>;
}
