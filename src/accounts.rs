//! Players' credentials: names, passwords (argon2) and bearer tokens (random,
//! stored as their SHA-256).

use argon2::password_hash::rand_core::{OsRng, RngCore};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use sha2::{Digest, Sha256};

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::store::{Player, Store, StoreError};

pub const MAX_NAME_LEN: usize = 32;
pub const MIN_PASSWORD_LEN: usize = 8;
pub const MAX_PASSWORD_LEN: usize = 128;
pub const MAX_EMAIL_LEN: usize = 254;

/// Names are unique regardless of case.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

/// A valid player name: 1 to 32 letters, digits, `_` or `-`, starting with a
/// letter or digit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerName(String);

impl PlayerName {
    pub fn parse(name: String) -> Result<PlayerName> {
        let ok = !name.is_empty()
            && name.chars().count() <= MAX_NAME_LEN
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && name.starts_with(|c: char| c.is_ascii_alphanumeric());
        if ok {
            Ok(PlayerName(name))
        } else {
            Err(Error::unprocessable(
                "bad_name",
                format!("a name is 1 to {MAX_NAME_LEN} letters, digits, '_' or '-', starting with a letter or digit"),
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What makes names unique: the name regardless of case.
    pub fn key(&self) -> String {
        name_key(&self.0)
    }
}

/// A password of acceptable length; never printed.
pub struct Password(String);

impl Password {
    pub fn parse(password: String) -> Result<Password> {
        let n = password.chars().count();
        if (MIN_PASSWORD_LEN..=MAX_PASSWORD_LEN).contains(&n) {
            Ok(Password(password))
        } else {
            Err(Error::unprocessable(
                "bad_password",
                format!("a password has {MIN_PASSWORD_LEN} to {MAX_PASSWORD_LEN} characters"),
            ))
        }
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(***)")
    }
}

/// Something shaped like an email address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(email: String) -> Result<Email> {
        let ok = email.len() <= MAX_EMAIL_LEN
            && email
                .split_once('@')
                .is_some_and(|(user, host)| !user.is_empty() && !host.is_empty())
            && !email.chars().any(char::is_whitespace);
        if ok {
            Ok(Email(email))
        } else {
            Err(Error::unprocessable("bad_email", "not an email address"))
        }
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

/// Hashes a password off the async runtime (argon2 is slow on purpose).
pub async fn hash_password(password: Password) -> Result<String> {
    let Password(password) = password;
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(Error::internal)
    })
    .await
    .map_err(Error::internal)?
}

/// Checks a password against a stored hash, off the async runtime.
pub async fn verify_password(password: String, hash: String) -> Result<bool> {
    tokio::task::spawn_blocking(move || {
        let parsed = PasswordHash::new(&hash).map_err(Error::internal)?;
        Ok(Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
    })
    .await
    .map_err(Error::internal)?
}

fn hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

/// A fresh token: 32 random bytes, hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    hex(&bytes)
}

/// What the database keeps of a token.
pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// How long a token's player is remembered without asking the database.
/// Bounds how long a change of a player's profile takes to reach other
/// server processes; this process forgets a player as it changes them.
const TOKEN_CACHE_TTL: Duration = Duration::from_secs(60);
/// Tokens remembered at most; the cache starts over beyond.
const TOKEN_CACHE_SIZE: usize = 100_000;

/// The players of recently used tokens, so that an authenticated request
/// costs no database read.
#[derive(Default)]
pub struct TokenCache {
    entries: Mutex<HashMap<String, (Player, Instant)>>,
}

impl TokenCache {
    /// The player holding `token`, if any.
    pub async fn player(&self, store: &dyn Store, token: &str) -> Result<Option<Player>, StoreError> {
        let hash = token_hash(token);
        if let Some((player, seen)) = self.locked().get(&hash) {
            if seen.elapsed() < TOKEN_CACHE_TTL {
                return Ok(Some(player.clone()));
            }
        }
        let player = store.player_by_token(&hash).await?;
        if let Some(player) = &player {
            let mut entries = self.locked();
            if entries.len() >= TOKEN_CACHE_SIZE {
                entries.clear();
            }
            entries.insert(hash, (player.clone(), Instant::now()));
        }
        Ok(player)
    }

    /// Forgets every token of a player whose profile changed.
    pub fn forget_player(&self, player_id: i64) {
        self.locked().retain(|_, (player, _)| player.id != player_id);
    }

    fn locked(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Player, Instant)>> {
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> Result<PlayerName> {
        PlayerName::parse(s.to_owned())
    }

    #[test]
    fn names() {
        assert!(name("alice").is_ok());
        assert_eq!(name("Bob_2-x").map(|n| n.key()).ok().as_deref(), Some("bob_2-x"));
        assert!(name("").is_err());
        assert!(name("_x").is_err());
        assert!(name("a b").is_err());
        assert!(name(&"a".repeat(33)).is_err());
        assert!(name("è").is_err());
    }

    #[test]
    fn passwords_and_emails() {
        assert!(Password::parse("correct horse".to_owned()).is_ok());
        assert!(Password::parse("short".to_owned()).is_err());
        assert_eq!(
            format!("{:?}", Password::parse("correct horse".to_owned()).ok()),
            "Some(Password(***))"
        );
        assert!(Email::parse("a@b".to_owned()).is_ok());
        assert!(Email::parse("a b@c".to_owned()).is_err());
        assert!(Email::parse("@c".to_owned()).is_err());
    }

    #[test]
    fn tokens_are_distinct_and_hashed() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert_eq!(token_hash(&a).len(), 64);
        assert_ne!(token_hash(&a), a);
    }
}
