//! The SQLite backend: the embedded default. WAL journal with
//! `synchronous = FULL` so a committed move survives a power cut, and a busy
//! timeout so concurrent writers wait for the single write lock. Games are
//! written by `writer.rs` on a thread of its own, through the VFS of
//! `vfs.rs` (a commit's WAL frames written at once), and the WAL is
//! checkpointed on another (`checkpoint.rs`); this process's other writes
//! take turns with the writer through one [`WriteGate`]. The reads every
//! game makes run on the thread that asks (`direct.rs`), the others in
//! sqlx's pool. The bundled SQLite itself is compiled with the flags of
//! `.cargo/config.toml`, which say why; the test at the end holds them.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use tokio::sync::{mpsc, Mutex, MutexGuard};

use super::announce::Announcement;
use super::backend::{Backend, Core};
use super::group_commit::GroupCommit;

mod checkpoint;
mod direct;
mod filing;
mod transaction;
mod vfs;
mod writer;

pub use direct::DirectReads;

pub struct SqliteStore {
    core: Core<sqlx::Sqlite>,
    gate: WriteGate,
    direct: DirectReads,
    /// Held for as long as the store lives.
    _checkpoints: checkpoint::Checkpoints,
}

/// Serialises this process's write transactions on SQLite, which has one
/// writer at a time: waiting here is a wake-up the moment the other writer
/// is done, where SQLite's busy handler would sleep in steps of up to
/// 100 ms, holding up a whole batch of moves behind, say, a game's creation.
#[derive(Clone, Default)]
struct WriteGate(Arc<Mutex<()>>);

impl super::Store for SqliteStore {}

impl Backend for SqliteStore {
    type DB = sqlx::Sqlite;

    fn core(&self) -> &Core<sqlx::Sqlite> {
        &self.core
    }

    fn direct_reads(&self) -> Option<&DirectReads> {
        Some(&self.direct)
    }

    async fn write_turn(&self) -> Option<MutexGuard<'_, ()>> {
        Some(self.gate.0.lock().await)
    }

    /// SQLite announces nothing to other processes.
    fn announcements(&self) -> Option<mpsc::Receiver<Vec<Announcement>>> {
        None
    }
}

impl SqliteStore {
    pub async fn connect(url: &str) -> Result<SqliteStore, sqlx::Error> {
        if url.contains(":memory:") || url.contains("mode=memory") {
            // The game writer has a connection of its own, which could not
            // see the pool's in-memory database.
            return Err(sqlx::Error::Configuration(
                "an in-memory SQLite database cannot be used: give a file (sqlite://tavoliere.db)".into(),
            ));
        }
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true)
            .pragma("wal_autocheckpoint", checkpoint::BACKSTOP.to_string());
        // Pooled connections are not pinged before each use: a SQLite
        // connection is a file handle, which cannot go stale, and sqlx's
        // ping is a hand-off to the connection's thread and back (issue 26).
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .test_before_acquire(false)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.clone())
            .await?;
        sqlx::migrate!("migrations/sqlite").run(&pool).await?;
        let checkpoints =
            checkpoint::Checkpoints::start(options.get_filename().to_owned(), writer::open).map_err(sqlx::Error::Io)?;
        let gate = WriteGate::default();
        let direct = DirectReads::new(options.get_filename().to_owned());
        let mut writer = writer::Writer::new(options.get_filename().to_owned());
        let turns = gate.clone();
        let commits = GroupCommit::spawn_thread(move |batch| {
            // Taking turns with this process's other writers.
            let _turn = turns.0.blocking_lock();
            writer.commit(batch)
        })
        .map_err(sqlx::Error::Io)?;
        let core = Core {
            name: "sqlite",
            pool,
            commits,
        };
        Ok(SqliteStore {
            core,
            gate,
            direct,
            _checkpoints: checkpoints,
        })
    }
}

#[cfg(test)]
mod tests {
    /// `.cargo/config.toml` compiles SQLite with more lookaside and without
    /// the shared page cache: a build that lost them would still pass every
    /// other test, and quietly cost each move more.
    #[test]
    fn sqlite_is_compiled_as_configured() {
        let connection = rusqlite::Connection::open_in_memory().expect("an in-memory database");
        let options: Vec<String> = connection
            .prepare("PRAGMA compile_options")
            .and_then(|mut statement| statement.query_map([], |row| row.get(0))?.collect())
            .expect("the compile options");
        assert!(
            options.iter().any(|option| option == "DEFAULT_LOOKASIDE=1200,500"),
            "{options:?}"
        );
        assert!(
            !options.iter().any(|option| option == "ENABLE_MEMORY_MANAGEMENT"),
            "{options:?}"
        );
    }
}
