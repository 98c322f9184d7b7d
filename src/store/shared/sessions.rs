//! [`SessionStore`] for every backend: statements both databases run as
//! they are. A token never used since this column came is taken as last
//! used when it was opened.

use async_trait::async_trait;

use super::super::backend::Backend;
use super::super::binding::{Select, Statement};
use super::super::{NewToken, SessionRow, SessionStore, StoreError, StoreResult, TokenSession};
use super::written;

#[async_trait]
impl<B: Backend> SessionStore for B {
    async fn insert_token(&self, token: NewToken) -> StoreResult<()> {
        let insert = sqlx::query(
            "INSERT INTO tokens (token_hash, player_id, created_at, last_used_at, user_agent) \
             VALUES ($1, $2, $3, $3, $4)",
        )
        .arg(token.token_hash.as_str())
        .arg(token.player_id)
        .arg(token.now)
        .arg(token.user_agent.as_deref());
        written(self, insert).await.map_err(StoreError::from_write)?;
        Ok(())
    }

    async fn session_by_token(&self, token_hash: &str) -> StoreResult<Option<TokenSession>> {
        Ok(sqlx::query(
            "SELECT p.id, p.name, p.email, p.created_at, p.bot, COALESCE(t.last_used_at, t.created_at) AS last_used_at \
             FROM tokens t JOIN players p ON p.id = t.player_id WHERE t.token_hash = $1",
        )
        .arg(token_hash)
        .rows().fetch_optional(self.db())
        .await?)
    }

    async fn touch_token(&self, token_hash: &str, now: i64) -> StoreResult<()> {
        let touch = sqlx::query("UPDATE tokens SET last_used_at = $2 WHERE token_hash = $1")
            .arg(token_hash)
            .arg(now);
        written(self, touch).await?;
        Ok(())
    }

    async fn sessions(&self, player_id: i64) -> StoreResult<Vec<SessionRow>> {
        Ok(sqlx::query(
            "SELECT token_hash, created_at, COALESCE(last_used_at, created_at) AS last_used_at, user_agent \
             FROM tokens WHERE player_id = $1 ORDER BY COALESCE(last_used_at, created_at) DESC, created_at DESC",
        )
        .arg(player_id)
        .rows()
        .fetch_all(self.db())
        .await?)
    }

    async fn delete_token(&self, token_hash: &str) -> StoreResult<()> {
        written(
            self,
            sqlx::query("DELETE FROM tokens WHERE token_hash = $1").arg(token_hash),
        )
        .await?;
        Ok(())
    }

    async fn delete_tokens(&self, player_id: i64) -> StoreResult<()> {
        written(
            self,
            sqlx::query("DELETE FROM tokens WHERE player_id = $1").arg(player_id),
        )
        .await?;
        Ok(())
    }
}
