//! The inbox: received mail is stored before the listener says `250`, and
//! processed from the table, so that a crash after the `250` only delays it.
//!
//! Each stored mail goes `pending` → `replying` → `done` (or `ignored`):
//! a worker claims it (a lease, so a process that dies mid-way leaves it to
//! another pass), reads who it is from and what it asks, runs each command
//! through the games and players services, stores the reply in the same
//! row, and then sends it; a reply that cannot be sent is retried without
//! running the commands again. A player's mails are handed out in the order
//! they arrived, the next only once the one before is settled. The same
//! message delivered twice is stored once (its `Message-ID`, or its hash).
//!
//! Mail whose sender is not the player's registered address, or for an
//! address no longer valid, is logged and never answered: no backscatter.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use super::address::{AddressError, Addresses, Recipient};
use super::commands::GameId;
use super::execute::Services;
use super::incoming::{self, Incoming};
use super::{reply, script, MailConfig};
use crate::domain::now;
use crate::notify::email::{Mail, Mailer};
use crate::players::PlayerError;
use crate::store::{InboxRow, MailSettlement, NewMail, Player, Store, StoreError};

/// Mails looked at per pass.
const BATCH: i64 = 50;
/// How long a claim lasts: longer than any processing takes.
const LEASE_MS: i64 = 120_000;
/// A reply not sent within this long after its mail arrived is given up.
const GIVE_UP_MS: i64 = 86_400_000;

/// Why the inbox could not do its part now (it is tried again).
#[derive(Debug, thiserror::Error)]
pub enum InboxError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Players(#[from] PlayerError),
    #[error("cannot encode the reply: {0}")]
    Encode(#[from] serde_json::Error),
}

type Result<T, E = InboxError> = std::result::Result<T, E>;

/// What became of a message at the end of `DATA`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepted {
    Stored,
    Duplicate,
}

/// A reply as stored in its mail's row until sent.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StoredReply {
    subject: String,
    text: String,
    reply_to: Option<String>,
    in_reply_to: Option<String>,
}

pub struct Inbox {
    store: Arc<dyn Store>,
    addresses: Arc<Addresses>,
    services: Services,
    mailer: Option<Mailer>,
    config: MailConfig,
    retry_ms: i64,
    wake: Notify,
}

impl Inbox {
    pub fn new(door: super::Door, mailer: Option<Mailer>, config: MailConfig, retry_ms: i64) -> Inbox {
        Inbox {
            store: door.store,
            addresses: door.addresses,
            services: Services {
                games: door.games,
                players: door.players,
            },
            mailer,
            config,
            retry_ms,
            wake: Notify::new(),
        }
    }

    pub fn domain(&self) -> &str {
        self.addresses.domain()
    }

    /// The player a recipient names (the listener's `RCPT` check).
    pub async fn recipient(&self, address: &str) -> Result<Result<i64, AddressError>> {
        Ok(self.player_of(address).await?.map(|(player, _)| player.id))
    }

    /// The player and, for a reply token, the game and ply it names.
    async fn player_of(&self, address: &str) -> Result<Result<(Player, Option<(GameId, i64)>), AddressError>> {
        let found = match self.addresses.recipient(address) {
            Err(refused) => return Ok(Err(refused)),
            Ok(Recipient::Reply(token)) => self
                .store
                .player_by_id(token.player)
                .await?
                .map(|p| (p, Some((GameId(token.game), token.ply)))),
            Ok(Recipient::Commands { name, key }) => {
                let player = self.services.players.by_mail_address(&name, &key).await?;
                player.map(|p| (p, None))
            }
        };
        Ok(found.ok_or(AddressError::Unknown))
    }

    /// Stores a received message, once per recipient; only then may the
    /// listener say `250`.
    pub async fn accept(&self, from: &str, recipients: &[(String, i64)], message: Vec<u8>) -> Result<Accepted> {
        let key = incoming::message_key(&message);
        let mut stored = false;
        for (recipient, player_id) in recipients {
            let mail = NewMail {
                message_key: key.clone(),
                recipient: recipient.clone(),
                player_id: *player_id,
                envelope_from: from.to_owned(),
                message: message.clone(),
                now: now(),
            };
            stored |= self.store.store_mail(mail).await?;
        }
        if stored {
            self.wake.notify_one();
            Ok(Accepted::Stored)
        } else {
            tracing::info!(key = %key, "duplicate mail, already stored");
            Ok(Accepted::Duplicate)
        }
    }

