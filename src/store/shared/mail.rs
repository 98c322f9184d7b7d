//! [`MailStore`] for every backend: the inbox's statements, which both
//! databases run as they are.

use async_trait::async_trait;

use super::super::backend::Backend;
use super::super::binding::{Select, Statement};
use super::super::sql::PLAYER;
use super::super::{InboxRow, MailSettlement, MailStore, NewMail, Player, StoreError, StoreResult};
use super::{changed_one, written};

const INBOX: &str = "SELECT id, recipient, player_id, envelope_from, message, received_at, status, \
     claimed_until, reply FROM mail_inbox m";

#[async_trait]
impl<B: Backend> MailStore for B {
    async fn mail_secret(&self, fresh: &str) -> StoreResult<String> {
        {
            let insert = sqlx::query("INSERT INTO mail_secret (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING")
                .arg(fresh);
            written(self, insert).await.map_err(StoreError::from_write)?;
        }
        let (secret,): (String,) = sqlx::query("SELECT secret FROM mail_secret WHERE id = 1")
            .rows()
            .fetch_one(self.db())
            .await?;
        Ok(secret)
    }

    async fn player_by_mail_key(&self, key: &str) -> StoreResult<Option<Player>> {
        let query = format!("{PLAYER} WHERE mail_key = $1");
        Ok(sqlx::query(&query).arg(key).rows().fetch_optional(self.db()).await?)
    }

    async fn set_mail_key(&self, player_id: i64, fresh: &str, replace: bool) -> StoreResult<Option<String>> {
        if !replace {
            // Reading the profile is no write once the key exists.
            let key: Option<(Option<String>,)> = sqlx::query("SELECT mail_key FROM players WHERE id = $1")
                .arg(player_id)
                .rows()
                .fetch_optional(self.db())
                .await?;
            if let Some((Some(key),)) = key {
                return Ok(Some(key));
            }
        }
        let _turn = self.write_turn().await;
        let key: Option<(Option<String>,)> = sqlx::query(
            "UPDATE players SET mail_key = CASE WHEN $3 OR mail_key IS NULL THEN $2 ELSE mail_key END \
             WHERE id = $1 RETURNING mail_key",
        )
        .arg(player_id)
        .arg(fresh)
        .arg(replace)
        .rows()
        .fetch_optional(self.db())
        .await
        .map_err(StoreError::from_write)?;
        Ok(key.and_then(|(key,)| key))
    }

    async fn store_mail(&self, mail: NewMail) -> StoreResult<bool> {
        let insert = sqlx::query(
            "INSERT INTO mail_inbox (message_key, recipient, player_id, envelope_from, message, \
             received_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) \
             ON CONFLICT (message_key, recipient) DO NOTHING",
        )
        .arg(mail.message_key.as_str())
        .arg(mail.recipient.as_str())
        .arg(mail.player_id)
        .arg(mail.envelope_from.as_str())
        .arg(mail.message.as_slice())
        .arg(mail.now);
        Ok(written(self, insert).await.map_err(StoreError::from_write)? == 1)
    }

    async fn open_mails(&self, now: i64, received_before: i64, limit: i64) -> StoreResult<Vec<InboxRow>> {
        // A player's next mail waits for every earlier one of theirs to be
        // settled, so that their commands run in the order they arrived.
        let query = format!(
            "{INBOX} WHERE m.claimed_until <= $1 AND (m.status = 'replying' OR (m.status = 'pending' \
             AND m.received_at <= $2 AND NOT EXISTS (SELECT 1 FROM mail_inbox e \
             WHERE e.player_id = m.player_id AND e.status IN ('pending', 'replying') AND e.id < m.id))) \
             ORDER BY m.id LIMIT $3"
        );
        Ok(sqlx::query(&query)
            .arg(now)
            .arg(received_before)
            .arg(limit)
            .rows()
            .fetch_all(self.db())
            .await?)
    }

    async fn claim_mail(&self, row: &InboxRow, lease_until: i64) -> StoreResult<bool> {
        let claim = sqlx::query(
            "UPDATE mail_inbox SET claimed_until = $1 WHERE id = $2 AND status = $3 AND claimed_until = $4",
        )
        .arg(lease_until)
        .arg(row.id)
        .arg(row.status.as_str())
        .arg(row.claimed_until);
        changed_one(self, claim).await
    }

    async fn settle_mail(&self, settlement: MailSettlement) -> StoreResult<()> {
        let settle = sqlx::query(
            "UPDATE mail_inbox SET status = $1, reply = COALESCE($2, reply), outcome = COALESCE($3, outcome), \
             claimed_until = $4, updated_at = $5 WHERE id = $6",
        )
        .arg(settlement.status)
        .arg(settlement.reply.as_deref())
        .arg(settlement.outcome.as_deref())
        .arg(settlement.claimed_until)
        .arg(settlement.now)
        .arg(settlement.id);
        written(self, settle).await?;
        Ok(())
    }
}
