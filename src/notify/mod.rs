//! Notifications by email and webhook, delivered from the stored player
//! event log — never in a move's request path.
//!
//! 1. Outbox: each player has a cursor (`player_streams.notify_seq`) into their
//!    event log. A pass turns the events after it into rows of
//!    `deliveries`, one per (event, channel) the player chose, and moves the
//!    cursor in the same transaction. The unique key (player, event,
//!    channel) and the conditional cursor update mean a crash or a second
//!    process never loses nor duplicates a row.
//! 2. Delivery: due rows are claimed one by one (a conditional update that
//!    pushes the due time out by a lease and counts the attempt), sent, and
//!    settled as `sent`, `skipped`, `failed`, or `pending` again with an
//!    exponential backoff. A process that dies mid-send leaves the row to be
//!    retried when the lease runs out: delivery is at least once, and the
//!    `X-Tavoliere-Delivery` header lets a webhook receiver drop the rare
//!    duplicate.

pub mod choices;
pub mod email;
pub mod webhook;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::domain::now;
use crate::games::Games;
use crate::store::{DeliveryRow, NewDelivery, NotifySettings, Outbox, Player, Settlement, Store};
pub use choices::{Channel, ChoicesError, NotifyChoices, NotifyKind};
use email::{Mail, Mailer};
use webhook::WebhookUrl;

/// "Is player P connected?" — answered by the WebSocket hub (issue 6).
/// Mail is not sent to a connected player: they see the event live.
pub trait Presence: Send + Sync + 'static {
    fn is_connected(&self, player_id: i64) -> bool;
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum SmtpSecurity {
    /// Plain SMTP: only for a relay on the same host or in tests.
    None,
    /// STARTTLS (port 587 by default).
    #[default]
    Starttls,
    /// TLS from the first byte (port 465 by default).
    Tls,
}

#[derive(Clone, Debug, Args)]
pub struct NotifyConfig {
    /// SMTP relay for notification mails; none: email is off.
    #[arg(long, env = "TAVOLIERE_SMTP_HOST")]
    pub smtp_host: Option<String>,
    /// SMTP port (default 25, 587 or 465 after --smtp-security).
    #[arg(long, env = "TAVOLIERE_SMTP_PORT")]
    pub smtp_port: Option<u16>,
    #[arg(long, env = "TAVOLIERE_SMTP_SECURITY", value_enum, default_value_t = SmtpSecurity::Starttls)]
    pub smtp_security: SmtpSecurity,
    #[arg(long, env = "TAVOLIERE_SMTP_USER")]
    pub smtp_user: Option<String>,
    #[arg(long, env = "TAVOLIERE_SMTP_PASSWORD", hide_env_values = true)]
    pub smtp_password: Option<Secret>,
    /// The sender of notification mails.
    #[arg(long, env = "TAVOLIERE_MAIL_FROM", default_value = "Tavoliere <tavoliere@localhost>")]
    pub mail_from: String,
    /// The web address of this server, for links in mails.
    #[arg(long, env = "TAVOLIERE_BASE_URL", default_value = "http://localhost:8080")]
    pub base_url: String,
    /// How often notifications are queued and sent, in milliseconds.
    #[arg(long, env = "TAVOLIERE_NOTIFY_INTERVAL_MS", default_value_t = 2_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub notify_interval_ms: u64,
    /// The wait before the first retry of a failed delivery, in
    /// milliseconds; it doubles with each further attempt.
    #[arg(long, env = "TAVOLIERE_NOTIFY_RETRY_MS", default_value_t = 30_000)]
    pub notify_retry_ms: u64,
    /// Attempts per delivery before it is marked failed.
    #[arg(long, env = "TAVOLIERE_NOTIFY_ATTEMPTS", default_value_t = 8,
          value_parser = clap::value_parser!(u32).range(1..=30))]
    pub notify_attempts: u32,
    /// Longest a webhook receiver may take to answer, in milliseconds.
    #[arg(long, env = "TAVOLIERE_WEBHOOK_TIMEOUT_MS", default_value_t = 10_000)]
    pub webhook_timeout_ms: u64,
    /// Allow webhooks to loopback, private and link-local addresses. Off by
    /// default (server-side request forgery); the operator decides.
    #[arg(long, env = "TAVOLIERE_WEBHOOK_ALLOW_PRIVATE")]
    pub webhook_allow_private: bool,
}

impl Default for NotifyConfig {
    fn default() -> NotifyConfig {
        NotifyConfig {
            smtp_host: None,
            smtp_port: None,
            smtp_security: SmtpSecurity::Starttls,
            smtp_user: None,
            smtp_password: None,
            mail_from: "Tavoliere <tavoliere@localhost>".to_owned(),
            base_url: "http://localhost:8080".to_owned(),
            notify_interval_ms: 2_000,
            notify_retry_ms: 30_000,
            notify_attempts: 8,
            webhook_timeout_ms: 10_000,
            webhook_allow_private: false,
        }
    }
}

