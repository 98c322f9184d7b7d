//! Bearer tokens: random, handed out once, stored only as their SHA-256
//! (held as they are only in this process's memory, while cached); and
//! the cache of recently used tokens, so that an authenticated request costs
//! no database read.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use sha2::{Digest, Sha256};

use super::accounts::Session;
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
/// Bounds how long a change of a player's profile, or a session revoked by
/// another server process, takes to reach this one; this process forgets a
/// player or a token as it changes or revokes them.
pub const TOKEN_CACHE_TTL: Duration = Duration::from_secs(60);
/// Tokens remembered at most; the cache starts over beyond.
const TOKEN_CACHE_SIZE: usize = 100_000;
/// A token's last use is written at most this often (ms), so that the hot
/// path does not write per request; shorter for lifetimes under ten
/// minutes, so that a use still renews them in time.
const TOUCH_EVERY_MS: i64 = 60_000;

/// What a use of a token at `now` finds, for a token last used at
/// `last_used` (as far as this process knows) and last written as used at
/// `written`, when tokens idle for `lifetime` ms expire (`None`: never).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// Idle too long: the session is over.
    Expired,
    /// Valid, and the use is to be written.
    Touch,
    /// Valid; written recently enough.
    Fresh,
}

pub fn judge(last_used: i64, written: i64, now: i64, lifetime: Option<i64>) -> Use {
    let touch_every = lifetime.map_or(TOUCH_EVERY_MS, |l| TOUCH_EVERY_MS.min(l / 10));
    match lifetime {
        Some(lifetime) if now - last_used > lifetime => Use::Expired,
        _ if now - written >= touch_every => Use::Touch,
        _ => Use::Fresh,
    }
}

/// A remembered token, under the token itself: a request that finds its
/// token here computes no SHA-256 (7.4k instructions, more than half of
/// authenticating a request before; BENCHMARKS.md, issue 26).
#[derive(Clone, Debug)]
struct Entry {
    player: Player,
    /// The token's [`token_hash`], which names its session and its row.
    hash: String,
    /// When this process read it from the database.
    read: Instant,
    /// Its last use (ms), and when that was last written.
    used: i64,
    written: i64,
}

/// The players of recently used tokens, so that an authenticated request
/// costs no database read and no hashing, and each token's last use written
/// about once a minute at most. Keyed by the raw token with std's keyed
/// SipHash: only valid tokens are ever stored, and a guesser cannot choose
/// which entry their guess is compared with.
#[derive(Default)]
pub struct TokenCache {
    entries: Mutex<Entries>,
    /// How long an unused token stays valid (ms); `None`: forever.
    lifetime: Option<i64>,
}

/// The remembered tokens, and how many times any was forgotten.
#[derive(Default)]
struct Entries {
    by_token: HashMap<String, Entry>,
    /// Counts every forgetting, so that a token read from the database
    /// before its session ended is not remembered after: the reader notes
    /// the count before reading, and remembers only if it has not moved.
    /// A session ends with its row deleted first and the cache told after,
    /// so a read that saw the row began before the count moved.
    forgotten: u64,
}

impl TokenCache {
    /// A cache for tokens that expire after `lifetime` ms unused.
    pub fn new(lifetime: Option<i64>) -> TokenCache {
        TokenCache {
            entries: Mutex::default(),
            lifetime,
        }
    }

