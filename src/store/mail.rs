//! Storage for play by mail: the reply-token secret, the players' command
//! address keys and the inbox. Promises: the secret is made once and then
//! only read; a mail is stored once per (message key, recipient); a stored
//! mail is claimed by one process at a time (a lease), and a player's mails
//! are handed out in arrival order, the next only once the one before it is
//! settled.

use async_trait::async_trait;

use super::{InboxRow, MailSettlement, NewMail, Player, StoreResult};

#[async_trait]
pub trait MailStore: Send + Sync {
    /// The stored secret; `fresh` is stored first when there is none.
    async fn mail_secret(&self, fresh: &str) -> StoreResult<String>;
    /// The player whose command address has this key.
    async fn player_by_mail_key(&self, key: &str) -> StoreResult<Option<Player>>;
    /// The player's key, `fresh` becoming it when they have none (or always,
    /// with `replace`). `None`: no such player.
    async fn set_mail_key(&self, player_id: i64, fresh: &str, replace: bool) -> StoreResult<Option<String>>;
    /// Keeps a received mail; `false` when it was stored before (a
    /// duplicate, which is not processed again).
    async fn store_mail(&self, mail: NewMail) -> StoreResult<bool>;
    /// Mails ready for work at `now`: replies to send, and each player's
    /// oldest pending mail received at or before `received_before`, oldest
    /// first, unclaimed.
    async fn open_mails(&self, now: i64, received_before: i64, limit: i64) -> StoreResult<Vec<InboxRow>>;
    /// Takes a row for one attempt until `lease_until`, if nobody has since
    /// it was read; only the process that gets `true` works on it.
    async fn claim_mail(&self, row: &InboxRow, lease_until: i64) -> StoreResult<bool>;
    /// Records the next step of a mail and releases its claim.
    async fn settle_mail(&self, settlement: MailSettlement) -> StoreResult<()>;
}
