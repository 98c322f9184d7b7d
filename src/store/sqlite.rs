//! The SQLite backend: the embedded default. WAL journal with
//! `synchronous = FULL` so a committed move survives a power cut, and a busy
//! timeout so concurrent writers wait for the single write lock.

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};

use super::group_commit::GroupCommit;

mod writer;

pub struct SqliteStore {
    pool: SqlitePool,
    commits: GroupCommit,
    gate: super::WriteGate,
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
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.clone())
            .await?;
        sqlx::migrate!("migrations/sqlite").run(&pool).await?;
        let gate = super::WriteGate::one_writer();
        let mut writer = writer::Writer::new(options.get_filename().to_owned());
        let turns = gate.clone();
        let commits = GroupCommit::spawn_thread(move |batch| {
            // Taking turns with this process's other writers.
            let _turn = turns.blocking_enter();
            writer.commit(&batch)
        })
        .map_err(sqlx::Error::Io)?;
        Ok(SqliteStore { pool, commits, gate })
    }
}

impl SqliteStore {
    /// SQLite announces nothing to other processes.
    fn announcement_feed(&self) -> Option<tokio::sync::mpsc::Receiver<Vec<super::announce::Announcement>>> {
        None
    }
}

super::impl_store!(SqliteStore, sqlx::Sqlite, "sqlite");
super::notify::impl_notify_store!(SqliteStore, sqlx::Sqlite);
