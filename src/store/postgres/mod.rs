//! The PostgreSQL backend: a connection pool for reads and small writes
//! (PostgreSQL locks rows, so this process's writers need no turns), the
//! group-commit writer (`writer.rs`, with `plain.rs` for its array
//! statements), and the triggers' announcements (`listen.rs`).

use std::sync::atomic::AtomicU32;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::PgPoolOptions;
use tokio::sync::{mpsc, MutexGuard};

use super::announce::Announcement;
use super::backend::{Backend, Core};

mod listen;
mod plain;
mod writer;

pub struct PgStore {
    core: Core<sqlx::Postgres>,
    /// The server process id of the writer's connection (0 before it
    /// connects): the announcements of its commits, which this process
    /// published itself, are not relayed back.
    writer_backend: Arc<AtomicU32>,
}

impl PgStore {
    pub async fn connect(url: &str) -> Result<PgStore, sqlx::Error> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        let writer_backend = Arc::new(AtomicU32::new(0));
        let commits = writer::group_commit(&pool, writer_backend.clone()).map_err(sqlx::Error::Io)?;
        let core = Core {
            name: "postgres",
            pool,
            commits,
        };
        Ok(PgStore { core, writer_backend })
    }
}

impl super::Store for PgStore {}

impl Backend for PgStore {
    type DB = sqlx::Postgres;

    fn core(&self) -> &Core<sqlx::Postgres> {
        &self.core
    }

    /// Listens to the announcements of the triggers on a connection of its
    /// own, until the receiver is dropped.
    fn announcements(&self) -> Option<mpsc::Receiver<Vec<Announcement>>> {
        let (sender, receiver) = mpsc::channel(1024);
        tokio::spawn(listen::listen(
            self.core.pool.clone(),
            self.writer_backend.clone(),
            sender,
        ));
        Some(receiver)
    }

    /// PostgreSQL locks rows: nobody waits for a turn.
    async fn write_turn(&self) -> Option<MutexGuard<'_, ()>> {
        None
    }
}