    /// Processes the inbox until aborted: whenever mail arrives, and every
    /// poll interval (for mail another process stored, retries, delays).
    pub fn spawn(self: Arc<Self>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let poll = Duration::from_millis(self.config.mail_poll_ms.max(1));
            loop {
                while self.pass().await > 0 {}
                let _ = tokio::time::timeout(poll, self.wake.notified()).await;
            }
        })
    }

    /// One pass over the open mails; how many were worked on.
    async fn pass(&self) -> usize {
        let now = now();
        let delay = i64::try_from(self.config.mail_process_delay_ms).unwrap_or(i64::MAX / 4);
        let rows = match self.store.open_mails(now, now.saturating_sub(delay), BATCH).await {
            Ok(rows) => rows,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the mail inbox");
                return 0;
            }
        };
        let mut worked = 0;
        for row in rows {
            match self.store.claim_mail(&row, now + LEASE_MS).await {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot claim a mail");
                    continue;
                }
            }
            worked += 1;
            let settled = if row.status == "replying" {
                self.send(&row).await
            } else {
                self.process(&row).await
            };
            if let Err(e) = settled {
                tracing::warn!(mail = row.id, error = %e, "cannot settle a mail");
            }
        }
        worked
    }

    async fn settle(&self, row: &InboxRow, status: &'static str, reply: Option<String>, outcome: String) -> Result<()> {
        let now = now();
        self.store
            .settle_mail(MailSettlement {
                id: row.id,
                status,
                reply,
                outcome: Some(outcome),
                claimed_until: now,
                now,
            })
            .await?;
        Ok(())
    }

    /// Runs a pending mail's commands and stores the reply, then sends it.
    async fn process(&self, row: &InboxRow) -> Result<()> {
        let Some(mail) = incoming::read(&row.message) else {
            tracing::info!(mail = row.id, "mail ignored: not a message");
            return self.settle(row, "ignored", None, "not a message".into()).await;
        };
        let (player, about) = match self.player_of(&row.recipient).await? {
            Ok(found) => found,
            Err(_) => {
                tracing::info!(mail = row.id, "mail ignored: the address is no longer valid");
                return self
                    .settle(row, "ignored", None, "address no longer valid".into())
                    .await;
            }
        };
        if !from_player(&player, &row.envelope_from, &mail) {
            tracing::info!(mail = row.id, player = %player.name, from = %row.envelope_from,
                "mail ignored: not from the player's registered address");
            return self.settle(row, "ignored", None, "stranger".into()).await;
        }
        let script = match about {
            Some((game, ply)) => script::reply(game, ply, &mail.text),
            None => script::commands(&mail.subject, &mail.text),
        };
        let mut answers = Vec::new();
        for step in &script.steps {
            answers.push(self.services.run(&player, step).await);
        }
        let game = about.map(|(game, _)| game.0);
        let reply_to = self.reply_address(&player, game).await?;
        let composed = reply::compose(&mail, &script, &answers, reply_to, game);
        let stored = StoredReply {
            subject: composed.subject,
            text: composed.text,
            reply_to: composed.reply_to,
            in_reply_to: mail.message_id.clone(),
        };
        let json = serde_json::to_string(&stored)?;
        let outcome = format!("{} commands run", script.steps.len());
        self.settle(row, "replying", Some(json), outcome).await?;
        self.deliver(row, Some(stored)).await
    }

    /// Where a reply to the answer goes: the way the player wrote, a token
    /// for the same game (at its ply now) or the command address.
    async fn reply_address(&self, player: &Player, game: Option<i64>) -> Result<Option<String>> {
        if let Some(game) = game {
            if let Some(token) = self.services.reply_token(player, game).await {
                return Ok(Some(self.addresses.reply_address(token)));
            }
        }
        Ok(self.services.players.me(player).await?.mail_address)
    }

    /// Sends a mail's stored reply, to the player's registered address.
    async fn send(&self, row: &InboxRow) -> Result<()> {
        let stored = row.reply.as_deref().and_then(|json| serde_json::from_str(json).ok());
        self.deliver(row, stored).await
    }

    async fn deliver(&self, row: &InboxRow, stored: Option<StoredReply>) -> Result<()> {
        let (Some(stored), Some(mailer)) = (stored, &self.mailer) else {
            tracing::warn!(mail = row.id, "the reply cannot be sent: no reply, or no --smtp-host");
            return self
                .settle(row, "done", None, "reply not sent: no outbound SMTP".into())
                .await;
        };
        let Some(player) = self.store.player_by_id(row.player_id).await? else {
            return self.settle(row, "done", None, "the player is gone".into()).await;
        };
        let mail = Mail {
            subject: stored.subject,
            text: stored.text,
            board: None,
            reply_to: stored.reply_to,
            in_reply_to: stored.in_reply_to,
        };
        match mailer.send(&player, mail).await {
            Ok(()) => self.settle(row, "done", None, "answered".into()).await,
            Err(e) if now() - row.received_at > GIVE_UP_MS => {
                tracing::warn!(mail = row.id, error = %e, "reply given up");
                self.settle(row, "done", None, format!("reply given up: {e}")).await
            }
            Err(e) => {
                tracing::info!(mail = row.id, error = %e, "reply not sent, will retry");
                let now = now();
                self.store
                    .settle_mail(MailSettlement {
                        id: row.id,
                        status: "replying",
                        reply: None,
                        outcome: Some(format!("reply not sent: {e}")),
                        claimed_until: now + self.retry_ms,
                        now,
                    })
                    .await?;
                Ok(())
            }
        }
    }
}

/// Whether the mail comes from the player's registered address (the
/// envelope sender or a `From:` address).
fn from_player(player: &Player, envelope_from: &str, mail: &Incoming) -> bool {
    let Some(email) = player.email.as_deref().map(str::to_ascii_lowercase) else {
        return false;
    };
    envelope_from.eq_ignore_ascii_case(&email) || mail.from.contains(&email)
}
