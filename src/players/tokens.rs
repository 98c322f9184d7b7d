//! Bearer tokens: random, handed out once, stored only as their SHA-256; and
//! the cache of recently used tokens, so that an authenticated request costs
//! no database read.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use sha2::{Digest, Sha256};

use crate::store::{Player, Store, StoreError};

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
    /// The player holding the token whose [`token_hash`] is `hash`, if any.
    pub async fn player(&self, store: &dyn Store, hash: &str) -> Result<Option<Player>, StoreError> {
        if let Some((player, seen)) = self.locked().get(hash) {
            if seen.elapsed() < TOKEN_CACHE_TTL {
                return Ok(Some(player.clone()));
            }
        }
        let player = store.player_by_token(hash).await?;
        if let Some(player) = &player {
            let mut entries = self.locked();
            if entries.len() >= TOKEN_CACHE_SIZE {
                entries.clear();
            }
            entries.insert(hash.to_owned(), (player.clone(), Instant::now()));
        }
        Ok(player)
    }

    /// Forgets every token of a player whose profile changed or whose
    /// sessions ended.
    pub fn forget_player(&self, player_id: i64) {
        self.locked().retain(|_, (player, _)| player.id != player_id);
    }

    /// Forgets a token whose session ended.
    pub fn forget_token(&self, hash: &str) {
        self.locked().remove(hash);
    }

    fn locked(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Player, Instant)>> {
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_distinct_and_hashed() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert_eq!(token_hash(&a).len(), 64);
        assert_ne!(token_hash(&a), a);
    }
}
