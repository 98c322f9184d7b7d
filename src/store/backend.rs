//! What a backend is to the rest of the store: a sqlx pool of its
//! database, its group-commit writer, its way of taking turns to write, and
//! its announcements. The stores' traits are implemented once for every
//! [`Backend`] (`shared/`), since both databases run the same statements;
//! `sqlite/` and `postgres/` implement this trait, in plain code, with what
//! is theirs alone.

use std::future::Future;

use sqlx::{Database, Executor};
use tokio::sync::{mpsc, MutexGuard};

use super::announce::Announcement;
use super::binding::SharedSql;
use super::group_commit::GroupCommit;

pub trait Backend: Send + Sync + 'static {
    /// Its database, which binds and runs every shared statement (stated
    /// here once, so that no shared implementation needs to repeat it).
    type DB: SharedSql;

    fn core(&self) -> &Core<Self::DB>;

    /// Readers and the small writes outside the group commit.
    fn pool(&self) -> &sqlx::Pool<Self::DB> {
        &self.core().pool
    }

    /// The pool, as what runs a statement.
    fn db(&self) -> impl Executor<'_, Database = Self::DB> {
        Self::DB::pooled(self.pool())
    }

    /// The writer of games and notifications.
    fn commits(&self) -> &GroupCommit {
        &self.core().commits
    }

    /// Waits for this process's turn to write outside the group commit:
    /// `None` where the database locks rows and nobody needs to wait.
    fn write_turn(&self) -> impl Future<Output = Option<MutexGuard<'_, ()>>> + Send;

    /// The reads it answers on the calling thread, where it has them
    /// (SQLite; a PostgreSQL read is a round trip to the server anyway).
    fn direct_reads(&self) -> Option<&super::sqlite::DirectReads> {
        None
    }

    /// See [`super::GameStore::announcements`].
    fn announcements(&self) -> Option<mpsc::Receiver<Vec<Announcement>>>;
}

/// What every backend has.
pub struct Core<DB: Database> {
    /// Which backend, for logs and metrics.
    pub name: &'static str,
    pub pool: sqlx::Pool<DB>,
    pub commits: GroupCommit,
}

/// How many rows a statement changed: every driver tells, but each in a
/// method of its own.
pub trait Affected {
    fn rows_affected(&self) -> u64;
}

impl Affected for sqlx::sqlite::SqliteQueryResult {
    fn rows_affected(&self) -> u64 {
        self.rows_affected()
    }
}

impl Affected for sqlx::postgres::PgQueryResult {
    fn rows_affected(&self) -> u64 {
        self.rows_affected()
    }
}
