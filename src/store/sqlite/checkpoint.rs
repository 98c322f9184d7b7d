//! The WAL's checkpoints, off the game writer's thread: a thread of their
//! own copies the WAL's committed pages into the database every
//! [`EVERY`], on a connection of its own (`PRAGMA wal_checkpoint(PASSIVE)`,
//! which never waits for the writer nor makes it wait).
//!
//! By default SQLite checkpoints in the connection that commits, once the
//! WAL holds 1,000 frames: under load that was the game writer, about 25
//! times a second, each time between two batches of moves, whose clients
//! waited for it. Here the writer and the pool's connections only
//! checkpoint past [`BACKSTOP`] frames, and then copy only what this
//! thread has not yet; since the thread copies what [`EVERY`] brought, a
//! page changed by many batches is copied once for all of them
//! (BENCHMARKS.md, issue 26). The backstop is also what lets the WAL be
//! reused from its start under a steady load: that needs a checkpoint
//! that caught up with the last commit, which this thread's rarely does
//! (the writer commits again meanwhile) and the writer's always does.
//!
//! What it promises: nothing about durability changes. A commit is durable
//! when its WAL frames are synced, as before; a checkpoint only copies
//! pages that are already durable, and syncs the database before the WAL
//! may be reused (`synchronous = FULL`). The thread ends within one
//! [`EVERY`] of its [`Checkpoints`] being dropped.

use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Duration;

use rusqlite::Connection;

/// How often the WAL's new pages are copied into the database.
pub(super) const EVERY: Duration = Duration::from_millis(100);

/// The WAL's frames past which a committing connection checkpoints
/// itself (`wal_autocheckpoint`, SQLite's default 1,000): only when this
/// thread falls behind. About 40 MB with 4 KiB pages.
pub(super) const BACKSTOP: u32 = 10_000;

/// The checkpointing thread; it stops when this is dropped.
pub(super) struct Checkpoints {
    _stop: Sender<()>,
}

impl Checkpoints {
    /// Starts checkpointing the database at `path` with connections that
    /// `open` makes (opened again if one fails).
    pub(super) fn start<F>(path: PathBuf, open: F) -> std::io::Result<Checkpoints>
    where
        F: Fn(&PathBuf) -> rusqlite::Result<Connection> + Send + 'static,
    {
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("wal-checkpoint".to_owned())
            .spawn(move || {
                let mut connection = None;
                // Nothing is ever sent: the channel only disconnects.
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    if connection.is_none() {
                        connection = open(&path)
                            .map_err(|error| tracing::warn!(%error, "no connection to checkpoint the WAL with"))
                            .ok();
                    }
                    if let Some(c) = &connection {
                        if let Err(error) = checkpoint(c) {
                            tracing::warn!(%error, "a WAL checkpoint failed");
                            connection = None;
                        }
                    }
                }
            })?;
        Ok(Checkpoints { _stop: stop })
    }
}

/// Copies the WAL's committed pages into the database, as far as no
/// reader still needs them in the WAL. A checkpoint already under way
/// elsewhere (a backstop) is not an error: the next one follows.
fn checkpoint(connection: &Connection) -> rusqlite::Result<()> {
    connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database in WAL mode whose connections never checkpoint by
    /// themselves, as the writer's do not below [`BACKSTOP`].
    fn open_without_checkpoints(path: &PathBuf) -> rusqlite::Result<Connection> {
        let connection = Connection::open(path)?;
        connection.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))?;
        connection.pragma_update(None, "wal_autocheckpoint", 0)?;
        Ok(connection)
    }

    fn database_bytes(path: &PathBuf) -> u64 {
        std::fs::metadata(path).map_or(0, |m| m.len())
    }

    #[test]
    fn committed_pages_reach_the_database_without_the_writer() {
        let dir = std::env::temp_dir().join(format!("tavoliere-checkpoint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let path = dir.join("wal.db");
        let writer = open_without_checkpoints(&path).expect("the writer's connection");
        writer
            .execute_batch(
                "CREATE TABLE t (x BLOB);
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
                 INSERT INTO t SELECT randomblob(1000) FROM n;",
            )
            .expect("about 50 pages written");
        // Committed, but only in the WAL: the database file holds none of it.
        let before = database_bytes(&path);
        assert!(before < 50 * 4096, "{before} bytes");

        let checkpoints = Checkpoints::start(path.clone(), open_without_checkpoints).expect("the thread");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while database_bytes(&path) < 50 * 4096 && std::time::Instant::now() < deadline {
            std::thread::sleep(EVERY / 2);
        }
        assert!(database_bytes(&path) >= 50 * 4096, "{} bytes", database_bytes(&path));
        drop(checkpoints);
        drop(writer);
        let _ = std::fs::remove_dir_all(dir);
    }
}
