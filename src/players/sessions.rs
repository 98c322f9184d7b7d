//! A player's sessions as they see them: listed (never their tokens) and
//! revoked one by one. Revoking takes effect at once in this process (the
//! token cache forgets it) and within [`TOKEN_CACHE_TTL`] in every other
//! process sharing the database.

use std::net::IpAddr;

use super::accounts::Session;
use super::error::{PlayerError, Result};
use super::tokens::{session_id, TOKEN_CACHE_TTL};
use super::Players;

/// Longest `User-Agent` kept with a session, in characters.
pub const MAX_USER_AGENT_LEN: usize = 256;

/// One of a player's sessions.
#[derive(Clone, Debug)]
pub struct SessionInfo {
    /// Names the session (see [`session_id`]); signs nobody in.
    pub id: String,
    /// Unix ms.
    pub created_at: i64,
    /// Unix ms, to within a minute or so (see `tokens.rs`).
    pub last_used_at: i64,
    pub user_agent: Option<String>,
    /// The session the request came with.
    pub current: bool,
}

/// Who opens a session: the client's address, which the abuse limits
/// count by, and what is kept of its `User-Agent` ([`user_agent`]), shown
/// with the session.
#[derive(Clone, Debug)]
pub struct Client {
    pub address: IpAddr,
    pub user_agent: Option<String>,
}

/// What is kept of a client's `User-Agent`: its first
/// [`MAX_USER_AGENT_LEN`] characters, control characters dropped.
pub fn user_agent(header: Option<&str>) -> Option<String> {
    let kept: String = header?
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_USER_AGENT_LEN)
        .collect();
    let kept = kept.trim();
    (!kept.is_empty()).then(|| kept.to_owned())
}

impl Players {
    /// The signed-in player's sessions, most recently used first.
    pub async fn sessions(&self, session: &Session) -> Result<Vec<SessionInfo>> {
        let rows = self.store.sessions(session.player.id).await?;
        Ok(rows
            .into_iter()
            .map(|row| SessionInfo {
                id: session_id(&row.token_hash).to_owned(),
                created_at: row.created_at,
                last_used_at: row.last_used_at,
                user_agent: row.user_agent,
                current: row.token_hash == session.token_hash,
            })
            .collect())
    }

    /// Ends the signed-in player's session named `id`; someone else's, or
    /// none, is [`PlayerError::NoSession`].
    pub async fn revoke_session(&self, session: &Session, id: &str) -> Result<()> {
        let rows = self.store.sessions(session.player.id).await?;
        let row = rows
            .iter()
            .find(|row| session_id(&row.token_hash) == id)
            .ok_or_else(|| PlayerError::NoSession(id.to_owned()))?;
        self.store.delete_token(&row.token_hash).await?;
        self.tokens.forget_token(&row.token_hash);
        tracing::info!(
            player = session.player.id,
            session = id,
            other_processes_within_s = TOKEN_CACHE_TTL.as_secs(),
            "session revoked"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agents_are_kept_short_and_printable() {
        assert_eq!(user_agent(None), None);
        assert_eq!(user_agent(Some("  ")), None);
        assert_eq!(user_agent(Some("curl/8.5\u{0}\n")), Some("curl/8.5".to_owned()));
        let long = "x".repeat(1000);
        assert_eq!(user_agent(Some(&long)).map(|s| s.len()), Some(MAX_USER_AGENT_LEN));
    }
}
