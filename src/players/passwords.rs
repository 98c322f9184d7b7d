//! Password hashing: argon2id in PHC format, computed on a few long-lived
//! threads off the async runtime, in working memory each thread reuses.

use std::cell::RefCell;
use std::sync::Mutex;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};

use super::input::Password;

/// Hashing or checking a password failed (a bad stored hash, the hashing
/// threads gone): never the player's fault.
#[derive(Debug, thiserror::Error)]
#[error("password hashing: {0}")]
pub struct HashError(String);

impl HashError {
    fn of(error: impl std::fmt::Display) -> HashError {
        HashError(error.to_string())
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// Runs an argon2 computation on one of a few long-lived threads, one per
/// core. Each computation takes about 19 MiB of working memory, which the
/// allocator keeps for the thread that used it; on short-lived blocking
/// threads a burst of sign-ups left the server holding over a gigabyte.
/// Bounding the threads bounds that memory, and keeps a flood of logins
/// from taking more than the cores.
async fn argon2_off_runtime<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, HashError> + Send + 'static,
) -> Result<T, HashError> {
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
    .map_err(|_| HashError("the password hashing threads are gone".to_owned()))?;
    answer
        .await
        .map_err(|_| HashError("a password hashing thread failed".to_owned()))?
}

thread_local! {
    /// This thread's argon2 working memory, kept from one hash to the next.
    static ARGON2_MEMORY: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// Argon2 of `password` into `out`, in this thread's reused working memory:
/// allocating it afresh each time grew the process by its whole size
/// (19 MiB) per hash, the allocator never handing the aligned block back.
fn argon2_into(
    argon2: &Argon2,
    params: &Params,
    password: &[u8],
    salt: &[u8],
    out: &mut [u8],
) -> Result<(), HashError> {
    ARGON2_MEMORY.with(|memory| {
        let mut memory = memory.borrow_mut();
        let blocks = params.block_count();
        if memory.len() < blocks {
            memory.resize(blocks, Block::default());
        }
        argon2
            .hash_password_into_with_memory(password, salt, out, &mut memory[..blocks])
            .map_err(HashError::of)
    })
}

/// Hashes a password off the async runtime (argon2 is slow on purpose), as
/// a PHC string with argon2id's default parameters.
pub async fn hash_password(password: Password) -> Result<String, HashError> {
    let password = password.into_inner();
    argon2_off_runtime(move || {
        let salt = SaltString::generate(&mut OsRng);
        let mut salt_buffer = [0u8; 64];
        let salt_bytes = salt.as_salt().decode_b64(&mut salt_buffer).map_err(HashError::of)?;
        let params = Params::default();
        let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
        let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
        argon2_into(&argon2, &params, password.as_bytes(), salt_bytes, &mut out)?;
        let hash = PasswordHash {
            algorithm: Algorithm::Argon2id.ident(),
            version: Some(Version::V0x13.into()),
            params: ParamsString::try_from(&params).map_err(HashError::of)?,
            salt: Some(salt.as_salt()),
            hash: Some(Output::new(&out).map_err(HashError::of)?),
        };
        Ok(hash.to_string())
    })
    .await
}

/// A hash of a random password, made once: what a sign-in with an unknown
/// name is checked against, at the cost of a real check.
pub async fn dummy_hash() -> Result<String, HashError> {
    static DUMMY: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    DUMMY
        .get_or_try_init(|| async {
            let random = SaltString::generate(&mut OsRng).as_str().to_owned();
            let password: Password = format!("dummy {random}").parse().map_err(HashError::of)?;
            hash_password(password).await
        })
        .await
        .cloned()
}

/// Checks a password against a stored PHC hash, off the async runtime.
pub async fn verify_password(password: String, hash: String) -> Result<bool, HashError> {
    argon2_off_runtime(move || {
        let parsed = PasswordHash::new(&hash).map_err(HashError::of)?;
        let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
            return Ok(false);
        };
        let algorithm = Algorithm::try_from(parsed.algorithm).map_err(HashError::of)?;
        let version = parsed
            .version
            .map(Version::try_from)
            .transpose()
            .map_err(HashError::of)?
            .unwrap_or_default();
        let params = Params::try_from(&parsed).map_err(HashError::of)?;
        let argon2 = Argon2::new(algorithm, version, params.clone());
        let mut salt_buffer = [0u8; 64];
        let salt_bytes = salt.decode_b64(&mut salt_buffer).map_err(HashError::of)?;
        let mut out = vec![0u8; expected.len()];
        argon2_into(&argon2, &params, password.as_bytes(), salt_bytes, &mut out)?;
        // `Output` compares in constant time.
        Ok(Output::new(&out).map_err(HashError::of)? == expected)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let password: Password = "correct horse".parse().expect("a password");
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
}
