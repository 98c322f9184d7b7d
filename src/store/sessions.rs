//! The sessions aggregate: a player's bearer tokens, each stored as its
//! SHA-256 only, with when it was opened and last used and the client that
//! opened it. Promises: a deleted token opens nothing from the moment the
//! delete returns; a session is named to its player by [`SessionRow::id`],
//! which signs nobody in.

use async_trait::async_trait;

use super::{NewToken, SessionRow, StoreResult, TokenSession};

#[async_trait]
pub trait SessionStore: Send + Sync {
    async fn insert_token(&self, token: NewToken) -> StoreResult<()>;
    /// The player a token opens, and when the token was last used.
    async fn session_by_token(&self, token_hash: &str) -> StoreResult<Option<TokenSession>>;
    /// Marks a token used at `now`.
    async fn touch_token(&self, token_hash: &str, now: i64) -> StoreResult<()>;
    /// The player's sessions, most recently used first.
    async fn sessions(&self, player_id: i64) -> StoreResult<Vec<SessionRow>>;
    /// Ends one session.
    async fn delete_token(&self, token_hash: &str) -> StoreResult<()>;
    /// Ends every session of a player.
    async fn delete_tokens(&self, player_id: i64) -> StoreResult<()>;
}