    /// The session `token` opens, used at `now`, if it is valid; an
    /// expired token is deleted.
    pub async fn session(&self, store: &dyn Store, token: &str, now: i64) -> Result<Option<Session>, StoreError> {
        let (cached, forgotten) = {
            let mut entries = self.locked();
            let forgotten = entries.forgotten;
            let cached = match entries
                .by_token
                .get_mut(token)
                .filter(|e| e.read.elapsed() < TOKEN_CACHE_TTL)
            {
                // Most uses: known, and nothing to write. The use is noted
                // under the same lock, with the token hashed once (issue 26).
                Some(entry) if judge(entry.used, entry.written, now, self.lifetime) == Use::Fresh => {
                    entry.used = now;
                    return Ok(Some(Session {
                        player: entry.player.clone(),
                        token_hash: entry.hash.clone(),
                    }));
                }
                Some(e) => Some((e.player.clone(), e.hash.clone(), e.used, e.written)),
                None => None,
            };
            (cached, forgotten)
        };
        let seen = match cached {
            Some(_) => Seen::Cached,
            None => Seen::Read { forgotten },
        };
        let (player, hash, last_used, written) = match cached {
            Some(known) => known,
            None => {
                let hash = token_hash(token);
                match store.session_by_token(&hash).await? {
                    Some(session) => (session.player, hash, session.last_used_at, session.last_used_at),
                    None => return Ok(None),
                }
            }
        };
        let written = match judge(last_used, written, now, self.lifetime) {
            Use::Expired => {
                self.forget_token(&hash);
                store.delete_token(&hash).await?;
                return Ok(None);
            }
            Use::Touch => {
                store.touch_token(&hash, now).await?;
                now
            }
            Use::Fresh => written,
        };
        self.remember(token, seen, &player, &hash, now, written);
        Ok(Some(Session {
            player,
            token_hash: hash,
        }))
    }

    /// Notes a use: in place for a token found here (unless it was
    /// forgotten meanwhile, which stands), anew for one just read (unless
    /// any token was forgotten since the read began: it may be this one).
    fn remember(&self, token: &str, seen: Seen, player: &Player, hash: &str, used: i64, written: i64) {
        let mut entries = self.locked();
        match seen {
            Seen::Cached => {
                if let Some(entry) = entries.by_token.get_mut(token) {
                    entry.used = used;
                    entry.written = written;
                }
                return;
            }
            Seen::Read { forgotten } if forgotten != entries.forgotten => return,
            Seen::Read { .. } => {}
        }
        if entries.by_token.len() >= TOKEN_CACHE_SIZE {
            entries.by_token.clear();
        }
        let entry = Entry {
            player: player.clone(),
            hash: hash.to_owned(),
            read: Instant::now(),
            used,
            written,
        };
        entries.by_token.insert(token.to_owned(), entry);
    }

    /// Forgets every token of a player whose profile changed or whose
    /// sessions ended.
    pub fn forget_player(&self, player_id: i64) {
        let mut entries = self.locked();
        entries.forgotten += 1;
        entries.by_token.retain(|_, entry| entry.player.id != player_id);
    }

    /// Forgets the token whose [`token_hash`] is `hash`: its session
    /// ended. A scan, as [`TokenCache::forget_player`] is: a session ends
    /// rarely, and a second index would cost every sign-in.
    pub fn forget_token(&self, hash: &str) {
        let mut entries = self.locked();
        entries.forgotten += 1;
        entries.by_token.retain(|_, entry| entry.hash != hash);
    }

