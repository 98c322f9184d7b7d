//! Players' credentials: names, passwords (argon2) and bearer tokens (random,
//! stored as their SHA-256).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use sha2::{Digest, Sha256};

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

type Job = Box<dyn FnOnce() + Send>;

/// Runs an argon2 computation on one of a few long-lived threads, one per
/// core. Each computation takes about 19 MiB of working memory, which the
/// allocator keeps for the thread that used it; on short-lived blocking
/// threads a burst of sign-ups left the server holding over a gigabyte.
/// Bounding the threads bounds that memory, and keeps a flood of logins
/// from taking more than the cores.
async fn argon2_off_runtime<T: Send + 'static>(work: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    static JOBS: std::sync::OnceLock<std::sync::mpsc::Sender<Job>> = std::sync::OnceLock::new();
    let jobs = JOBS.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel::<Job>();
        let receiver = std::sync::Arc::new(Mutex::new(receiver));
        for i in 0..std::thread::available_parallelism().map_or(2, |n| n.get()) {
            let receiver = receiver.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || loop {
                    let job = receiver.lock().unwrap_or_else(|p| p.into_inner()).recv();
                    match job {
                        // A panicking job drops its answer (its caller gets
                        // an error); the thread lives on for the others.
                        Ok(job) => drop(std::panic::catch_unwind(std::panic::AssertUnwindSafe(job))),
                        Err(_) => return,
                    }
                });
            if let Err(error) = spawned {
                tracing::error!(%error, "cannot start a password hashing thread");
            }
        }
        sender
    });
    let (done, answer) = tokio::sync::oneshot::channel();
    jobs.send(Box::new(move || {
        let _ = done.send(work());
    }))
    .map_err(|_| Error::internal("the password hashing threads are gone"))?;
    answer
        .await
        .map_err(|_| Error::internal("a password hashing thread failed"))?
}

thread_local! {
    /// This thread's argon2 working memory, kept from one hash to the next.
    static ARGON2_MEMORY: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// Argon2 of `password` into `out`, in this thread's reused working memory:
/// allocating it afresh each time grew the process by its whole size
/// (19 MiB) per hash, the allocator never handing the aligned block back.
fn argon2_into(argon2: &Argon2, params: &Params, password: &[u8], salt: &[u8], out: &mut [u8]) -> Result<()> {
    ARGON2_MEMORY.with(|memory| {
        let mut memory = memory.borrow_mut();
        let blocks = params.block_count();
        if memory.len() < blocks {
            memory.resize(blocks, Block::default());
        }
        argon2
            .hash_password_into_with_memory(password, salt, out, &mut memory[..blocks])
            .map_err(Error::internal)
    })
}

/// Hashes a password off the async runtime (argon2 is slow on purpose), as
/// a PHC string with argon2id's default parameters.
pub async fn hash_password(password: Password) -> Result<String> {
    let Password(password) = password;
    argon2_off_runtime(move || {
        let salt = SaltString::generate(&mut OsRng);
        let mut salt_buffer = [0u8; 64];
        let salt_bytes = salt.as_salt().decode_b64(&mut salt_buffer).map_err(Error::internal)?;
        let params = Params::default();
        let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
        let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
        argon2_into(&argon2, &params, password.as_bytes(), salt_bytes, &mut out)?;
        let hash = PasswordHash {
            algorithm: Algorithm::Argon2id.ident(),
            version: Some(Version::V0x13.into()),
            params: ParamsString::try_from(&params).map_err(Error::internal)?,
            salt: Some(salt.as_salt()),
            hash: Some(Output::new(&out).map_err(Error::internal)?),
        };
        Ok(hash.to_string())
    })
    .await
}

/// Checks a password against a stored PHC hash, off the async runtime.
pub async fn verify_password(password: String, hash: String) -> Result<bool> {
    argon2_off_runtime(move || {
        let parsed = PasswordHash::new(&hash).map_err(Error::internal)?;
        let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
            return Ok(false);
        };
        let algorithm = Algorithm::try_from(parsed.algorithm).map_err(Error::internal)?;
        let version = parsed
            .version
            .map(Version::try_from)
            .transpose()
            .map_err(Error::internal)?
            .unwrap_or_default();
        let params = Params::try_from(&parsed).map_err(Error::internal)?;
        let argon2 = Argon2::new(algorithm, version, params.clone());
        let mut salt_buffer = [0u8; 64];
        let salt_bytes = salt.decode_b64(&mut salt_buffer).map_err(Error::internal)?;
        let mut out = vec![0u8; expected.len()];
        argon2_into(&argon2, &params, password.as_bytes(), salt_bytes, &mut out)?;
        // `Output` compares in constant time.
        Ok(Output::new(&out).map_err(Error::internal)? == expected)
    })
    .await
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

    /// Our hashing reuses its working memory but must stay argon2id in
    /// PHC format: hashes stored by the argon2 crate's own hasher verify, and
    /// ours verify there.
    #[tokio::test]
    async fn password_hashes_are_standard_argon2id() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let theirs = Argon2::default()
            .hash_password(b"correct horse", &SaltString::generate(&mut OsRng))
            .map(|h| h.to_string())
            .expect("a hash");
        assert_eq!(
            verify_password("correct horse".to_owned(), theirs.clone()).await.ok(),
            Some(true)
        );
        assert_eq!(
            verify_password("wrong horse".to_owned(), theirs).await.ok(),
            Some(false)
        );
        let password = Password::parse("correct horse".to_owned()).expect("a password");
        let ours = hash_password(password).await.expect("a hash");
        assert!(ours.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{ours}");
        let parsed = PasswordHash::new(&ours).expect("PHC");
        assert!(Argon2::default().verify_password(b"correct horse", &parsed).is_ok());
        assert!(Argon2::default().verify_password(b"wrong horse", &parsed).is_err());
        assert_eq!(
            verify_password("x".to_owned(), "not a hash".to_owned()).await.ok(),
            None
        );
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
