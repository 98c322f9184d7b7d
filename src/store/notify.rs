//! Storage for notifications: per-player settings, the outbox cursor and the
//! deliveries table (also the delivery log players read). Same SQL on both
//! backends, instantiated by [`impl_notify_store!`].

use async_trait::async_trait;
use serde_json::Value;

use super::{EventRow, Player, StoreResult};

/// How a player wants to be told.
#[derive(Clone, Debug, Default)]
pub struct NotifySettings {
    /// `{"your_turn": ["email", "webhook"], …}`; `None`: the defaults.
    pub notify: Option<Value>,
    pub webhook_url: Option<String>,
    pub webhook_secret: Option<String>,
    pub digest: bool,
}

/// A change of settings, written with the account's
/// ([`super::AccountUpdate`]); `None` fields stay as they are.
#[derive(Clone, Debug, Default)]
pub struct SettingsUpdate {
    pub notify: Option<Value>,
    /// `(url, secret)`; `(None, None)` removes the webhook.
    pub webhook: Option<(Option<String>, Option<String>)>,
    pub digest: Option<bool>,
}

/// A player with events not yet turned into deliveries.
#[derive(Clone, Debug)]
pub struct Waiting {
    pub player_id: i64,
    /// The last event turned into deliveries.
    pub cursor: i64,
    /// The player's last event.
    pub event_seq: i64,
    pub email: Option<String>,
    pub settings: NotifySettings,
}

/// One player's events turned into deliveries: their cursor moves from
/// `from` to `to`.
#[derive(Clone, Debug)]
pub struct Outbox {
    pub player_id: i64,
    pub from: i64,
    pub to: i64,
    pub deliveries: Vec<NewDelivery>,
}

/// A delivery to create from a player event.
#[derive(Clone, Debug)]
pub struct NewDelivery {
    pub event_seq: i64,
    pub channel: &'static str,
    pub kind: String,
    pub due_at: i64,
}