    fn locked(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Where a use found its token.
#[derive(Clone, Copy)]
enum Seen {
    /// In the cache.
    Cached,
    /// In the database, read when the cache had forgotten `forgotten` times.
    Read { forgotten: u64 },
}

/// A session's public name: the first 16 hex digits of its token's
/// SHA-256, which names it to its player without signing anybody in.
pub fn session_id(token_hash: &str) -> &str {
    token_hash.get(..16).unwrap_or(token_hash)
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
        assert_eq!(session_id(&token_hash(&a)).len(), 16);
    }

    fn player(id: i64) -> Player {
        Player {
            id,
            name: format!("p{id}"),
            email: None,
            created_at: 0,
            bot: false,
        }
    }

    fn cached(cache: &TokenCache, token: &str) -> bool {
        cache.locked().by_token.contains_key(token)
    }

    /// The race of a request with the end of its session: the request read
    /// the token's row just before the row was deleted, and would remember
    /// it after the cache was told, keeping a dead token alive for a TTL.
    #[test]
    fn a_token_read_before_its_session_ended_is_not_remembered() {
        let cache = TokenCache::new(None);
        let (token, hash) = ("t1".to_owned(), token_hash("t1"));
        for forget in [
            (|c: &TokenCache, hash: &str| c.forget_token(hash)) as fn(&TokenCache, &str),
            |c, _| c.forget_player(1),
        ] {
            let seen = Seen::Read {
                forgotten: cache.locked().forgotten,
            };
            forget(&cache, &hash);
            cache.remember(&token, seen, &player(1), &hash, 10, 10);
            assert!(!cached(&cache, &token));
        }
        // Read with nothing forgotten since: remembered, and a later use
        // finds it.
        let seen = Seen::Read {
            forgotten: cache.locked().forgotten,
        };
        cache.remember(&token, seen, &player(1), &hash, 10, 10);
        assert!(cached(&cache, &token));
        // Forgotten after it was remembered: gone, and a use that found it
        // just before does not bring it back.
        cache.forget_token(&hash);
        cache.remember(&token, Seen::Cached, &player(1), &hash, 20, 20);
        assert!(!cached(&cache, &token));
    }

    /// A use that writes nothing still renews the token in the cache: its
    /// idle time counts from that use, not from the last one written.
    #[tokio::test]
    async fn a_cached_use_renews_the_token_without_a_write() {
        let dir = std::env::temp_dir().join(format!("tavoliere-tokens-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let url = format!("sqlite://{}?mode=rwc", dir.join("tokens.db").display());
        let store = crate::store::connect(&url).await.expect("a store");
        // Sessions last 10 s unused: a use is written once a second at most.
        let cache = TokenCache::new(Some(10_000));
        let (token, hash) = ("t1".to_owned(), token_hash("t1"));
        let seen = Seen::Read {
            forgotten: cache.locked().forgotten,
        };
        cache.remember(&token, seen, &player(1), &hash, 0, 0);
        // Used at 0.5 s, within the second: nothing to write, the use noted.
        // The store has no row for the token, so the session can only have
        // come from the cache.
        let session = cache
            .session(store.as_ref(), &token, 500)
            .await
            .expect("no store error");
        assert_eq!(session.map(|s| s.token_hash), Some(hash.clone()));
        let entry = cache.locked().by_token[&token].clone();
        assert_eq!((entry.used, entry.written), (500, 0));
        // 10.2 s after it was written and 9.7 s after that use: still open.
        assert_eq!(judge(entry.used, entry.written, 10_200, cache.lifetime), Use::Touch);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_token_expires_when_idle_and_each_use_renews_it() {
        let day = 86_400_000;
        let lifetime = Some(90 * day);
        assert_eq!(judge(0, 0, 90 * day, lifetime), Use::Touch);
        assert_eq!(judge(0, 0, 90 * day + 1, lifetime), Use::Expired);
        // Used a minute ago and written then: written again now.
        assert_eq!(judge(0, 0, 60_000, lifetime), Use::Touch);
        // Used and written within the minute: no write.
        assert_eq!(judge(1_000, 1_000, 59_000, lifetime), Use::Fresh);
        // Kept in use, it never expires, however long since it was opened.
        let mut written = 0;
        for now in (0..200 * day).step_by(day as usize) {
            assert_ne!(judge(now - day, written, now, lifetime), Use::Expired, "{now}");
            written = now;
        }
        // Without a lifetime nothing expires.
        assert_eq!(judge(0, 0, 1_000 * day, None), Use::Touch);
        // Tiny lifetimes are renewed often enough to stay alive in use.
        assert_eq!(judge(0, 0, 10, Some(100)), Use::Touch);
        assert_eq!(judge(0, 0, 9, Some(100)), Use::Fresh);
        assert_eq!(judge(0, 0, 101, Some(100)), Use::Expired);
    }
}