/// A password from the command line or the environment, which `Debug` never
/// prints.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for Secret {
    fn from(secret: String) -> Secret {
        Secret(secret)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"***\"")
    }
}

/// The background worker that queues and sends notifications.
pub struct Notifier {
    store: Arc<dyn Store>,
    games: Arc<Games>,
    config: NotifyConfig,
    mailer: Option<Mailer>,
    http: reqwest::Client,
    presence: Arc<dyn Presence>,
    /// Where replies to the boards mailed go, when play by mail is on.
    replies: Option<Arc<crate::mail::Addresses>>,
}

/// How many players or deliveries one pass handles.
const BATCH: i64 = 100;

impl Notifier {
    /// Logs whether email is on: the operator should know.
    pub fn new(
        store: Arc<dyn Store>,
        games: Arc<Games>,
        config: NotifyConfig,
        presence: Arc<dyn Presence>,
    ) -> Result<Notifier, String> {
        let mailer = Mailer::from_config(&config)?;
        match &config.smtp_host {
            Some(host) if mailer.is_some() => tracing::info!(smtp_host = %host, "email notifications on"),
            _ => tracing::info!("email notifications off: no --smtp-host configured"),
        }
        let http =
            webhook::client(config.webhook_allow_private).map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Notifier {
            store,
            games,
            config,
            mailer,
            http,
            presence,
            replies: None,
        })
    }

    /// Boards mailed from now on carry a reply token (`Reply-To:`).
    pub fn with_replies(mut self, addresses: Arc<crate::mail::Addresses>) -> Notifier {
        self.replies = Some(addresses);
        self
    }

    pub fn email_enabled(&self) -> bool {
        self.mailer.is_some()
    }

    /// Runs passes every `--notify-interval-ms` until aborted.
    pub fn spawn(self: Arc<Self>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(Duration::from_millis(self.config.notify_interval_ms));
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticker.tick().await;
                self.pass().await;
            }
        })
    }

    /// Queues new events, then sends what is due.
    pub async fn pass(&self) {
        if let Err(e) = self.enqueue().await {
            tracing::warn!(error = %e, "cannot queue notifications");
        }
        if let Err(e) = self.deliver().await {
            tracing::warn!(error = %e, "cannot send notifications");
        }
    }

    /// When a digest mail for something queued at `now` goes out: the next
    /// start of a (clock) day.
    fn digest_slot(&self, now: i64) -> i64 {
        let day = self.games.timing().scale.day_ms;
        (now / day + 1) * day
    }

    async fn enqueue(&self) -> Result<(), crate::store::StoreError> {
        let mut outboxes = Vec::new();
        for waiting in self.store.outbox(BATCH).await? {
            let (player_id, cursor, settings) = (waiting.player_id, waiting.cursor, &waiting.settings);
            let email_usable = self.mailer.is_some() && waiting.email.is_some();
            let webhook_usable = settings.webhook_url.is_some() && settings.webhook_secret.is_some();
            if !email_usable && !webhook_usable {
                // Nothing can reach this player: their events are passed
                // over unread.
                outboxes.push(Outbox {
                    player_id,
                    from: cursor,
                    to: waiting.event_seq,
                    deliveries: Vec::new(),
                });
                continue;
            }
            let events = self.store.player_events(player_id, cursor, 500).await?;
            let Some(last) = events.last().map(|e| e.seq) else {
                continue;
            };
            let choices = NotifyChoices::stored(settings);
            let now = now();
            let mut deliveries = Vec::new();
            for event in &events {
                for channel in choices.channels(&event.kind) {
                    let (usable, due_at) = match channel {
                        Channel::Email => {
                            let due = if settings.digest { self.digest_slot(now) } else { now };
                            (email_usable, due)
                        }
                        Channel::Webhook => (webhook_usable, now),
                    };
                    if usable {
                        deliveries.push(NewDelivery {
                            event_seq: event.seq,
                            channel: channel.as_str(),
                            kind: event.kind.clone(),
                            due_at,
                        });
                    }
                }
            }
            outboxes.push(Outbox {
                player_id,
                from: cursor,
                to: last,
                deliveries,
            });
        }
        // Players whose events another process queued first are skipped.
        self.store.enqueue(outboxes, now()).await?;
        Ok(())
    }

    async fn deliver(&self) -> Result<(), crate::store::StoreError> {
        let due = self.store.due_deliveries(now(), BATCH).await?;
        // Digest mails of one player go out together.
        let mut digests: BTreeMap<i64, Vec<DeliveryRow>> = BTreeMap::new();
        for row in due {
            let lease = now() + self.lease_ms();
            if !self.store.claim_delivery(&row, lease, now()).await? {
                continue;
            }
            let settings = self.store.notify_settings(row.player_id).await?;
            if row.channel == "email" && settings.digest {
                digests.entry(row.player_id).or_default().push(row);
                continue;
            }
            let result = match row.channel.as_str() {
                "webhook" => self.send_webhook(&row, &settings).await,
                _ => self.send_email(&row).await,
            };
            self.settle(&row, result).await?;
        }
        for (player_id, rows) in digests {
            let result = self.send_digest(player_id, &rows).await;
            for row in &rows {
                self.settle(row, result.clone()).await?;
            }
        }
        Ok(())
    }

    fn lease_ms(&self) -> i64 {
        i64::try_from(self.config.webhook_timeout_ms).unwrap_or(i64::MAX / 4) + 60_000
    }

    /// `Ok(None)`: sent; `Ok(Some(reason))`: skipped; `Err`: failed.
    async fn settle(
        &self,
        row: &DeliveryRow,
        result: Result<Option<String>, String>,
    ) -> Result<(), crate::store::StoreError> {
        let now = now();
        let attempts = row.attempts + 1;
        let (status, next_attempt_at, error) = match result {
            Ok(None) => ("sent", now, None),
            Ok(Some(reason)) => ("skipped", now, Some(reason)),
            Err(error) => {
                tracing::info!(delivery = row.id, channel = %row.channel, attempts, %error, "delivery failed");
                if attempts >= i64::from(self.config.notify_attempts) {
                    ("failed", now, Some(error))
                } else {
                    let base = i64::try_from(self.config.notify_retry_ms).unwrap_or(i64::MAX / 4);
                    let backoff = base.saturating_mul(1i64 << (attempts - 1).clamp(0, 20));
                    ("pending", now.saturating_add(backoff), Some(error))
                }
            }
        };
        let settlement = Settlement {
            id: row.id,
            status,
            next_attempt_at,
            error,
            now,
        };
        self.store.settle_delivery(settlement).await
    }

    async fn event_of(&self, row: &DeliveryRow) -> Result<(Player, crate::store::EventRow), String> {
        let player = self
            .store
            .player_by_id(row.player_id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the player is gone")?;
        let event = self
            .store
            .player_event(row.player_id, row.event_seq)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the event is gone")?;
        Ok((player, event))
    }

    async fn send_webhook(&self, row: &DeliveryRow, settings: &NotifySettings) -> Result<Option<String>, String> {
        let (Some(url), Some(secret)) = (&settings.webhook_url, &settings.webhook_secret) else {
            return Ok(Some("the webhook was removed".to_owned()));
        };
        let url = WebhookUrl::parse(url, self.config.webhook_allow_private).map_err(|e| e.to_string())?;
        let (player, event) = self.event_of(row).await?;
        let body = webhook_body(&player, &event);
        webhook::post(
            &self.http,
            &url,
            secret,
            &format!("{}-{}", player.id, event.seq),
            body,
            self.config.webhook_allow_private,
            Duration::from_millis(self.config.webhook_timeout_ms),
        )
        .await
        .map(|()| None)
    }

    async fn send_email(&self, row: &DeliveryRow) -> Result<Option<String>, String> {
        let Some(mailer) = &self.mailer else {
            return Ok(Some("email is off on this server".to_owned()));
        };
        if self.presence.is_connected(row.player_id) {
            return Ok(Some("the player was connected".to_owned()));
        }
        let (player, event) = self.event_of(row).await?;
        let mut mail = email::compose(&self.games, &player, &event, &self.config.base_url).await?;
        if let (Some(addresses), Some((game, ply))) = (&self.replies, mail.board) {
            let token = crate::mail::ReplyToken {
                game,
                player: player.id,
                ply,
            };
            mail.reply_to = Some(addresses.reply_address(token));
            mail.text.push_str(crate::mail::REPLY_HINT);
        }
        mailer.send(&player, mail).await.map(|()| None)
    }

    async fn send_digest(&self, player_id: i64, rows: &[DeliveryRow]) -> Result<Option<String>, String> {
        let Some(mailer) = &self.mailer else {
            return Ok(Some("email is off on this server".to_owned()));
        };
        let mut mails: Vec<Mail> = Vec::new();
        let mut player = None;
        for row in rows {
            let (p, event) = self.event_of(row).await?;
            mails.push(email::compose(&self.games, &p, &event, &self.config.base_url).await?);
            player = Some(p);
        }
        match player {
            Some(player) => mailer.send(&player, email::digest(mails)).await.map(|()| None),
            None => Err(format!("no events for player {player_id}")),
        }
    }
}

/// The webhook body: the player event as the WebSocket sends it, plus the
/// player it is for.
pub fn webhook_body(player: &Player, event: &crate::store::EventRow) -> Vec<u8> {
    let mut body = crate::views::EventView::of_player(event).frame("player_event");
    body["player"] = player.name.clone().into();
    serde_json::to_vec(&body).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_print() {
        assert_eq!(format!("{:?}", Secret::from("hunter2".to_owned())), "\"***\"");
    }
}
