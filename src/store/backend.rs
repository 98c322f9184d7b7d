//! What a backend is to the rest of the store: a sqlx pool of its
//! database, its group-commit writer, its way of taking turns to write, and
//! its announcements. The stores' traits are implemented once for every
//! [`Backend`] (`shared/`), since both databases run the same statements;
//! `sqlite/` and `postgres/` implement this trait, in plain code, with what
//! is theirs alone.

use std::future::Future;

use sqlx::{Database, Encode, FromRow, IntoArguments, Type};
use tokio::sync::{mpsc, MutexGuard};

use super::announce::Announcement;
use super::group_commit::GroupCommit;

pub trait Backend: Send + Sync + 'static {
    /// Its database, whose arguments every statement can take (stated here
    /// once, so that no shared implementation needs to repeat it).
    type DB: for<'q> Database<QueryResult: Affected, Arguments<'q>: IntoArguments<'q, Self::DB>>;

    fn core(&self) -> &Core<Self::DB>;

    /// Readers and the small writes outside the group commit.
    fn pool(&self) -> &sqlx::Pool<Self::DB> {
        &self.core().pool
    }

    /// The writer of games and notifications.
    fn commits(&self) -> &GroupCommit {
        &self.core().commits
    }

    /// Waits for this process's turn to write outside the group commit:
    /// `None` where the database locks rows and nobody needs to wait.
    fn write_turn(&self) -> impl Future<Output = Option<MutexGuard<'_, ()>>> + Send;

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

/// A value the shared statements bind: sqlx's `Encode` and `Type` in one
/// name, so the implementations' bounds read as a list of what they bind.
pub trait Param<'q, DB: Database>: Encode<'q, DB> + Type<DB> + Send + 'q {}

impl<'q, DB: Database, T: Encode<'q, DB> + Type<DB> + Send + 'q> Param<'q, DB> for T {}

/// A row the shared statements read.
pub trait Decoded<DB: Database>: for<'r> FromRow<'r, DB::Row> + Send + Unpin {}

impl<DB: Database, T: for<'r> FromRow<'r, DB::Row> + Send + Unpin> Decoded<DB> for T {}