/// A delivery: one player event on one channel.
#[derive(Clone, Debug)]
pub struct DeliveryRow {
    pub id: i64,
    pub player_id: i64,
    pub event_seq: i64,
    pub channel: String,
    pub kind: String,
    pub status: String,
    pub attempts: i64,
    pub next_attempt_at: i64,
    pub last_error: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[async_trait]
pub trait NotifyStore: Send + Sync {
    async fn player_by_id(&self, id: i64) -> StoreResult<Option<Player>>;
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
    /// Records an attempt's result: `status` and, for another try, when.
    /// A success keeps the last error, for the log.
    async fn settle_delivery(
        &self,
        id: i64,
        status: &str,
        next_attempt_at: i64,
        error: Option<&str>,
        now: i64,
    ) -> StoreResult<()>;
    /// The player's deliveries, newest first.
    async fn deliveries(&self, player_id: i64, before: Option<i64>, limit: i64) -> StoreResult<Vec<DeliveryRow>>;
    /// One player event.
    async fn player_event(&self, player_id: i64, seq: i64) -> StoreResult<Option<EventRow>>;
}

macro_rules! impl_notify_store {
    ($store:ident, $db:ty) => {
        mod notify_impl {
            use async_trait::async_trait;
            use sqlx::Row;

            use super::$store;
            use crate::store::notify::{DeliveryRow, NotifySettings, NotifyStore, Outbox, Waiting};
            use crate::store::Store as _;
            use crate::store::{EventRow, Player, StoreResult};

            const DELIVERY_COLUMNS: &str = "id, player_id, event_seq, channel, kind, status, attempts, \
                 next_attempt_at, last_error, created_at, updated_at";

            fn delivery(row: &<$db as sqlx::Database>::Row) -> Result<DeliveryRow, sqlx::Error> {
                Ok(DeliveryRow {
                    id: row.try_get(0)?,
                    player_id: row.try_get(1)?,
                    event_seq: row.try_get(2)?,
                    channel: row.try_get(3)?,
                    kind: row.try_get(4)?,
                    status: row.try_get(5)?,
                    attempts: row.try_get(6)?,
                    next_attempt_at: row.try_get(7)?,
                    last_error: row.try_get(8)?,
                    created_at: row.try_get(9)?,
                    updated_at: row.try_get(10)?,
                })
            }

            #[async_trait]
            impl NotifyStore for $store {
                async fn player_by_id(&self, id: i64) -> StoreResult<Option<Player>> {
                    let row = sqlx::query("SELECT id, name, email, created_at FROM players WHERE id = $1")
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await?;
                    match row {
                        Some(row) => Ok(Some(Player {
                            id: row.try_get(0)?,
                            name: row.try_get(1)?,
                            email: row.try_get(2)?,
                            created_at: row.try_get(3)?,
                        })),
                        None => Ok(None),
                    }
                }

                async fn notify_settings(&self, player_id: i64) -> StoreResult<NotifySettings> {
                    let row =
                        sqlx::query("SELECT notify, webhook_url, webhook_secret, digest FROM players WHERE id = $1")
                            .bind(player_id)
                            .fetch_optional(&self.pool)
                            .await?;
                    match row {
                        Some(row) => Ok(NotifySettings {
                            notify: row.try_get(0)?,
                            webhook_url: row.try_get(1)?,
                            webhook_secret: row.try_get(2)?,
                            digest: row.try_get(3)?,
                        }),
                        None => Ok(NotifySettings::default()),
                    }
                }

                async fn outbox(&self, limit: i64) -> StoreResult<Vec<Waiting>> {
                    let rows = sqlx::query(
                        "SELECT id, notify_seq, event_seq, email, notify, webhook_url, webhook_secret, digest \
                         FROM players WHERE event_seq > notify_seq ORDER BY id LIMIT $1",
                    )
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?;
                    Ok(rows
                        .iter()
                        .map(|row| {
                            Ok(Waiting {
                                player_id: row.try_get(0)?,
                                cursor: row.try_get(1)?,
                                event_seq: row.try_get(2)?,
                                email: row.try_get(3)?,
                                settings: NotifySettings {
                                    notify: row.try_get(4)?,
                                    webhook_url: row.try_get(5)?,
                                    webhook_secret: row.try_get(6)?,
                                    digest: row.try_get(7)?,
                                },
                            })
                        })
                        .collect::<Result<_, sqlx::Error>>()?)
                }

                async fn enqueue(&self, outboxes: Vec<Outbox>, now: i64) -> StoreResult<usize> {
                    // In the game writer's next transaction (see `Change`).
                    self.commits.notify(outboxes, now).await
                }

                async fn due_deliveries(&self, now: i64, limit: i64) -> StoreResult<Vec<DeliveryRow>> {
                    let rows = sqlx::query(&format!(
                        "SELECT {DELIVERY_COLUMNS} FROM deliveries WHERE status = 'pending' \
                         AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2"
                    ))
                    .bind(now)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?;
                    Ok(rows.iter().map(delivery).collect::<Result<_, _>>()?)
                }

                async fn claim_delivery(&self, row: &DeliveryRow, lease_until: i64, now: i64) -> StoreResult<bool> {
                    let _gate = self.gate.enter().await;
                    let claimed = sqlx::query(
                        "UPDATE deliveries SET next_attempt_at = $1, attempts = attempts + 1, updated_at = $2 \
                         WHERE id = $3 AND status = 'pending' AND attempts = $4 AND next_attempt_at = $5",
                    )
                    .bind(lease_until)
                    .bind(now)
                    .bind(row.id)
                    .bind(row.attempts)
                    .bind(row.next_attempt_at)
                    .execute(&self.pool)
                    .await?
                    .rows_affected();
                    Ok(claimed == 1)
                }

                async fn settle_delivery(
                    &self,
                    id: i64,
                    status: &str,
                    next_attempt_at: i64,
                    error: Option<&str>,
                    now: i64,
                ) -> StoreResult<()> {
                    let _gate = self.gate.enter().await;
                    sqlx::query(
                        "UPDATE deliveries SET status = $1, next_attempt_at = $2, \
                         last_error = COALESCE($3, last_error), updated_at = $4 WHERE id = $5",
                    )
                    .bind(status)
                    .bind(next_attempt_at)
                    .bind(error)
                    .bind(now)
                    .bind(id)
                    .execute(&self.pool)
                    .await?;
                    Ok(())
                }

                async fn deliveries(
                    &self,
                    player_id: i64,
                    before: Option<i64>,
                    limit: i64,
                ) -> StoreResult<Vec<DeliveryRow>> {
                    let rows = sqlx::query(&format!(
                        "SELECT {DELIVERY_COLUMNS} FROM deliveries WHERE player_id = $1 \
                         AND ($2 IS NULL OR id < $2) ORDER BY id DESC LIMIT $3"
                    ))
                    .bind(player_id)
                    .bind(before)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?;
                    Ok(rows.iter().map(delivery).collect::<Result<_, _>>()?)
                }

                async fn player_event(&self, player_id: i64, seq: i64) -> StoreResult<Option<EventRow>> {
                    Ok(self
                        .player_events(player_id, seq - 1, 1)
                        .await?
                        .into_iter()
                        .find(|e| e.seq == seq))
                }
            }
        }
    };
}

pub(crate) use impl_notify_store;
